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
# Left to itself, OpenBLAS 0.3.21 knows no CPU newer than its release: on an Emerald Rapids
# (family 6 model 207) it fell back to its SSE3 Prescott kernels, 17-31 GFLOP/s where its AVX-512
# ones run 100 and more. On an AVX-512 host whose core OpenBLAS does not take for an AVX-512 one,
# name the AVX-512 core the CPU's flags allow (Cooperlake has BF16 besides SkylakeX's set); the
# report's header says which core ran.
coretype=
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    core=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$bin" --describe --shapes="$shapes" 2>/dev/null |
           sed -n 's/^openblas *:.*; core \([A-Za-z0-9_]*\);.*/\1/p')
    case $core in
    ''|SkylakeX|Cooperlake|SapphireRapids) ;;
    *) coretype=SkylakeX
       grep -qw avx512_bf16 /proc/cpuinfo && coretype=Cooperlake
       echo "bench/run.sh: OpenBLAS chose its $core core on this AVX-512 CPU; running it as OPENBLAS_CORETYPE=$coretype" ;;
    esac
fi
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OPENBLAS_NUM_THREADS ${coretype:+OPENBLAS_CORETYPE=$coretype} \
    "$bin" --shapes="$shapes" --out="$out" "$@" || status=$?

for arg in "$@"; do
    case $arg in --out=*) out=${arg#--out=} ;; esac
done
if [ -f "$out/tk_bench.csv" ] && [ "$out/tk_bench.csv" -nt "$stamp" ]; then
    echo "bench/run.sh: results in $out (tk_bench.csv, tk_bench.txt, tk_bench_*t.svg)"
fi
exit $status
