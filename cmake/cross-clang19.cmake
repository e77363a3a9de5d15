# clang-19 and lld-19 for TK_CROSS_TRIPLE; clang finds the gcc cross sysroot by itself.
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET ${TK_CROSS_TRIPLE})
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_CXX_COMPILER_TARGET ${TK_CROSS_TRIPLE})
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")

# C++ links only where the target's libstdc++ is installed (libstdc++-12-dev-<arch>-cross, which
# g++-<triple> pulls in); without it C++ sources compile but executables do not link.
file(GLOB TK_CROSS_LIBSTDCXX /usr/lib/gcc-cross/${TK_CROSS_TRIPLE}/*/libstdc++.so)
if(TK_CROSS_LIBSTDCXX)
  set(TK_CROSS_CXX_LINKS ON)
else()
  set(TK_CROSS_CXX_LINKS OFF)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
endif()
