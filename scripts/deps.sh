#!/bin/sh
# Installs what tk's build, tests and benchmarks need on Debian 12 (apt, as root), or prints the
# exact command when not root. usage: scripts/deps.sh [build|test|bench]
set -u
what=${1:-test}
pkgs="m4 cmake ninja-build make gcc g++"
cmds="m4 cmake ninja make cc c++"
if [ "$what" = test ] || [ "$what" = bench ]; then
  pkgs="$pkgs clang-19 lld-19 llvm-19 gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user libgomp1"
  cmds="$cmds clang-19 ld.lld-19 llvm-mca-19 aarch64-linux-gnu-gcc riscv64-linux-gnu-gcc qemu-aarch64 qemu-riscv64"
fi
if [ "$what" = bench ]; then
  pkgs="$pkgs libbenchmark-dev libopenblas-dev libopenblas0-serial libeigen3-dev libxsmm-dev"
fi
missing=""
for c in $cmds; do command -v "$c" >/dev/null 2>&1 || missing="$missing $c"; done
if [ "$what" = bench ]; then
  for f in /usr/include/benchmark/benchmark.h /usr/include/x86_64-linux-gnu/cblas.h /usr/include/eigen3/Eigen/Core /usr/include/libxsmm.h; do
    [ -e "$f" ] || missing="$missing $f"
  done
fi
[ -z "$missing" ] && exit 0
line="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs"
if [ "$(id -u)" = 0 ]; then
  echo "deps: installing (missing:$missing)"
  sh -c "$line" > /tmp/tk-deps.log 2>&1 || { cat /tmp/tk-deps.log; echo "deps: install failed"; exit 1; }
else
  echo "deps: missing:$missing"
  echo "deps: run as root:  $line"
  exit 1
fi
