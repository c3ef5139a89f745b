# Writes OUTPUT, a C file defining `const char NAME[]` with the bytes of INPUT and a final
# NUL, so that kernels.cl stays a readable OpenCL C file and the library needs no file at
# run time. Run as: cmake -DINPUT=... -DOUTPUT=... -DNAME=... -P embed.cmake
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp" "/* Generated from kernels.cl by embed.cmake; do not edit. */\n#include \"opencl.h\"\n\nconst char ${NAME}[] = {\n${bytes}0x00};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
