#!/bin/sh
# Every malformed input gives `file:line: message`. Each file in tests/gen_errors/ starts with
#   # expect LINE: MESSAGE-SUBSTRING
# and `tkgen check` must fail with exactly that location and message. Then two whole-build cases:
# an unexpanded m4 name in a template, and a registry whose ISA does not exist.
# usage: gen_errors.sh TKGEN ROOT M4 WORKDIR
set -u
tkgen=$1 root=$2 m4=$3 work=$4
. "$(dirname "$0")/lib.sh"
for f in "$root"/tests/gen_errors/*.tkt "$root"/tests/gen_errors/*.tkr "$root"/tests/gen_errors/*.tkarch; do
  [ -e "$f" ] || continue
  exp=$(sed -n '1s/^# expect \([0-9]*\): \(.*\)$/\1|\2/p' "$f")
  line=${exp%%|*} msg=${exp#*|}
  out=$("$tkgen" check --root "$root" "$f" 2>&1); rc=$?
  if [ $rc -ne 1 ]; then bad "$f: exit $rc, want 1 ($out)"; continue; fi
  case "$out" in
    *"$f:$line: "*"$msg"*) ok ;;
    *) bad "$f: want '$f:$line: ...$msg...', got: $out" ;;
  esac
done
# a template that leaves an m4 name unexpanded fails the build, naming the output line
rm -rf "$work" && mkdir -p "$work/root" && cp -r "$root/gen" "$root/templates" "$root/arch" "$work/root/"
mkdir -p "$work/root/tuning_tables/generic"
cp "$root/tuning_tables/generic/generic.tkt" "$work/root/tuning_tables/generic/"
printf 'columns cpu family isa fallback match\ncpu generic generic scalar - any\n' > "$work/root/tuning_tables/registry.tkr"
sed -i 's/^static inline void tkm_ukr_name/TKM_BOGUS static inline void tkm_ukr_name/' "$work/root/arch/generic/scalar/gemm-f32-bcast.h.m4"
out=$("$tkgen" build --root "$work/root" --cpus generic --default generic --out "$work/out" --m4 "$m4" 2>&1); rc=$?
case "$rc:$out" in 1:*"ukr_f32_scalar.h:"*"unexpanded m4 name 'TKM_BOGUS'"*) ok ;; *) bad "leak: exit $rc: $out" ;; esac
# a catch-all row of direct tiles builds: tkgen cuts it to 1..MR-1 rows, and the cut for one row keeps
# m = 0 (zen5's retune of session 44 wrote such a table, and tkgen stopped: no row covers part of the shapes)
mkdir -p "$work/root/tuning_tables/x86"
sed '$s/^row .*/row  *  *  *  14x32  4  98  2048  512  no  n  n  modelled  no/' \
  "$root/tuning_tables/x86/x86-64-v4.tkt" > "$work/root/tuning_tables/x86/x86-64-v4.tkt"
cp "$root/arch/generic/scalar/gemm-f32-bcast.h.m4" "$work/root/arch/generic/scalar/"
printf 'columns cpu family isa fallback match\ncpu x86-64-v4 x86 avx512f generic arch=x86_64,feat=avx512f\ncpu generic generic scalar - any\n' > "$work/root/tuning_tables/registry.tkr"
out=$("$tkgen" build --root "$work/root" --cpus x86-64-v4,generic --default x86-64-v4 --out "$work/out" --m4 "$m4" 2>&1); rc=$?
if [ $rc -eq 0 ] && tail -n 1 "$work/root/tuning_tables/x86/x86-64-v4.tkt" | grep -q ' no$'; then ok; else bad "direct catch-all: exit $rc: $out"; fi
# `tkgen check` takes a table as the build instantiates it: that direct catch-all checks, and rows
# that parse but overflow once cut (80 direct range rows of 14-row tiles: 14 rows each, so the 74th
# passes MAXROWS, 1024) fail the check with the row's line, as they fail the build (the tuner checks
# what it writes this way)
"$tkgen" check --root "$work/root" "$work/root/tuning_tables/x86/x86-64-v4.tkt" > "$work/o" 2>&1 && ok ||
  bad "check of the direct catch-all: $(cat "$work/o")"
f="$work/cut_rows.tkt"
sed -n '1,/^columns/p' "$root/tuning_tables/x86/x86-64-v4.tkt" > "$f"
for n in $(seq 100 179); do echo "row 1..20 $n * 14x32 4 14 32 512 no n n modelled no"; done >> "$f"
tail -n 1 "$root/tuning_tables/x86/x86-64-v4.tkt" >> "$f"
line=$(grep -n '^row 1..20 173 ' "$f" | cut -d: -f1)
out=$("$tkgen" check --root "$root" "$f" 2>&1); rc=$?
case "$rc:$out" in 1:*"$f:$line: more than 1024 rows once the direct rows are cut"*) ok ;; *) bad "cut rows past 1024: exit $rc: $out" ;; esac
# `tkgen ukr` takes the tile lists a retune's probe names: more than 255 distinct tiles (spr's 421
# grid cells came to 261 packed and 258 direct ones) all become kernels; past its limit it says so
tiles=$(for p in "" p8; do for u in 1 2 4 8 16; do for m in $(seq 1 30); do printf '%sx1x%s%s,' "$m" "$u" "$p"; done; done; done)
"$tkgen" ukr --root "$root" --isa avx512f --tiles "${tiles%,}" --out "$work/many" > "$work/o" 2>&1 || bad "300 tiles: $(cat "$work/o")"
n=$(grep '^#define TKI_UKR_LIST_F32_avx512f' "$work/many/tk/gen/ukr_f32_avx512f.h" | grep -o 'X(tki_' | wc -l)
[ "$n" = 300 ] && ok || bad "300 tiles: the header lists $n kernels"
tiles=$(for p in "" p8 p16; do for u in $(seq 1 16); do for m in $(seq 1 30); do printf '%sx1x%s%s,' "$m" "$u" "$p"; done; done; done)
out=$("$tkgen" ukr --root "$root" --isa avx512f --tiles "${tiles%,}" --out "$work/many" 2>&1); rc=$?
case "$rc:$out" in 1:*"more than 1024 tiles"*) ok ;; *) bad "1440 tiles: exit $rc: $out" ;; esac
# a registry row naming an ISA with no arch/ directory
printf 'columns cpu family isa fallback match\ncpu foo generic nosuchisa generic -\ncpu generic generic scalar - any\n' > "$work/root/tuning_tables/registry.tkr"
out=$("$tkgen" build --root "$work/root" --cpus generic --default generic --out "$work/out" 2>&1); rc=$?
case "$rc:$out" in 1:*"registry.tkr:2: unknown ISA 'nosuchisa'"*) ok ;; *) bad "unknown isa: exit $rc: $out" ;; esac
finish gen_errors
