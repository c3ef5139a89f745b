# Writes OUTPUT, a C file defining NAME as the bytes of INPUT (NUL-terminated), so a text
# file of the source tree (the compare page) is compiled into devspec.
#   cmake -DINPUT=... -DOUTPUT=... -DNAME=... -P embed.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}.tmp" "/* Generated from ${INPUT} by embed.cmake; do not edit. */\n#include <stddef.h>\nextern const char *const ${NAME};\nextern const size_t ${NAME}_len;\nstatic const unsigned char bytes[] = {\n${body}0x00};\nconst char *const ${NAME} = (const char *)bytes;\nconst size_t ${NAME}_len = ${bytes};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
