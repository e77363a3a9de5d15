#!/bin/sh
# From a record log to a table (tune/buckets.c): the table tktune writes passes tkgen's checks, uses
# only measured microkernels, ends with the catch-all row; a held lock stops a second writer and
# leaves the table intact; a table tkgen check refuses is not written; a log without measurements is refused; calibrate --against scores another
# log's groups; keep appends an evaluate run's records marked as an oracle sweep, or nothing; records of other code (another
# kernels= fingerprint, or none: written before fingerprints) are ignored, as are measured level-0
# results that do not name the kernel they timed (before session 34: 2x6) and the bandwidths of
# another host or of an older sweep. usage: tune_table.sh TKTUNE TKGEN ROOT WORKDIR
set -u
tktune=$1 tkgen=$2 root=$3 work=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work"
log="$work/records.log" out="$work/generic.tkt"
fp=$("$tktune" candidates --root "$root" --cpu generic | sed -n "s/^records of this code carry \(kernels=[0-9a-f]*\).*/\1/p")
[ -n "$fp" ] && ok || bad "tktune candidates names no code fingerprint"
# the fingerprint is the code's, not its prose: in a copy of the sources, comments (C and m4) and
# indentation edited keep it; a changed token or definition moves it (spr: the AVX-512 template)
mkdir -p "$work/src/tuning_tables/x86" && cp -r "$root/arch" "$root/gen" "$root/templates" "$root/include" "$work/src/" &&
  cp "$root/tuning_tables/registry.tkr" "$work/src/tuning_tables/" && cp "$root/tuning_tables/x86/spr.tkt" "$work/src/tuning_tables/x86/"
fpof() { "$tktune" candidates --root "$work/src" --cpu spr | sed -n "s/^records of this code carry kernels=\([0-9a-f]*\).*/\1/p"; }
t="$work/src/arch/x86/avx512f/gemm-f32-bcast.h.m4" i="$work/src/include/tk/internal.h"
fp0=$(fpof)
sed -i 's/^m4_dnl # Split sums/m4_dnl #   Split sums, reworded,/; s|/\* direct form: A rows in place|/* direct form (reworded): A rows in place|' "$t"
sed -i 's|^/\* tk/internal.h - |/* tk/internal.h, reworded - |; s/^    if (k >= 32)$/        if (k >= 32)/' "$i" "$t"
fp1=$(fpof)
sed -i 's/m4_define(<@tkm_ksplit@>, <@8, 32, 1@>)/m4_define(<@tkm_ksplit@>, <@8, 32, 2@>)/' "$t"
fp2=$(fpof)
sed -i 's/^#define TKI_B_COPY_MIN_M 512$/#define TKI_B_COPY_MIN_M 513/' "$i"
fp3=$(fpof)
[ -n "$fp0" ] && [ "$fp1" = "$fp0" ] && [ "$fp2" != "$fp0" ] && [ -n "$fp2" ] && [ "$fp3" != "$fp2" ] && [ -n "$fp3" ] &&
  ! cmp -s "$t" "$root/arch/x86/avx512f/gemm-f32-bcast.h.m4" && ok ||
  bad "fingerprints: original $fp0, prose edited $fp1 (want the same), a definition $fp2 and internal.h's code $fp3 (want others)"
