#!/bin/sh
# Level-0 profiling (tune/profile.c) on the portable scalar ISA: each tile at every unroll, measured in child
# processes, three passes over them; a crashing one is recorded as `result=crash`, a hanging one as
# `result=timeout` (each run once), the others `result=ok` with their median pass's GFLOP/s; a second run finds everything in the record log and measures
# nothing (resume), and a tile with one unroll missing is measured again at all of them. usage: tune_profile.sh TKTUNE TKGEN ROOT WORKDIR
set -u
tktune=$1 tkgen=$2 root=$3 work=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work"
log="$work/records.log"
TKTUNE_TEST_CRASH=1 TKTUNE_TEST_HANG=2 "$tktune" profile --root "$root" --cpu generic --log "$log" \
  --work "$work/probe" --tkgen "$tkgen" --budget 4 --timeout 2 > "$work/out1" 2>&1 || bad "first run failed: $(cat "$work/out1")"
n=$(grep -c '^tk-record 1 op=gemm dtype=f32 cpu=generic isa=scalar level=0 ' "$log" 2>/dev/null || echo 0)
[ "$n" = 16 ] && ok || bad "want 16 records (4 tiles at 4 unrolls), got $n"
[ "$(grep -c 'result=crash signal=11' "$log")" = 1 ] && ok || bad "the crashing candidate was not recorded as a crash"
[ "$(grep -c 'result=timeout' "$log")" = 1 ] && ok || bad "the hanging candidate was not recorded as a timeout"
[ "$(grep -c 'result=ok gflops=[0-9]' "$log")" = 14 ] && ok || bad "want 14 measured candidates"
# each figure the median of three passes over the candidates, with how far the passes read apart
[ "$(grep -c 'result=ok gflops=[0-9.]* spread=[0-9.]* passes=3 timed=' "$log")" = 14 ] && ok || bad "want 14 figures of three passes"
grep -q 'tile=[0-9]*x[0-9]*vec ku=4 form=packed kc=[0-9]* ' "$log" && ok || bad "record lacks the decisions in order"
# the unroll is a level-0 decision: each tile is measured at every unroll, 1, 2, 4 and 8
sed -n 's/.* tile=\([0-9]*x[0-9]*vec\) ku=\([0-9]*\) .*/\1 \2/p' "$log" | sort -k1,1 -k2n | awk '{ u[$1] = u[$1] " " $2 }
  END { for (t in u) if (u[t] != " 1 2 4 8") { print t ":" u[t]; bad = 1 } exit bad }' > "$work/kus" && ok ||
  bad "a tile lacks an unroll: $(cat "$work/kus")"
# A direct tile is timed as itself: the probe finds each kernel by its decisions and the record names
# the function it timed. Until session 34 it took the n-th kernel of a list that also holds each
# direct tile's one-row kernel, so the second direct tile was timed as the first one's one-row kernel.
# Needs a CPU that runs AVX2 (the scalar ISA has no direct form).
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo; then
  "$tktune" profile --root "$root" --cpu x86-64-v3 --log "$work/v3.log" --work "$work/probe3" --tkgen "$tkgen" --budget 4 \
    > "$work/out3" 2>&1 || bad "x86-64-v3 run failed: $(tail -3 "$work/out3")"
  [ "$(grep -c ' form=direct .* result=ok .* timed=' "$work/v3.log")" = 8 ] && ok || bad "want 2 direct tiles at 4 unrolls timed: $(cat "$work/v3.log")"
  awk '{ tile = form = timed = ""
         for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "tile") tile = kv[2]; if (kv[1] == "ku") ku = kv[2]; if (kv[1] == "form") form = kv[2]; if (kv[1] == "timed") timed = kv[2] }
         split(tile, t, "x"); want = "_" t[1] "x" (t[2] + 0) * 8 "_avx2fma_" (form == "direct" ? "direct" : "bcast") "_u" ku
         if (timed == "" || !match(timed, want "(_|$)")) { print; wrong = 1 } }
       END { exit wrong }' "$work/v3.log" > "$work/wrong" && ok || bad "a record timed another kernel than its tile: $(cat "$work/wrong")"
else
  echo "tune_profile: no AVX2 here, the direct-form check is left out"
fi
before=$(wc -l < "$log")
"$tktune" profile --root "$root" --cpu generic --log "$log" --work "$work/probe" --tkgen "$tkgen" --budget 4 \
  > "$work/out2" 2>&1 || bad "second run failed"
[ "$(wc -l < "$log")" = "$before" ] && grep -q "0 level-0 candidates measured" "$work/out2" && ok || bad "resume measured again"
# A tile with an unroll missing from the log is measured again at every unroll (the unroll is
# chosen by comparing them, so they come from one run), the other tiles not at all
tile=$(sed -n 's/.* tile=\([0-9]*x[0-9]*vec\) ku=2 form=packed .* result=ok .*/\1/p' "$log" | head -n 1)
grep -v " tile=$tile ku=2 " "$log" > "$work/cut.log" && before=$(wc -l < "$work/cut.log")
"$tktune" profile --root "$root" --cpu generic --log "$work/cut.log" --work "$work/probe" --tkgen "$tkgen" --budget 4 \
  > "$work/out4" 2>&1 || bad "run on the cut log failed"
tail -n +$((before + 1)) "$work/cut.log" | sed -n 's/.* tile=\([0-9]*x[0-9]*vec\) ku=\([0-9]*\) .*/\1 \2/p' | sort -k2n | tr '\n' ' ' > "$work/again"
[ -n "$tile" ] && [ "$(cat "$work/again")" = "$tile 1 $tile 2 $tile 4 $tile 8 " ] && ok ||
  bad "with $tile ku=2 cut from the log, measured: $(cat "$work/again")"
finish tune_profile
