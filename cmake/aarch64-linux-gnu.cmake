# CMake toolchain file: AArch64 Linux with the Debian gcc 12 cross compiler (gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross).
#
# Emulator: qemu-aarch64 -L /usr/aarch64-linux-gnu   (package qemu-user)
# No -cpu in the emulator command: each test sets QEMU_CPU (cortex-a76 for NEON, max,sve128=on /
# sve256=on / sve512=on for SVE); a -cpu option here would override it.
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DTK_CPU=a76
#
# ISA flags (e.g. -march=armv8.2-a+sve for SVE CPUs) are not set here: they belong to the ISA
# descriptor and reach the compile through TK_ISA_CFLAGS.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TK_CROSS_TRIPLE aarch64-linux-gnu)
set(TK_CROSS_QEMU qemu-aarch64)

set(CMAKE_C_COMPILER ${TK_CROSS_TRIPLE}-gcc)
# C++: the gcc cross g++ when installed (g++-aarch64-linux-gnu brings libstdc++ for the target);
# otherwise clang++-19, which compiles C++ for the target but cannot link it without that libstdc++.
find_program(TK_CROSS_GXX ${TK_CROSS_TRIPLE}-g++)
if(TK_CROSS_GXX)
  set(CMAKE_CXX_COMPILER ${TK_CROSS_GXX})
  set(TK_CROSS_CXX_LINKS ON)
else()
  set(CMAKE_CXX_COMPILER clang++-19)
  set(CMAKE_CXX_COMPILER_TARGET ${TK_CROSS_TRIPLE})
  set(TK_CROSS_CXX_LINKS OFF)
  # the compiler checks must not try to link C++ executables
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