rec=$("$tktune" machine --root "$root" --cpu generic)
host=$(echo "$rec" | sed -n 's/^tk-record 1 op=machine cpu=generic host=\([^ ]*\) .*/\1/p')
[ -n "$host" ] && ok || bad "tktune machine's record names no host"
sweep=$(echo "$rec" | sed -n 's/^tk-record 1 op=machine .* sweep=\([0-9]*\) .*/\1/p')
[ -n "$sweep" ] && ok || bad "tktune machine's record names no sweep width"
cat > "$log" <<LOG
tk-record 1 op=machine cpu=generic host=$host sweep=$sweep bw_l2=5e+10 bw_l3=2e+10 bw_dram=8e+09 lat_l2=4 lat_l3=30 lat_dram=120 half=0.5 dram_set=8388608 evidence=measured date=1
tk-record 1 op=machine cpu=generic host=$host sweep=$sweep bw_l2=5e+10 bw_l3=2e+10 bw_dram=6e+05 lat_l2=4 lat_l3=30 lat_dram=120 dram_set=8388608 evidence=measured date=2
tk-record 1 op=machine cpu=generic host=$host bw_l2=5e+10 bw_l3=2e+10 bw_dram=3e+05 dram_set=8388608 evidence=measured date=2
tk-record 1 op=machine cpu=generic host=$host sweep=$sweep bw_l2=5e+10 bw_l3=2e+10 bw_dram=4e+05 dram_set=8388608 evidence=measured date=2
tk-record 1 op=machine cpu=generic host=another_processor sweep=$sweep bw_l2=5e+10 bw_l3=2e+10 bw_dram=1e+05 lat_l2=4 lat_l3=30 lat_dram=120 half=0.5 dram_set=8388608 evidence=measured date=2
tk-record 1 op=machine cpu=generic bw_l2=5e+10 bw_l3=2e+10 bw_dram=2e+05 dram_set=8388608 evidence=measured date=3
tk-record 1 op=gemm dtype=f32 cpu=generic isa=scalar level=0 tile=4x4vec ku=4 form=packed kc=256 result=ok gflops=6.00 spread=0.01 timed=tki_ukr_test $fp evidence=measured load=0.1 date=1
tk-record 1 op=gemm dtype=f32 cpu=generic isa=scalar level=0 tile=8x2vec ku=4 form=packed kc=256 result=ok gflops=5.00 spread=0.01 timed=tki_ukr_test $fp evidence=measured load=0.1 date=1
tk-record 1 op=gemm dtype=f32 cpu=generic isa=scalar level=0 tile=6x3vec ku=4 form=packed kc=256 result=crash signal=11 $fp evidence=measured load=0.1 date=1
tk-record 1 op=gemm dtype=f32 cpu=other isa=scalar level=0 tile=2x2vec ku=4 form=packed kc=256 result=ok gflops=99.00 spread=0.01 timed=tki_ukr_test $fp evidence=measured load=0.1 date=1
tk-record 1 op=gemm dtype=f32 cpu=generic isa=scalar level=0 tile=2x4vec ku=4 form=packed kc=256 result=ok gflops=99.00 spread=0.01 timed=tki_ukr_test kernels=00000000 evidence=measured load=0.1 date=1
tk-record 1 op=gemm dtype=f32 cpu=generic isa=scalar level=0 tile=2x8vec ku=4 form=packed kc=256 result=ok gflops=99.00 spread=0.01 timed=tki_ukr_test evidence=measured load=0.1 date=1
tk-record 1 op=gemm dtype=f32 cpu=generic isa=scalar level=0 tile=2x6vec ku=4 form=packed kc=256 result=ok gflops=99.00 spread=0.01 $fp evidence=measured load=0.1 date=1
LOG
tw="--tkgen $tkgen --work $work/tw"
"$tktune" table --root "$root" --cpu generic --log "$log" --out "$out" $tw > "$work/o1" 2>&1 && ok || bad "table: $(cat "$work/o1")"
# the table tkgen checked inside the run is the one written
cmp -s "$work/tw/checked.tkt" "$out" && ok || bad "the written table is not the one tkgen checked"
"$tkgen" check --root "$root" "$out" > "$work/o2" 2>&1 && ok || bad "tkgen check: $(cat "$work/o2")"
# the bandwidths are this host's, swept with this build's loads: the later records of another host,
# of none, or of a sweep with no width (narrower loads, before session 15), no latencies or no half-width
# FMA cost (before session 23) are not used
"$tktune" calibrate --root "$root" --cpu generic --log "$log" > "$work/o5" 2>&1 && grep -q 'latency L2 4.0 L3 30.0 DRAM 120 ns, bandwidth L2 5e+10 L3 2e+10 DRAM 8e+09 B/s (measured), a half-width FMA 0.50 of a full one' "$work/o5" &&
  ok || bad "calibrate did not use this host's bandwidths: $(cat "$work/o5")"
# --against scores the fitted model on another log's groups: one configuration measured three times
# (10, 20, 40 GFLOP/s) and at a depth past k (the same code: 30) reads as one rate, their mean 25,
# which the model ranks above kc 16 (measured 100): a quarter of the group's best (the best of
# the same code's readings, 40, would score 0.4); a log with nothing it can score is an error
: > "$work/empty.log"
for kg in 64:10 64:20 64:40 128:30 16:100; do
  echo "tk-record 1 op=gemm dtype=f32 cpu=generic isa=scalar level=full m=64 n=64 k=64 tile=4x4vec ku=4 form=packed kc=${kg%:*} mc=64 nc=4 packb=1 split=m order=n rep=0 result=ok gflops=${kg#*:} spread=0.01 $fp evidence=measured load=0.1 date=1"
done > "$work/held.log"
"$tktune" calibrate --root "$root" --cpu generic --log "$log" --against "$work/held.log" > "$work/o6" 2>&1 &&
  grep -q "against $work/held.log: first choice 0.250 of the group's best (defaults 0.250) over 5 measurements in 1 groups" "$work/o6" &&
  ok || bad "calibrate --against: $(cat "$work/o6")"
