#!/bin/sh
# The dot form (packa dot), whether or not a committed table uses it yet: for every ISA that has it,
# tkgen instantiates a few dot tiles and test_ukr's edge matrix runs on them; then the x86-64-v4 CPU
# is built from tests/dot/x86-64-v4.tkt, a fixture whose every row is a dot row, and test_gemm runs
# its whole matrix through the dot form's driver. Exit 77 where no ISA with the dot form runs.
# usage: dot_form.sh TKGEN ROOT M4 CC WORKDIR
set -u
tkgen=$1 root=$2 m4=$3 cc=$4 work=$5
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work/ukr/tk/gen"
tiles=4x5x2,1x1x1,3x7x4,7x3x1
for d in "$root"/arch/*/*/isa.tkarch; do
  awk '$1 == "dot" && $2 == "yes" { f = 1 } END { exit !f }' "$d" || continue
  isa=$(awk '$1 == "isa" { print $2 }' "$d") feature=$(awk '$1 == "host_feature" { print $2 }' "$d")
  "$tkgen" ukr --root "$root" --isa "$isa" --dot "$tiles" --out "$work/ukr" > "$work/gen.$isa" 2>&1 ||
    { bad "tkgen ukr --isa $isa: $(cat "$work/gen.$isa")"; continue; }
  ukr_text "$work/ukr/tk/gen" "$isa" | grep -q "_4x5_${isa}_dot_u2(" && ok || bad "$isa: no kernel named _4x5_${isa}_dot_u2"
  isa_add "$isa" "$feature"
done
isa_all_h "$work/ukr" || { echo "dot_form: no ISA has the dot form"; exit 77; }
if $cc -std=c99 -O2 -Wall -Wextra -Werror -I "$work/ukr" -I "$root/include" "$root/tests/test_ukr.c" -o "$work/test_ukr" -lm \
  > "$work/cc_ukr.out" 2>&1; then
  ok
  "$work/test_ukr" > "$work/ukr.out" 2>&1 && ok || bad "test_ukr on the dot kernels: $(tail -5 "$work/ukr.out")"
  cat "$work/ukr.out"
  grep -q "microkernels checked" "$work/ukr.out" || { echo "dot_form: no ISA with the dot form runs here"; exit 77; }
else
  bad "test_ukr does not compile on the dot kernels: $(head -20 "$work/cc_ukr.out")"
fi
# the whole driver, from the fixture table
"$tkgen" build --root "$root" --cpus x86-64-v4 --default x86-64-v4 --out "$work/gemm" --m4 "$m4" \
  --table "x86-64-v4=$root/tests/dot/x86-64-v4.tkt" > "$work/build.out" 2>&1 && ok || bad "tkgen build: $(cat "$work/build.out")"
grep -q "_avx512f_dot_u" "$work/gemm/tk/gen/gemm_f32_x86_64_v4.h" && ok || bad "the fixture's rows do not name dot kernels"
# test_gemm reaches the CPU through its chain unit (tests/chain.h), made here as CMake makes it
sed -e 's/@SYM@/x86_64_v4/g' -e 's/@CPU@/x86-64-v4/g' "$root/tests/chain_cpu.c.in" > "$work/chain_x86_64_v4.c"
if $cc -std=c99 -O2 -Wall -Wextra -Werror -I "$work/gemm" -I "$root/include" -I "$root/tests" "$root/tests/test_gemm.c" \
  "$root/tests/chain.c" "$work/chain_x86_64_v4.c" -o "$work/test_gemm" -lm \
  > "$work/cc_gemm.out" 2>&1; then
  ok
  "$work/test_gemm" > "$work/gemm.out" 2>&1 && ok || bad "test_gemm through the dot form: $(tail -5 "$work/gemm.out")"
  tail -2 "$work/gemm.out"
else
  bad "test_gemm does not compile with the dot rows: $(head -20 "$work/cc_gemm.out")"
fi
finish dot_form
