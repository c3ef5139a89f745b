#!/bin/sh
# The vendor template, built as a vendor builds it: install the devspec_shim package into
# a fresh prefix, configure adapters/template against it with find_package, build, and run
# its smoke checks. Prints TAP.
#
#   template_test.sh BUILD_DIR TEMPLATE_DIR WORK_DIR
set -u
build=$1
template=$2
work=$3
n=0
fail=0
step() {
    name=$1
    shift
    n=$((n + 1))
    if "$@" >"$work/step$n.log" 2>&1; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"
        sed 's/^/#   /' "$work/step$n.log"
        fail=1
    fi
}
rm -rf "$work" && mkdir -p "$work" || exit 1
# A sanitizer build installs an instrumented shim: a vendor links against it with the same
# sanitizers (their runtime's symbols come from the program, so the template then links
# without -z defs, and the step that checks -z defs does not apply).
sanitized=0
if grep -q '^DEVSPEC_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
    sanitized=1
    export LDFLAGS="-fsanitize=address,undefined"
fi
step "install the devspec_shim component into a fresh prefix" \
    cmake --install "$build" --prefix "$work/prefix" --component devspec_shim
# Step 2 of the guide: the template is copied from the installed prefix, not the source tree.
step "the prefix holds the template, identical to the source's" \
    diff -r "$template" "$work/prefix/share/devspec/adapters/template"
cp -r "$work/prefix/share/devspec/adapters/template" "$work/mylib-adapter"
template=$work/mylib-adapter
step "configure the template with find_package(devspec_shim)" \
    cmake -S "$template" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix"
step "with no build type given, the template builds RelWithDebInfo (optimised)" \
    grep -qx 'CMAKE_BUILD_TYPE:STRING=RelWithDebInfo' "$work/build/CMakeCache.txt"
step "build the template adapter" cmake --build "$work/build"
step "the template builds without a warning under its own -Wall -Wextra" \
    sh -c "cmake --build '$work/build' --clean-first 2>&1 | (! grep -i 'warning')"
step "its smoke checks pass" ctest --test-dir "$work/build" --output-on-failure
step "the adapter exports only the two entry points" \
    sh -c "nm -D --defined-only '$work/build/devspec_adapter_toy.so' | awk '\$2 == \"T\" {print \$3}' | sort | tr '\n' ' ' | grep -qx 'devspec_adapter_call devspec_adapter_free '"
# -z defs: a symbol declared and never defined (clFFT's clfftInitSetupData was one) stops the
# link instead of making a module that fails to load.
cp -r "$template" "$work/undef"
printf '%s\n' 'int toy_never_defined(void);' 'int toy_uses_it(void) { return toy_never_defined(); }' \
    >>"$work/undef/toylib.c"
if [ "$sanitized" -eq 1 ]; then
    n=$((n + 1))
    echo "ok $n - a symbol declared and never defined is a link error (-z defs) # SKIP a sanitizer build links without -z defs"
else
    step "a symbol declared and never defined is a link error (-z defs)" \
        sh -c "cmake -S '$work/undef' -B '$work/build-undef' -DCMAKE_PREFIX_PATH='$work/prefix' >/dev/null && ! cmake --build '$work/build-undef' >'$work/undef.log' 2>&1 && grep -q 'toy_never_defined' '$work/undef.log'"
fi
step "pkg-config devspec_shim gives what a build without CMake needs" \
    sh -c "cc -std=c11 -shared -fPIC -fvisibility=hidden -o '$work/pc.so' '$template/adapter.c' '$template/toylib.c' \$(PKG_CONFIG_PATH='$work/prefix/lib/pkgconfig' pkg-config --cflags --libs devspec_shim) && '$work/prefix/bin/devspec-adapter-host' '$work/pc.so' <'$template/smoke.jsonl' | cmp - '$template/smoke.expected'"
# A vendor library in static C++ (a class with virtual functions, so typeinfo and vtables
# from the C++ runtime), linked whole into the adapter: with ADAPTER_CXX the adapter loads
# and answers, and --exclude-libs keeps the library's symbols out of the exports.
cat >"$work/cxxlib.cpp" <<'CXX'
struct Base { virtual ~Base() {} virtual int f() const { return 1; } };
struct Derived : Base { int f() const override { return 2; } };
extern "C" int cxxlib_value(void) { Base *b = new Derived; int v = b->f() + (dynamic_cast<Derived *>(b) ? 1 : 0); delete b; return v; }
CXX
step "a static C++ library (-fPIC) builds" \
    sh -c "c++ -fPIC -c '$work/cxxlib.cpp' -o '$work/cxxlib.o' && ar rcs '$work/libcxxlib.a' '$work/cxxlib.o'"
step "the template with ADAPTER_CXX links it whole and builds" \
    sh -c "cmake -S '$template' -B '$work/build-cxx' -DCMAKE_PREFIX_PATH='$work/prefix' -DADAPTER_CXX=ON \
        '-DCMAKE_MODULE_LINKER_FLAGS=${LDFLAGS:-} -Wl,--whole-archive $work/libcxxlib.a -Wl,--no-whole-archive' && cmake --build '$work/build-cxx'"
step "that adapter loads and passes its smoke checks" ctest --test-dir "$work/build-cxx" --output-on-failure
step "and exports only the two entry points, none of the C++ library's" \
    sh -c "nm -D --defined-only '$work/build-cxx/devspec_adapter_toy.so' | awk '\$2 ~ /[TWVBDR]/ {print \$3}' | sort | tr '\n' ' ' | grep -qx 'devspec_adapter_call devspec_adapter_free '"
# The same library called from a C++ source of the adapter (a library with a C++ API only):
# extern "C" glue added to add_library, whose inline functions must not be exported either.
cp -r "$template" "$work/glue"
cat >"$work/glue/glue.cpp" <<'CXX'
#include <string>
inline std::string twice(const std::string &s) { return s + s; }
extern "C" int glue_value(void) { return (int)twice("ab").size(); }
CXX
sed -i 's/add_library(devspec_adapter_toy MODULE adapter.c toylib.c)/add_library(devspec_adapter_toy MODULE adapter.c toylib.c glue.cpp)/' "$work/glue/CMakeLists.txt"
step "the template with a C++ source of its own (ADAPTER_CXX) builds and passes its smoke checks" \
    sh -c "grep -q 'glue.cpp' '$work/glue/CMakeLists.txt' && cmake -S '$work/glue' -B '$work/build-glue' -DCMAKE_PREFIX_PATH='$work/prefix' -DADAPTER_CXX=ON && cmake --build '$work/build-glue' && ctest --test-dir '$work/build-glue' --output-on-failure"
step "and exports only the two entry points, not the glue's functions nor inline ones" \
    sh -c "nm -D --defined-only '$work/build-glue/devspec_adapter_toy.so' | awk '\$2 ~ /[TWVBDR]/ {print \$3}' | sort | tr '\n' ' ' | grep -qx 'devspec_adapter_call devspec_adapter_free '"
echo "1..$n"
exit $fail
