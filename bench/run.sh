#!/bin/sh
# bench/run.sh BUILD_DIR [tk_bench options] - build and run tk_bench (what `make bench` calls).
#
#   bench/run.sh build                     full suite, 1 thread and all CPUs (a few minutes per
#                                          thread count on a 2-core machine)
#   bench/run.sh build --quick             first shape of each category: a smoke run
#   bench/run.sh build --filter=llm_decode --threads=1
#
# Shapes: ../shared/bench/shapes.tsv (the reference suite, beside the repository) when it exists,
# else bench/shapes.tsv. Results: bench/results/ (tk_bench.csv, tk_bench.txt, tk_bench_<t>t.svg).
# Later options win, so --shapes= and --out= given here replace those defaults. See
# bench/README.md and `tk_bench --help` for the rest.
#
# OpenBLAS: the environment may set OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (older OpenBLAS
# builds crash on some CPUs without them), which pin OpenBLAS to its AVX2 Haswell kernels. For
# this command only they are unset, so OpenBLAS picks its fastest (AVX-512) kernels: tk is compared
# with the best the peer can do. OPENBLAS_NUM_THREADS is unset too: tk_bench sets OpenBLAS's
# thread count per case itself. Nothing is changed for anything else (tests, CI).
set -eu

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    echo "usage: bench/run.sh BUILD_DIR [--quick] [tk_bench options]" >&2
    exit 2
fi
build=$1
shift

here=$(cd "$(dirname "$0")" && pwd)   # bench/
repo=$(dirname "$here")

if [ ! -f "$build/CMakeCache.txt" ]; then
    echo "bench/run.sh: $build is not a CMake build directory (configure it first)" >&2
    exit 2
fi

# Build (or bring up to date) just the benchmark, gently: the machine may be shared.
if ! cmake --build "$build" --target tk_bench -j 2; then
    echo "bench/run.sh: could not build tk_bench. It is only configured when Google Benchmark is" >&2
    echo "found (Debian: libbenchmark-dev); re-run cmake after installing it." >&2
    exit 2
fi

bin=
for candidate in "$build/bench/tk_bench" "$build/tk_bench" "$build/bin/tk_bench"; do
    if [ -x "$candidate" ]; then
        bin=$candidate
        break
    fi
done
if [ -z "$bin" ]; then
    bin=$(find "$build" -name tk_bench -type f -perm -u+x 2>/dev/null | head -n 1)
fi
if [ -z "$bin" ]; then
    echo "bench/run.sh: tk_bench was built but not found under $build" >&2
    exit 2
fi

shapes=$repo/../shared/bench/shapes.tsv
[ -f "$shapes" ] || shapes=$here/shapes.tsv
out=$here/results

# Say where the files went, also when the run fails (a WRONG tk still writes its report), but
# only if this run wrote them.
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
status=0
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OPENBLAS_NUM_THREADS \
    "$bin" --shapes="$shapes" --out="$out" "$@" || status=$?

for arg in "$@"; do
    case $arg in --out=*) out=${arg#--out=} ;; esac
done
if [ -f "$out/tk_bench.csv" ] && [ "$out/tk_bench.csv" -nt "$stamp" ]; then
    echo "bench/run.sh: results in $out (tk_bench.csv, tk_bench.txt, tk_bench_*t.svg)"
fi
exit $status
