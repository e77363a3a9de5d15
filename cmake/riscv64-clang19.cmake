# CMake toolchain file: RISC-V 64 Linux (RV64GCV) with clang-19 and lld-19 (packages clang-19,
# lld-19, and libc6-dev-riscv64-cross + libgcc-12-dev-riscv64-cross for the sysroot). clang >= 16 is
# needed for the __riscv_-prefixed RVV intrinsics; gcc 12 has none.
#
# Emulator: qemu-riscv64 -L /usr/riscv64-linux-gnu   (package qemu-user)
# Vector code needs QEMU_CPU=rv64,v=true,vext_spec=v1.0,vlen=128 (or 256, 512, 1024); each test sets
# it, so the emulator command carries no -cpu (it would override QEMU_CPU).
#
#   cmake -S . -B build-riscv64 -DCMAKE_TOOLCHAIN_FILE=cmake/riscv64-clang19.cmake -DTK_CPU=x60
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(TK_CROSS_TRIPLE riscv64-linux-gnu)
set(TK_CROSS_QEMU qemu-riscv64)
include(${CMAKE_CURRENT_LIST_DIR}/cross-clang19.cmake)
# The whole build targets RV64GCV (the RVV ISA descriptor's cflags say the same).
set(CMAKE_C_FLAGS_INIT "-march=rv64gcv")
set(CMAKE_CXX_FLAGS_INIT "-march=rv64gcv")
include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
