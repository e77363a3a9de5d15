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

set(CMAKE_C_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET ${TK_CROSS_TRIPLE})
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_CXX_COMPILER_TARGET ${TK_CROSS_TRIPLE})
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")

# C++ links only where the target's libstdc++ is installed (libstdc++-12-dev-arm64-cross, which
# g++-aarch64-linux-gnu pulls in); without it C++ sources compile but executables do not link.
file(GLOB TK_CROSS_LIBSTDCXX /usr/lib/gcc-cross/${TK_CROSS_TRIPLE}/*/libstdc++.so)
if(TK_CROSS_LIBSTDCXX)
  set(TK_CROSS_CXX_LINKS ON)
else()
  set(TK_CROSS_CXX_LINKS OFF)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
endif()

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/${TK_CROSS_TRIPLE})

set(CMAKE_FIND_ROOT_PATH /usr/${TK_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