if "$tktune" calibrate --root "$root" --cpu generic --log "$log" --against "$work/empty.log" > "$work/o7" 2>&1; then bad "--against a log with nothing to score was accepted"
else grep -q "has no whole-shape measurement" "$work/o7" && ok || bad "--against an empty log: $(cat "$work/o7")"; fi
# tktune keep: an evaluate run's records appended to a log, each marked before its repetition
# (outside the keys a retune resumes by); a file with a line that is not such a record, or kept
# already, is refused with its file:line and the log stays as it was
cp "$log" "$work/kept.log"
"$tktune" keep --root "$root" --cpu generic --log "$work/kept.log" --records "$work/held.log" > "$work/o10" 2>&1 &&
  [ "$(grep -c ' order=n sweep=oracle rep=0 result=ok ' "$work/kept.log")" = 5 ] &&
  [ "$(wc -l < "$work/kept.log")" = "$(($(wc -l < "$log") + 5))" ] && grep -q "^tktune: 5 records" "$work/o10" &&
  ok || bad "keep: $(cat "$work/o10")"
sum=$(cksum < "$work/kept.log")
tail -n 2 "$work/kept.log" > "$work/again.log"
if "$tktune" keep --root "$root" --cpu generic --log "$work/kept.log" --records "$work/again.log" > "$work/o11" 2>&1; then bad "keep took a sweep kept already"
else grep -q "again.log:1: " "$work/o11" && [ "$(cksum < "$work/kept.log")" = "$sum" ] && ok || bad "keep of kept records: $(cat "$work/o11")"; fi
{ cat "$work/held.log"; echo "not a record"; } > "$work/bad.log"
if "$tktune" keep --root "$root" --cpu generic --log "$work/kept.log" --records "$work/bad.log" > "$work/o12" 2>&1; then bad "keep took a line that is not a record"
else grep -q "bad.log:6: " "$work/o12" && [ "$(cksum < "$work/kept.log")" = "$sum" ] && ok || bad "keep of a bad file: $(cat "$work/o12")"; fi
tiles=$(awk '$1 == "row" { print $5 }' "$out" | sort -u | tr '\n' ' ')
case "$tiles" in "4x4 "|"4x4 8x2 "|"8x2 ") ok ;; *) bad "rows use unmeasured or failed tiles: $tiles" ;; esac
tail -n 1 "$out" | awk '$1 == "row" && $2 == "*" && $3 == "*" && $4 == "*" { exit 0 } { exit 1 }' && ok || bad "last row is not the catch-all"
grep -q '^source       measured$' "$out" && ok || bad "source is not 'measured'"
sum=$(cksum < "$out")
: > "$out.lock"
if "$tktune" table --root "$root" --cpu generic --log "$log" --out "$out" $tw > "$work/o3" 2>&1; then bad "wrote through a held lock"
else grep -q "lock" "$work/o3" && [ "$(cksum < "$out")" = "$sum" ] && ok || bad "lock: $(cat "$work/o3")"; fi
rm -f "$out.lock"
# a table tkgen refuses is not written: the old one stays, byte for byte
printf '#!/bin/sh\n[ "$1" = check ] && { echo "refused for the test" >&2; exit 1; }\nexec "%s" "$@"\n' "$tkgen" > "$work/tkgen-refuses"
chmod +x "$work/tkgen-refuses"
if "$tktune" table --root "$root" --cpu generic --log "$log" --out "$out" --tkgen "$work/tkgen-refuses" --work "$work/tw" > "$work/o8" 2>&1; then bad "wrote a table tkgen refused"
else grep -q "refused for the test" "$work/o8" && grep -q "tkgen check refuses the table the model chose" "$work/o8" &&
  [ "$(cksum < "$out")" = "$sum" ] && ok || bad "a refused table: $(tail -2 "$work/o8")"; fi
# without tkgen (no check possible) nothing is written either
if "$tktune" table --root "$root" --cpu generic --log "$log" --out "$work/y.tkt" > "$work/o9" 2>&1; then bad "table without --tkgen was accepted"
else [ ! -e "$work/y.tkt" ] && ok || bad "a table was written without tkgen's check"; fi
if "$tktune" table --root "$root" --cpu generic --log "$work/empty.log" --out "$work/x.tkt" $tw > "$work/o4" 2>&1; then bad "a log without records was accepted"
else [ ! -e "$work/x.tkt" ] && ok || bad "a table was written from nothing"; fi
finish tune_table
