#!/bin/sh
# The whole tuning run behind `make retune` (tune/retune.c) on the portable `generic` CPU, kept
# small (grid dimensions up to 48): the table it writes passes tkgen's checks and ends with the
# catch-all; the report has every phase; an exact-shape row comes from the shape list; a rerun
# measures nothing (resume); a run killed mid-way leaves the table as it was and no lock or
# temporary file, and the rerun after it measures nothing twice; a crashing configuration is recorded
# and never chosen; a malformed shape list is refused with file:line.
# usage: tune_retune.sh TKTUNE TKGEN ROOT WORKDIR
set -u
tktune=$1 tkgen=$2 root=$3 work=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work"
log="$work/records.log" out="$work/generic.tkt"
printf '# shapes\nsmall 7 9 5\n' > "$work/shapes"
run() { # run LOG OUT [env...]: one small retune
  l=$1 o=$2; shift 2
  env "$@" "$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$l" --out "$o" \
    --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes"
}
run "$log" "$out" > "$work/o1" 2>&1 && ok || bad "retune failed: $(tail -5 "$work/o1")"
"$tkgen" check --root "$root" "$out" > "$work/o2" 2>&1 && ok || bad "tkgen check: $(cat "$work/o2")"
tail -n 1 "$out" | awk '$1 == "row" && $2 == "*" && $3 == "*" && $4 == "*" { exit 0 } { exit 1 }' && ok || bad "last row is not the catch-all"
awk '$1 == "row" && $2 == 7 && $3 == 9 && $4 == 5 { f = 1 } END { exit !f }' "$out" && ok || bad "no exact-shape row for 7x9x5"
grep -q '^source       measured$' "$out" && ok || bad "source is not 'measured'"
grep -q '^phases (s): machine .*level 0 .*measure .*total' "$work/w/report.txt" && [ -s "$work/w/report.svg" ] && ok ||
  bad "report: $(cat "$work/w/report.txt" 2>/dev/null | tail -3)"
n1=$(grep -c ' level=full ' "$log")
[ "$n1" -gt 20 ] && ok || bad "only $n1 whole-shape records"

# resume: everything is in the log
run "$log" "$work/again.tkt" > "$work/o3" 2>&1 && [ "$(grep -c ' level=full ' "$log")" = "$n1" ] &&
  grep -q "; 0 whole-shape measurements" "$work/again.tkt" && ok || bad "the rerun measured again: $(tail -3 "$work/o3")"

# killed mid-way: the table stays as it was, and the rerun completes without measuring anything twice
sum=$(cksum < "$out")
# (exec: $! is tktune itself; SIGTERM, as a background job ignores SIGINT)
(exec "$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$work/k.log" --out "$out" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes") > "$work/o4" 2>&1 &
pid=$!
i=0
count() { c=$(grep -c ' level=full ' "$1" 2>/dev/null); echo "${c:-0}"; }
while [ "$(count "$work/k.log")" -lt 3 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
[ "$(cksum < "$out")" = "$sum" ] && [ ! -e "$out.lock" ] && [ ! -e "$out.tmp" ] && ok || bad "the kill changed the table or left a lock"
[ "$(grep -c ' level=full ' "$work/k.log")" -lt "$n1" ] && ok || bad "the run was not interrupted (it finished first)"
run "$work/k.log" "$work/k.tkt" > "$work/o5" 2>&1 && ok || bad "the rerun after the kill failed: $(tail -3 "$work/o5")"
dups=$(sed -n 's/.* level=full \(.*\) result=.*/\1/p' "$work/k.log" | sort | uniq -d | wc -l)
[ "$dups" = 0 ] && ok || bad "$dups configurations were measured twice"

# a configuration that crashes is recorded as such and not chosen
run "$work/c.log" "$work/c.tkt" TKTUNE_TEST_CRASH_MR=4 > "$work/o6" 2>&1 && ok || bad "a crash stopped tuning: $(tail -3 "$work/o6")"
grep -q ' level=full .*tile=4x.* result=crash signal=11' "$work/c.log" && ok || bad "the crash was not recorded"
awk '$1 == "row" && $5 ~ /^4x/ { f = 1 } END { exit f }' "$work/c.tkt" && ok || bad "a crashing tile was chosen"

# a malformed shape list
printf 'small 7 9 5\nsmall 7 x 5\n' > "$work/shapes"
if run "$log" "$work/bad.tkt" > "$work/o7" 2>&1; then bad "a malformed shape list was accepted"
else grep -q "shapes:2: 'x' is not a dimension" "$work/o7" && [ ! -e "$work/bad.tkt" ] && ok || bad "message: $(cat "$work/o7")"; fi
finish tune_retune
