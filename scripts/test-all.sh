#!/bin/sh
# make test: everything, in one command. Host build and tests; the same under ASan + UBSan; cross
# builds for NEON, SVE and RVV run under qemu at several vector lengths; `make dist` for every CPU of
# the registry, compiled alone and run (natively or under qemu). Ends with "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/deps.sh" test || exit 1
jobs=${TK_JOBS:-2}
out=${TK_TEST_BUILD:-$root/build/test}
mkdir -p "$out"
total_pass=0 total_fail=0
summary=""

note() { summary="$summary$1
"; echo "== $1"; }

# ctest_run LABEL BUILD_DIR [QEMU_CPU]: run the build's tests; count ctest's verdicts
ctest_run() {
  label=$1 dir=$2 qcpu=${3:-}
  log="$dir/ctest-$(echo "$label" | tr -c 'a-zA-Z0-9\n' '_').log"
  t_ctest=$(date +%s)
  if [ -n "$qcpu" ]; then QEMU_CPU=$qcpu ctest --test-dir "$dir" -V -j"$jobs" > "$log" 2>&1
  else ctest --test-dir "$dir" -V -j"$jobs" > "$log" 2>&1; fi
  line=$(grep -E "tests passed, [0-9]+ tests failed out of" "$log" | tail -1)
  p=$(echo "$line" | sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 \1/p')
  tot=${p% *} f=${p#* }
  [ -n "$tot" ] || { tot=1 f=1; }
  total_pass=$((total_pass + tot - f)) total_fail=$((total_fail + f))
  checks=$(grep -E "^[0-9]+: [a-z_]+: [0-9]+ passed" "$log" | sed 's/^[0-9]*: //' | tr '\n' ';')
  detail=$(grep -E "^[0-9]+: (isa|cpu) " "$log" | sed 's/^[0-9]*: //' | sort -u | tr '\n' ';')
  note "$label: ctest $((tot - f))/$tot passed (build ${t_build}s, ctest $(($(date +%s) - t_ctest))s); $checks $detail"
  [ "$f" = 0 ] || { grep -E "FAIL|Failed|\*\*\*" "$log" | head -20; }
}

# build DIR CONFIGURE-ARGS...: configure and build, counting a failure as a failed test
build() {
  dir=$1; shift
  t_build=$(date +%s)
  if cmake -S "$root" -B "$dir" -G Ninja -DTK_BUILD_BENCH=OFF "$@" > "$dir.configure.log" 2>&1 &&
     cmake --build "$dir" -j"$jobs" > "$dir.build.log" 2>&1; then
    t_build=$(($(date +%s) - t_build)) # seconds, for the summary
    return 0
  fi
  tail -30 "$dir.configure.log" "$dir.build.log" 2>/dev/null
  total_fail=$((total_fail + 1))
  note "$dir: build FAILED"
  return 1
}

# native, with the detected CPU and its whole fallback chain
build "$out/native" -DCMAKE_BUILD_TYPE=Release && ctest_run "native $(sed -n 's/^TK_CPU:STRING=//p' "$out/native/CMakeCache.txt")" "$out/native"
# sanitizers on the host tests
build "$out/asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTK_SANITIZE=ON && ctest_run "asan+ubsan" "$out/asan"

# cross: toolchain, CPU table, qemu CPU models (one test run each)
cross() {
  tc=$1 cpu=$2; shift 2
  build "$out/$cpu" -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$root/cmake/$tc.cmake" -DTK_CPU="$cpu" || return
  [ "$cpu" = a64fx ] && sve_built=yes
  for q in "$@"; do ctest_run "$cpu under qemu $q" "$out/$cpu" "$q"; done
}
cross aarch64-linux-gnu a76 cortex-a76
sve_built=no
cross aarch64-linux-gnu a64fx max,sve128=on max,sve256=on max,sve512=on
cross riscv64-clang19 x60 rv64,v=true,vext_spec=v1.0,vlen=128 rv64,v=true,vext_spec=v1.0,vlen=256 rv64,v=true,vext_spec=v1.0,vlen=512
cross riscv64-clang19 c908 rv64,v=true,vext_spec=v1.0,vlen=128
# negative: SVE code on a NEON-only core must trap (proves the SVE runs above really used SVE)
if [ "$sve_built" = yes ]; then
  if QEMU_CPU=cortex-a76 qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/a64fx/tests/test_ukr" > /dev/null 2>&1; then
    total_fail=$((total_fail + 1)); note "sve on cortex-a76: ran, but must trap: FAILED"
  else
    total_pass=$((total_pass + 1)); note "sve on cortex-a76: traps as it must"
  fi
fi

# make dist for every CPU of the registry: plain headers, one compiler line, run where possible.
# Each check compiles a whole table with one cc, so they run $jobs at a time; each writes its
# verdict to a file, counted in registry order afterwards. At -O0, a debug build's level: what it
# checks is that the plain headers build alone and compute right (the build trees above compile the
# same generated code at -O3, -O1 and -O0); spr's took 66 s at -O2, 43-46 s at -O1 and 32 s at -O0
# (gcc 12, Emerald Rapids, sessions 80 and 83).
# dist_check CPU FAMILY: prints "pass|fail<TAB>message"
dist_check() {
  cpu=$1 family=$2
  d="$out/dist"
  "$root/scripts/dist.sh" "$cpu" "$d" > /dev/null || { printf 'fail\t%s\n' "dist $cpu: FAILED"; return; }
  flags=$(sed -n 's/^Compile every unit that includes tk with: //p' "$d/$cpu/README")
  bin="$d/smoke-$cpu"
  rm -f "$bin" # a binary left by an earlier run must not pass for one that failed to compile
  case $family in
    x86|generic) cc -std=c99 -O0 $flags -I "$d/$cpu" "$root/tests/dist_smoke.c" -o "$bin"; run="";;
    arm) aarch64-linux-gnu-gcc -std=c99 -O0 $flags -I "$d/$cpu" "$root/tests/dist_smoke.c" -o "$bin"
         run="qemu-aarch64 -L /usr/aarch64-linux-gnu";;
    riscv) clang-19 --target=riscv64-linux-gnu -fuse-ld=lld -std=c99 -O0 $flags -I "$d/$cpu" "$root/tests/dist_smoke.c" -o "$bin"
           run="qemu-riscv64 -L /usr/riscv64-linux-gnu";;
  esac
  [ -x "$bin" ] || { printf 'fail\t%s\n' "dist $cpu: compile FAILED"; return; }
  q=$("$out/native/tkgen-host/tkgen" info --root "$root" --cpu "$cpu" qemu_cpu) # the table says which
  [ -n "$q" ] || q=max
  if [ "$family" = x86 ]; then
    feat=$("$out/native/tkgen-host/tkgen" info --root "$root" --cpu "$cpu" isa)
    case $feat in avx512f) need=avx512f;; avx2fma) need=avx2;; *) need="";; esac
    if [ -n "$need" ] && ! grep -qw "$need" /proc/cpuinfo; then
      printf 'pass\t%s\n' "dist $cpu: compiled; not run (host lacks $need)"; return
    fi
  fi
  if res=$(QEMU_CPU=$q $run "$bin" 2>&1); then
    printf 'pass\t%s\n' "dist $cpu: $res"
  else
    printf 'fail\t%s\n' "dist $cpu: FAILED: $res"
  fi
}
grep -E '^cpu[[:space:]]' "$root/tuning_tables/registry.tkr" | while read -r _ cpu family _; do echo "$cpu $family"; done > "$out/cpus.txt"
mkdir -p "$out/dist"
rm -f "$out"/dist/verdict-*
running=0
while read -r cpu family; do
  [ "$running" -lt "$jobs" ] || { wait; running=0; }
  dist_check "$cpu" "$family" > "$out/dist/verdict-$cpu" 2>&1 &
  running=$((running + 1))
done < "$out/cpus.txt"
wait
while read -r cpu family; do
  v=$(grep -E '^(pass|fail)	' "$out/dist/verdict-$cpu" | tail -1)
  case $v in
    pass*) total_pass=$((total_pass + 1)); note "${v#*	}";;
    fail*) total_fail=$((total_fail + 1)); note "${v#*	}"; grep -vE '^(pass|fail)	' "$out/dist/verdict-$cpu" | head -20;;
    *) total_fail=$((total_fail + 1)); note "dist $cpu: no verdict"; sed 's/^/  /' "$out/dist/verdict-$cpu";;
  esac
done < "$out/cpus.txt"

echo
echo "== summary"
printf "%s" "$summary"
echo "make test: $total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
