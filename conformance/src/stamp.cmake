# Writes stamp.h from stamp.h.in: the suite's version and the commit of SOURCE with whether
# tracked files differ from it, as git says; COMMIT (from -DDEVSPEC_COMMIT) when SOURCE is
# not a git checkout. configure_file rewrites OUTPUT only when its text changes, so a build
# after a new commit recompiles the one file that includes it, and one without none.
#   cmake -DSOURCE=DIR -DINPUT=stamp.h.in -DOUTPUT=stamp.h -DVERSION=V [-DCOMMIT=HASH] -P stamp.cmake
set(DSR_VERSION "${VERSION}")
set(DSR_COMMIT "")
set(DSR_MODIFIED -1)
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE}" rev-parse HEAD
    OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    set(DSR_COMMIT "${head}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE}" status --porcelain
      --untracked-files=no OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0)
      if(changes STREQUAL "")
        set(DSR_MODIFIED 0)
      else()
        set(DSR_MODIFIED 1)
      endif()
    endif()
  endif()
endif()
if(DSR_COMMIT STREQUAL "" AND COMMIT)
  if(NOT COMMIT MATCHES "^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+$")
    message(FATAL_ERROR "DEVSPEC_COMMIT='${COMMIT}' is not a commit (hex digits, 7 or more)")
  endif()
  set(DSR_COMMIT "${COMMIT}")
endif()
configure_file("${INPUT}" "${OUTPUT}" @ONLY)
