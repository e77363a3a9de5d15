# CMake toolchain file: AArch64 Linux with clang-19 and lld-19 (packages clang-19, lld-19, and
# libc6-dev-arm64-cross + libgcc-12-dev-arm64-cross for the sysroot, which clang finds by itself).
#
# Emulator: qemu-aarch64 -L /usr/aarch64-linux-gnu   (package qemu-user)
# No -cpu in the emulator command: each test sets QEMU_CPU (cortex-a76 for NEON, max,sve128=on /
# sve256=on / sve512=on for SVE); a -cpu option here would override it.
#
#   cmake -S . -B build-aarch64-clang -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-clang19.cmake -DTK_CPU=a64fx
#
# ISA flags (e.g. -march=armv8.2-a+sve for SVE CPUs) are not set here: they belong to the ISA
# descriptor and reach the compile through TK_ISA_CFLAGS.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TK_CROSS_TRIPLE aarch64-linux-gnu)
set(TK_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/cross-clang19.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
