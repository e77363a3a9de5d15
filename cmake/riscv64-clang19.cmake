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

set(CMAKE_C_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET ${TK_CROSS_TRIPLE})
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_CXX_COMPILER_TARGET ${TK_CROSS_TRIPLE})
# The whole build targets RV64GCV (the RVV ISA descriptor's cflags say the same).
set(CMAKE_C_FLAGS_INIT "-march=rv64gcv")
set(CMAKE_CXX_FLAGS_INIT "-march=rv64gcv")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")

# C++ links only where the target's libstdc++ is installed (libstdc++-12-dev-riscv64-cross, which
# g++-riscv64-linux-gnu pulls in); without it C++ sources compile but executables do not link.
file(GLOB TK_CROSS_LIBSTDCXX /usr/lib/gcc-cross/${TK_CROSS_TRIPLE}/*/libstdc++.so)
if(TK_CROSS_LIBSTDCXX)
  set(TK_CROSS_CXX_LINKS ON)
else()
  set(TK_CROSS_CXX_LINKS OFF)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
endif()

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-riscv64;-L;/usr/${TK_CROSS_TRIPLE})

set(CMAKE_FIND_ROOT_PATH /usr/${TK_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
