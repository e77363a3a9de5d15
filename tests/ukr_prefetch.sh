#!/bin/sh
# The prefetching kernels (a table's pf column) of every ISA that has them, whether or not a
# committed table uses them yet: tkgen instantiates a few tiles with a prefetch distance for each
# such ISA (packed and direct form, a one-row tile among them; rows ahead and, pf nL, along the row),
# and test_ukr's whole edge matrix runs on them. The generated kernels must carry the prefetches
# and the _pPF names (_pnL along the row).
# usage: ukr_prefetch.sh TKGEN ROOT CC WORKDIR
set -u
tkgen=$1 root=$2 cc=$3 work=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work/tk/gen"
tiles=4x2x4p8,1x3x4p4,5x1x1p16,2x4x2p64,3x2x4pn32,1x1x2pn1
for d in "$root"/arch/*/*/isa.tkarch; do
  awk '$1 == "prefetch" && $2 == "yes" { f = 1 } END { exit !f }' "$d" || continue
  isa=$(awk '$1 == "isa" { print $2 }' "$d") feature=$(awk '$1 == "host_feature" { print $2 }' "$d")
  "$tkgen" ukr --root "$root" --isa "$isa" --tiles "$tiles" --direct "$tiles" --out "$work" > "$work/gen.$isa" 2>&1 ||
    { bad "tkgen ukr --isa $isa: $(cat "$work/gen.$isa")"; continue; }
  h="$work/tk/gen/ukr_f32_$isa.h"
  a="$work/all.$isa"
  ukr_text "$work/tk/gen" "$isa" > "$a"
  grep -q "_direct_u4_p8(" "$a" && grep -q "_bcast_u2_p64(" "$a" && ok || bad "$isa: no kernels named _pPF in $h"
  grep -q "__builtin_prefetch((const char \*)(b + 16 \* ldb" "$a" && ok || bad "$isa: no 16-row prefetch in $h"
  # along the row: 32 lines (512 floats) ahead, into L2 (locality 2), in the kernel named _pn32
  grep -q "_direct_u4_pn32(" "$a" && grep -q "__builtin_prefetch((const char \*)(b + 512 + 0), 0, 2)" "$a" && ok ||
    bad "$isa: no kernel _pn32 prefetching 512 floats along the row into L2 in $h"
  isa_add "$isa" "$feature"
done
isa_all_h "$work" || { echo "ukr_prefetch: no ISA has prefetching kernels"; exit 77; }
$cc -std=c99 -O2 -Wall -Wextra -Werror -I "$work" -I "$root/include" "$root/tests/test_ukr.c" -o "$work/test_ukr" -lm \
  > "$work/cc.out" 2>&1 && ok || bad "test_ukr does not compile on the prefetching kernels: $(head -20 "$work/cc.out")"
if [ -x "$work/test_ukr" ]; then
  "$work/test_ukr" > "$work/run.out" 2>&1 && ok || bad "test_ukr on the prefetching kernels: $(tail -5 "$work/run.out")"
  cat "$work/run.out"
  grep -q "microkernels checked" "$work/run.out" && ok || bad "no ISA of them runs here: nothing was checked"
fi
finish ukr_prefetch
