#!/bin/sh
# The whole tuning run behind `make retune` (tune/retune.c) on the portable `generic` CPU, kept
# small (grid dimensions up to 48): the table it writes passes tkgen's checks and ends with the
# catch-all; the report has every phase; an exact-shape row comes from the shape list, measured as
# its exact-shape instance; a completed run is recorded and the next one measures afresh; a run
# killed mid-way leaves the table as it was and no lock or temporary file, and the rerun after it
# measures nothing twice; a run whose budget ran out is followed by one that starts where it
# stopped, an exact row it never reached kept; the record-log prior leaves out what recent runs read far behind; a crashing
# configuration is recorded and never chosen, a hanging one stopped and the measuring goes on; evaluate's ratios to its oracle are at most 1, and its
# paired rounds are as many as --rounds says (odd; refused elsewhere); the
# probe's cold mode (operands rotated through an arena) times and checks, and a cold run on busy
# memory is run again and marked; no row has a tile taller than its m range; a malformed shape list
# is refused with file:line; a row pinned by hand and its note survive a retune, and a grid cell under
# a pin keeps its own row when a run leaves it unmeasured, as does the unpinned side of a cell split
# by hand; --shapes-only measures and rewrites only the
# listed shapes' rows. Other CPUs and the
# dry run's plan: tune_retune_cpus.sh.
# usage: tune_retune.sh TKTUNE TKGEN ROOT WORKDIR
set -u
tktune=$1 tkgen=$2 root=$3 work=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work"
log="$work/records.log" out="$work/generic.tkt"
printf '# shapes\nsmall 7 9 5\n' > "$work/shapes"
budget_s=540
run() { # run LOG OUT [env...]: one small retune, $budget_s seconds at most
  l=$1 o=$2; shift 2
  env "$@" "$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$l" --out "$o" \
    --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --budget-s "$budget_s" --sample-ms 0.5 $rows
}
rows= # (--rows for run, unquoted: empty or two words)
run "$log" "$out" > "$work/o1" 2>&1 && ok || bad "retune failed: $(tail -5 "$work/o1")"
"$tkgen" check --root "$root" "$out" > "$work/o2" 2>&1 && ok || bad "tkgen check: $(cat "$work/o2")"
tail -n 1 "$out" | awk '$1 == "row" && $2 == "*" && $3 == "*" && $4 == "*" { exit 0 } { exit 1 }' && ok || bad "last row is not the catch-all"
awk '$1 == "row" && $2 == 7 && $3 == 9 && $4 == 5 { f = 1 } END { exit !f }' "$out" && ok || bad "no exact-shape row for 7x9x5"
grep -q " level=full m=7 n=9 k=5 .* path=literal rep=0 result=ok" "$log" && ok || bad "7x9x5 was not measured as its exact-shape instance"
grep -q '^source       measured$' "$out" && ok || bad "source is not 'measured'"
grep -q '^phases (s): machine .*level 0 .*measure .*total' "$work/w/report.txt" && [ -s "$work/w/report.svg" ] && ok ||
  bad "report: $(cat "$work/w/report.txt" 2>/dev/null | tail -3)"
no_tall "$out"
# the probe's cold mode (decode cells): A and B come from a further slot of the arena on every call,
# and the timed calls' result is checked too (a slot's B taken from the wrong place fails it). The
# configuration is one the first run measured through a generic probe: a probe compiles only its
# candidates' kernels, and the generic probes come in chunks of the run's points, one of which has it
set -- $(awk '/ level=full / && / rep=0 result=ok / && !/ path=literal / && !/ operands=cold / && !/ pf=/ {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    split(v["tile"], t, "x"); sub(/vec$/, "", t[2])
    print t[1], t[2], v["ku"], v["mc"], v["nc"], v["kc"], v["packb"], (v["form"] == "packed"), v["split"], v["order"], 0; exit }' "$log")
for probe in "$work"/w/full*/probe; do
  "$probe" 33 70 41 "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "${11}" cold=1048576 > "$work/cold" 2>&1 && break
done
grep -q '^gflops=[0-9.]* spread=' "$work/cold" && ok || bad "the probe's cold mode: $(cat "$work/cold") (args: $*)"
n1=$(grep -c ' level=full ' "$log")
grep -q " level=full .* result=ok gflops=[0-9.]* spread=[0-9.]* sample_ms=0.5 " "$log" && ok || bad "the records do not say their samples were 0.5 ms"
[ "$n1" -gt 20 ] && ok || bad "only $n1 whole-shape records"

# a completed run is recorded, and the next run measures afresh (stale figures never judge new ones)
[ "$(grep -c "^tk-record 1 op=retune cpu=generic run=0 result=done" "$log")" = 1 ] && ok || bad "no op=retune record for the run"
run "$log" "$work/again.tkt" > "$work/o3" 2>&1 && [ "$(grep -c " level=full .* rep=1[0-9] " "$log")" -gt 20 ] &&
  ! grep -q "; 0 whole-shape measurements" "$work/again.tkt" && ok || bad "the second run did not measure afresh: $(tail -3 "$work/o3")"
# the record-log prior: the second run left out what the first read far behind (it measured fewer
# configurations, and said how many it left out); no point lost all its candidates; with no prior
# (--prior-runs 0) a run leaves out nothing
k0=$(sed -n 's/.* level=full \(.*\) rep=0 result=.*/\1/p' "$log" | sort -u | wc -l)
k1=$(sed -n 's/.* level=full \(.*\) rep=10 result=.*/\1/p' "$log" | sort -u | wc -l)
grep -q "; [1-9][0-9]* candidates left out by the record-log prior of the last 16 runs" "$work/o3" && [ "$k1" -gt 0 ] &&
  [ "$k1" -lt "$k0" ] && ok || bad "the prior left nothing out ($k0 configurations in run 0, $k1 in run 1): $(grep -a 'left out' "$work/o3")"
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$log" --out "$work/p.tkt" \
  --budget 2 --top 1 --max-dim 48 --shapes "$work/shapes" --dry-run > "$work/op1" 2>&1 &&
  "$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$log" --out "$work/p.tkt" \
  --budget 2 --top 1 --max-dim 48 --shapes "$work/shapes" --dry-run --prior-runs 0 > "$work/op0" 2>&1 &&
  grep -q "(.*; 0 candidates left out by the record-log prior of the last 0 runs" "$work/op0" && ! grep -q "left out by the record-log prior," "$work/op0" &&
  awk '/^point .* left out by the record-log prior/ { n++; split($0, a, "candidates: "); split(a[2], b, /[ (]+/); if (b[2] + 0 >= b[1] + 0) bad = 1 }
    END { exit !(n > 0 && !bad) }' "$work/op1" && ok || bad "dry runs with and without the prior: $(grep -a 'left out' "$work/op1" | head -3)"
# an exact shape the bench times cold (bench/cold.h: at most 16 rows, operands past the L2) is
# measured cold, as the grid's decode corners are; a small one stays in cache
printf '# shapes\nsmall 7 9 5\nwide 1 1000 2048\n' > "$work/cold-exact.shapes"
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$log" --out "$work/p.tkt" \
  --budget 2 --top 1 --max-dim 48 --shapes "$work/cold-exact.shapes" --dry-run > "$work/opc" 2>&1 &&
  grep -q "^point =1x1000x2048: 1x1000x2048 cold;" "$work/opc" && grep -q "^point =7x9x5: 7x9x5 cache;" "$work/opc" && ok ||
  bad "exact shapes cold and in cache: $(grep -a '^point =' "$work/opc")"
# a tall, narrow shape (NARROW_MIN_M rows or more, at most NARROW_VECTORS vectors wide: 4 columns
# of generic's one-float vectors) has its candidates tried in both orders; a row band shorter or a
# vector wider has not (tune/retune.c, few_columns)
printf '# shapes\ntall 300 4 40\nshort 256 4 40\nwide 300 8 40\n' > "$work/narrow.shapes"
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$log" --out "$work/p.tkt" \
  --budget 2 --top 1 --max-dim 48 --shapes "$work/narrow.shapes" --dry-run > "$work/opn" 2>&1 &&
  awk '/^point / { p = $2 } /^  candidate/ && p ~ /^=/ { o[p] = o[p] " " $NF }
    END { exit !(o["=300x4x40:"] ~ / n/ && o["=300x4x40:"] ~ / m/ && o["=256x4x40:"] !~ / m/ && o["=300x8x40:"] !~ / m/) }' "$work/opn" && ok ||
  bad "order twins of a tall, narrow shape: $(grep -a -A3 '^point =' "$work/opn")"

# a run whose budget runs out records the cell it stopped at, and the next run starts there: in its
# report the first grid cell is unmeasured (-1) and a later one measured. The cut is TKTUNE_TEST_CELLS
# (40 cells of the grid's 354 points at --max-dim 48), not the clock: a 6-10 s budget cut after the
# probes' compile, which a loaded host stretched past it (session 35: both runs measured nothing); the clock's own cut is checked
# with a budget no compile fits. The log starts with the first runs' machine and level-0 records (13 s
# of each run that measures them) and none of their whole-shape ones, so the grid is as new to it.
rl="$work/rot.log"
grep -v -e ' level=full ' -e ' op=retune ' "$log" > "$rl"
for r in 0 1; do
  run "$rl" "$work/rot$r.tkt" TKTUNE_TEST_CELLS=40 > "$work/or$r" 2>&1 || bad "budget-cut run $r failed: $(tail -3 "$work/or$r")"
done
next0=$(sed -n 's/^tk-record 1 op=retune cpu=generic run=0 .* next=\([0-9]*\) .*/\1/p' "$rl")
[ "${next0:-0}" -gt 0 ] && grep -q "(budget ran out)" "$work/or0" && awk '/^point / { on = 1; next } on && !/^=/ { n++; if (n == 1) first = $2; else if ($2 > 0) later = 1 }
  END { exit !(first == -1 && later) }' "$work/w/report.txt" && ok ||
  bad "the second run did not start where the first one's budget ran out (next=${next0:-none}): $(sed -n 5,8p "$work/w/report.txt")"
cp "$rl" "$work/clock.log"
budget_s=0.001
run "$work/clock.log" "$work/clock.tkt" > "$work/oclock" 2>&1 && grep -q "^phases (s):.*(budget ran out)" "$work/oclock" &&
  grep -q "^tk-record 1 op=retune cpu=generic run=2 result=done points=354 measurements=0 " "$work/clock.log" && ok ||
  bad "a run past its budget before the first measurement: $(tail -3 "$work/oclock")"
# an exact shape the budget never reached keeps its row (a cut run dropped them until session 50)
cp "$rl" "$work/clockx.log"
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/wx" --log "$work/clockx.log" --out "$work/clockx.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --budget-s "$budget_s" --table "$out" > "$work/oclockx" 2>&1 &&
  was=$(awk '$1 == "row" && $2 == 7 && $3 == 9 && $4 == 5' "$out") && [ -n "$was" ] &&
  [ "$(awk '$1 == "row" && $2 == 7 && $3 == 9 && $4 == 5' "$work/clockx.tkt")" = "$was" ] && ok ||
  bad "the exact row of 7x9x5 did not survive a run cut before it: $(tail -2 "$work/oclockx") $(grep '^row  *7 ' "$work/clockx.tkt")"
# the table a run chose goes through `tkgen check` before it replaces the old one (a retune once
# wrote a table the build refused): the last run's is the table it wrote; a tkgen that refuses
# stops the run with the table as it was, and the refused one kept for the reader
cmp -s "$work/w/checked.tkt" "$work/clock.tkt" && ok || bad "the last run's table is not the one tkgen checked"
printf '#!/bin/sh\n[ "$1" = check ] && { echo "refused for the test" >&2; exit 1; }\nexec "%s" "$@"\n' "$tkgen" > "$work/tkgen-refuses"
chmod +x "$work/tkgen-refuses"
cp "$out" "$work/refused.tkt"
sum=$(cksum < "$work/refused.tkt") real=$tkgen tkgen="$work/tkgen-refuses"
run "$work/clock.log" "$work/refused.tkt" > "$work/oref" 2>&1; rc=$?
tkgen=$real
[ $rc -ne 0 ] && grep -q "refused for the test" "$work/oref" && grep -q "w/checked.tkt: tkgen check refuses the table this run chose" "$work/oref" &&
  [ "$(cksum < "$work/refused.tkt")" = "$sum" ] && [ ! -e "$work/refused.tkt.lock" ] && grep -q '^row ' "$work/w/checked.tkt" && ok ||
  bad "a table tkgen refuses: exit $rc: $(tail -3 "$work/oref")"
# a row set by hand (evidence pinned) and its note survive a retune of the table that has them
# (--table; the same cut run): the row unchanged, ahead of the grid's rows, the note after the retune's
awk '$1 == "row" && $2 == "*" && !p { print "row 5..6 1..3 * 4x4 1 8 4 16 yes n n pinned yes"; p = 1 }
  { print } $1 == "note" && !q { print "note pinned: 5..6 x 1..3 by hand, for the test"; q = 1 }' \
  "$root/tuning_tables/generic/generic.tkt" > "$work/pin.tkt"
# (this and the pinned cells' runs below start from a copy of the first runs' log: the machine
# and level 0 are in it, 13 s a run on a fresh one)
cp "$log" "$work/pin.log"
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$work/pin.log" --out "$work/pinout.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --budget-s "$budget_s" --table "$work/pin.tkt" \
  > "$work/opin" 2>&1 && "$tkgen" check --root "$root" "$work/pinout.tkt" > "$work/opin2" 2>&1 &&
  awk '$1 == "row" { n++; if ($2 == "5..6" && $3 == "1..3" && $4 == "*" && $5 == "4x4" && $8 == 8 && $9 == 4 && $10 == 16 && $NF == "pinned") at = n }
    $1 == "row" && $NF == "pinned" { pins++ } $1 == "note" && /^note +pinned: 5..6 x 1..3 by hand/ { note = 1 }
    END { exit !(at == 1 && pins == 1 && note) }' "$work/pinout.tkt" && ok ||
  bad "the pinned row or its note did not survive the retune: $(tail -3 "$work/opin") $(cat "$work/opin2" 2>/dev/null) $(grep -n 'pinned' "$work/pinout.tkt")"
# more pinned notes than fit beside the retune's own: refused before anything is measured (a dry run
# stops too), naming the table
awk '{ print } $1 == "note" && !q { for (i = 1; i <= 12; i++) print "note pinned: another reason " i; q = 1 }' "$work/pin.tkt" > "$work/pin13.tkt"
if "$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$work/pin13.log" --out "$work/pin13out.tkt" \
  --budget 2 --top 1 --max-dim 48 --table "$work/pin13.tkt" --dry-run > "$work/opin13" 2>&1; then bad "a table with 13 pinned notes was accepted"
else grep -q "pin13.tkt: 13 notes start with \"pinned\": at most 12 fit" "$work/opin13" && [ ! -e "$work/pin13out.tkt" ] && ok ||
  bad "13 pinned notes: $(tail -2 "$work/opin13")"; fi
budget_s=540
# --rows: a run measures only the cells and exact shapes of those row counts (not 7x9x5), and leaves the
# rotation where it was (its op=retune record repeats the next cell and says rows=)
next1=$(sed -n 's/^tk-record 1 op=retune cpu=generic run=1 .* next=\([0-9]*\) .*/\1/p' "$rl")
before=$(wc -l < "$rl")
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$rl" --out "$work/rows.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --sample-ms 0.5 --rows 5..6 > "$work/orows" 2>&1 ||
  bad "retune --rows failed: $(tail -3 "$work/orows")"
tail -n +$((before + 1)) "$rl" | awk '/ level=full / { n++; for (i = 1; i <= NF; i++) if ($i ~ /^m=/) { m = substr($i, 3) + 0; if (m < 5 || m > 6) out++ } }
  END { exit !(n > 0 && !out) }' && ok || bad "retune --rows 5..6 measured other row counts (the exact 7x9x5 too) or nothing"
grep -q "^tk-record 1 op=retune cpu=generic run=2 result=done .* next=${next1:-x} rows=5..6 " "$rl" && ok ||
  bad "the --rows run moved the rotation (next was ${next1:-none}): $(grep op=retune "$rl" | tail -1)"
# --cols with --rows: only the cells in both bands (5..6 rows, at most 8 columns), and the record says so
before=$(wc -l < "$rl")
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$rl" --out "$work/cols.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --sample-ms 0.5 --rows 5..6 --cols 1..8 > "$work/ocols" 2>&1 ||
  bad "retune --rows --cols failed: $(tail -3 "$work/ocols")"
tail -n +$((before + 1)) "$rl" | awk '/ level=full / { n++; for (i = 1; i <= NF; i++) { if ($i ~ /^m=/) { m = substr($i, 3) + 0; if (m < 5 || m > 6) out++ }
  if ($i ~ /^n=/ && substr($i, 3) + 0 > 8) out++ } } END { exit !(n > 0 && !out) }' && ok ||
  bad "retune --rows 5..6 --cols 1..8 measured other shapes or nothing"
grep -q "^tk-record 1 op=retune cpu=generic run=3 result=done .* rows=5..6 cols=1..8 " "$rl" && ok ||
  bad "the --cols run's record does not name its bands: $(grep op=retune "$rl" | tail -1)"
# --shapes-only: a run measures the listed shapes and nothing else, writes their exact rows (every cell
# keeps the row its top corner had, as cells outside --rows do), and its record says so
before=$(wc -l < "$rl")
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$rl" --out "$work/only.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --sample-ms 0.5 --table "$out" --shapes-only > "$work/oonly" 2>&1 ||
  bad "retune --shapes-only failed: $(tail -3 "$work/oonly")"
tail -n +$((before + 1)) "$rl" | awk '/ level=full / { n++; if (!/ m=7 n=9 k=5 /) out++ } END { exit !(n > 0 && !out) }' && ok ||
  bad "retune --shapes-only measured more than the listed 7x9x5, or nothing"
grep -q '^row  *7  *9  *5 ' "$work/only.tkt" && ok || bad "retune --shapes-only wrote no row for 7x9x5"
grep -q "^tk-record 1 op=retune cpu=generic .* shapes-only=1 " "$rl" && ok ||
  bad "the --shapes-only run's record does not say so: $(grep op=retune "$rl" | tail -1)"
# a grid cell wholly under a pinned row, left unmeasured by --rows: its own row beneath the pin keeps
# the tuner's decisions; the pin's are not its previous row (they were written there, sessions 59-60)
awk '$1 == "row" && !p && $2 != 7 { print "row 9..12 1..8 * 4x4 1 0 4 8 16 yes n n yes pinned"; p = 1 }
  { print } $1 == "note" && !q { print "note pinned: 9..12 x 1..8 by hand, for the test"; q = 1 }' "$out" > "$work/pincell.tkt"
cp "$log" "$work/pincell.log"
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$work/pincell.log" --out "$work/pincellout.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --sample-ms 0.5 --rows 5..6 --cols 1..8 \
  --table "$work/pincell.tkt" > "$work/opincell" 2>&1 || bad "retune of a table with a pinned cell failed: $(tail -3 "$work/opincell")"
# an awk test of a table's range token r (N, LO..HI, LO..* or *) against v, and of its row against 10 x 5 x 20
holds='function has(r, v,  a) { if (r == "*") return 1; if (split(r, a, "[.][.]") == 1) return v == r + 0
         return v >= a[1] + 0 && (a[2] == "*" || v <= a[2] + 0) }
       function holds() { return has($2, 10) && has($3, 5) && has($4, 20) }'
unpinned() { # unpinned TABLE: the first row that is not pinned and holds 10 x 5 x 20
  awk "$holds"' $1 == "row" && $NF != "pinned" && holds() { print; exit }' "$1"
}
beneath() { unpinned "$1" | awk '{ NF--; $1 = $2 = $3 = $4 = ""; print }'; } # that row's decisions
was=$(beneath "$out") now=$(beneath "$work/pincellout.tkt")
[ -n "$was" ] && [ "$was" = "$now" ] && grep -q '^row  *9\.\.12  *1\.\.8  *\*  *4x4 .* pinned$' "$work/pincellout.tkt" && ok ||
  bad "the row beneath the pinned 9..12 x 1..8 changed in a run that did not measure it: '$was' -> '$now'"
# the same pin where it replaced the tuner's rows (every row beneath it that holds 10 x 5 x 20 taken
# out, the catch-all's excepted): the unmeasured cells under it get no row, so 10 x 5 x 20 passes
# the pin over to the catch-all again; their previous row was the catch-all, whose decisions came
# back as rows of their ranges saying "measured", merged with a neighbour of the same decisions
# or alone (x86-64-v3, session 69)
holder() { unpinned "$1" | awk '{ print $2, $3, $4 }'; } # that row's ranges
awk "$holds"' $1 == "row" { row[++n] = $0; keep[n] = $NF == "pinned" || !holds() }
  $1 != "row" { print } END { for (i = 1; i <= n; i++) if (keep[i] || i == n) print row[i] }' "$work/pincell.tkt" > "$work/pinonly.tkt"
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$work/pincell.log" --out "$work/pinonlyout.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --sample-ms 0.5 --rows 5..6 --cols 1..8 \
  --table "$work/pinonly.tkt" > "$work/opinonly" 2>&1 || bad "retune of a table whose pin replaced the tuner's rows failed: $(tail -3 "$work/opinonly")"
[ "$(holder "$work/pinonly.tkt")" = "* * *" ] && [ "$(holder "$work/pinonlyout.tkt")" = "* * *" ] &&
  grep -q '^row  *9\.\.12  *1\.\.8  *\*  *4x4 .* pinned$' "$work/pinonlyout.tkt" && ok ||
  bad "under a pin that replaced the tuner's rows, 10 x 5 x 20 is held by rows $(holder "$work/pinonly.tkt") before and $(holder "$work/pinonlyout.tkt") after a run that did not measure it (want the catch-all, * * *)"
# a grid cell split by hand, its top corner pinned and the rest a row of its own, left unmeasured by
# --rows: the unpinned side keeps its decisions (until session 73 the cell took the row past the pin
# at its top corner, and the hand row was lost: x86-64-v3's 17..32 x 1025..2047)
split_row='4x4 1 0 8 8 32 yes n n yes'
awk -v r="$split_row" '$1 == "row" && !p && $2 != 7 { print "row 12 1..8 * 4x4 1 0 4 8 16 yes n n yes pinned"
    print "row 9..11 1..8 * " r " measured"; p = 1 }
  { print } $1 == "note" && !q { print "note pinned: 12 x 1..8 by hand, for the test"; q = 1 }' "$out" > "$work/pinsplit.tkt"
decisions() { echo $(beneath "$1"); } # beneath's, single-spaced
cp "$log" "$work/pinsplit.log"
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$work/pinsplit.log" --out "$work/pinsplitout.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --sample-ms 0.5 --rows 5..6 --cols 1..8 \
  --table "$work/pinsplit.tkt" > "$work/opinsplit" 2>&1 && "$tkgen" check --root "$root" "$work/pinsplitout.tkt" > "$work/opinsplit2" 2>&1 &&
  [ "$(decisions "$out")" != "$split_row" ] && [ "$(decisions "$work/pinsplit.tkt")" = "$split_row" ] &&
  [ "$(decisions "$work/pinsplitout.tkt")" = "$split_row" ] && ok ||
  bad "the unpinned side of a split cell: '$(decisions "$work/pinsplit.tkt")' -> '$(decisions "$work/pinsplitout.tkt")' $(tail -2 "$work/opinsplit")"

# killed mid-way: the table stays as it was, and the rerun completes without measuring anything twice.
# On a copy of the first two runs' log: the machine and level 0 are in it, so the run measures
# whole shapes at once (on a fresh log the kill waited for them, and the rerun measured every
# candidate again with no prior: 60 of this test's 365 s, session 80). Both runs tune the cells of
# 1 to 4 rows only (the rerun of the whole grid was 18 s of the test's 163, session 84).
sum=$(cksum < "$out")
count() { c=$(grep -c ' level=full ' "$1" 2>/dev/null); echo "${c:-0}"; }
cp "$log" "$work/k.log"
base=$(count "$work/k.log")
# (exec: $! is tktune itself; SIGTERM, as a background job ignores SIGINT)
(exec "$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$work/k.log" --out "$out" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" --rows 1..4) > "$work/o4" 2>&1 &
pid=$!
i=0
while [ "$(count "$work/k.log")" -lt $((base + 3)) ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
# a second run on the same record log (the same CPU) while the first measures: refused at once
if "$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w2" --log "$work/k.log" --out "$work/second.tkt" \
  --budget 2 --top 1 --max-dim 48 --timeout 5 --shapes "$work/shapes" > "$work/o4b" 2>&1; then bad "a second run on a busy log was accepted"
else grep -q "k.log: another tktune run is using this record log" "$work/o4b" && [ ! -e "$work/second.tkt" ] && ok ||
  bad "second run: $(tail -3 "$work/o4b")"; fi
kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
# the killed run's children hold the log's lock from their fork to their exec (O_CLOEXEC); on a
# loaded host (make test, session 45) that outlasted the checks below once and the rerun was
# refused: wait until the lock is free (10 s at most)
i=0
while command -v flock > /dev/null && ! flock -n "$work/k.log" true && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(cksum < "$out")" = "$sum" ] && [ ! -e "$out.lock" ] && [ ! -e "$out.tmp" ] && ok || bad "the kill changed the table or left a lock"
[ $(($(count "$work/k.log") - base)) -lt "$n1" ] && ok || bad "the run was not interrupted (it finished first)"
rows="--rows 1..4"
run "$work/k.log" "$work/k.tkt" > "$work/o5" 2>&1 && ok || bad "the rerun after the kill failed: $(tail -3 "$work/o5")"
rows=
dups=$(sed -n 's/.* level=full \(.*\) result=.*/\1/p' "$work/k.log" | sort | uniq -d | wc -l)
[ "$dups" = 0 ] && ok || bad "$dups configurations were measured twice"

# a configuration that crashes is recorded as such and not chosen: a run over the cells of 4 to 6
# rows, where 4-row tiles are candidates (every one tried: no prior), on a copy of the first runs'
# log (level 0 known); its rows of those row counts have no 4-row tile (the others are the
# previous table's)
cp "$log" "$work/c.log"
env TKTUNE_TEST_CRASH_MR=4 "$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/w" --log "$work/c.log" \
  --out "$work/c.tkt" --budget 2 --top 1 --max-dim 48 --timeout 5 --sample-ms 0.5 --rows 4..6 --prior-runs 0 > "$work/o6" 2>&1 &&
  ok || bad "a crash stopped tuning: $(tail -3 "$work/o6")"
grep -q ' level=full .*tile=4x.* result=crash signal=11' "$work/c.log" && ok || bad "the crash was not recorded"
awk '$1 == "row" { split($2, r, /\.\./); lo = r[1]; hi = r[2] == "" ? lo : r[2]
    if (lo ~ /^[0-9]+$/ && hi ~ /^[0-9]+$/ && lo + 0 >= 4 && hi + 0 <= 6) { n++; if ($5 ~ /^4x/) f = 1 } }
  END { exit f || !n }' "$work/c.tkt" && ok || bad "a crashing tile was chosen (or no row of 4 to 6 rows): $(grep '^row  *[4-6]' "$work/c.tkt" | head -5)"

# evaluate: the oracle space, the model's pick and the table's row on two shapes; the oracle's best is
# the fastest of all, so no ratio exceeds 1, and there is one line per shape plus the summaries
printf '5 7 9\n13 11 3\n' > "$work/eval.shapes"
"$tktune" evaluate --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/ev" --sample-ms 0.5 --log "$log" --table "$out" \
  --shapes "$work/eval.shapes" > "$work/o8" 2>&1 && ok || bad "evaluate failed: $(tail -3 "$work/o8")"
# (columns from the end: the calibrated model's ratio, the default model's, table GFLOP/s, table ratio,
# then the row's six words: tile, unroll, three blocks, form)
awk '/^5x7x9 |^13x11x3 / { n++; if ($(NF-9) > 1.0001 || $(NF-8) > 1.0001 || $(NF-6) > 1.0001 || $2 <= 0) bad = 1 } END { exit !(n == 2 && !bad) }' "$work/o8" &&
  grep -q '^model (calibrated): median' "$work/o8" && grep -q '^model with default constants: median' "$work/o8" &&
  grep -q '^table: mean' "$work/o8" && ok || bad "evaluate output: $(cat "$work/o8")"

# a configuration that hangs is stopped at the time limit and recorded so, and the measurements after
# it go on in a new probe: the probe that serves a run's measurements (measure.c, srv_run) is killed
# with it. evaluate of 5x7x9 in cache, the 4-row kernels hanging
printf '5 7 9\n' > "$work/hang.shapes"
TKTUNE_TEST_HANG_MR=4 "$tktune" evaluate --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/evh" --sample-ms 0.5 --log "$log" \
  --table "$out" --shapes "$work/hang.shapes" --warm --rounds 1 --timeout 0.5 > "$work/o14" 2>&1 &&
  awk '/ tile=4x.* result=timeout limit=0.5s / { t = 1 } / result=ok / && t { after = 1 } END { exit !after }' "$work/evh/evaluate.records" &&
  ok || bad "a hanging configuration: $(tail -3 "$work/o14"; grep -c 'result=timeout' "$work/evh/evaluate.records")"

# a cold run reads the memory bandwidth around its timed calls (dram=); one that read under 0.8x the
# usual (here: tiles of 2 rows, the table's row for this shape, measured after the oracle's others
# have set the usual; whose reading the probe quarters for the test) is run 3 times, each
# recorded, the last marked quiet=no, and evaluate reports how many stayed disturbed
# (2x3700x16: past generic's 256 KiB L2, so cold, and one depth, so 9 candidates: every cold
# measurement fills the whole buffer, 1 GiB on a 260 MiB LLC, about 0.7 s; 2x100x1000's 41 took 79 s.
# Its row is an exact-shape row of a 2-row tile, put first in a copy of the table: the run's own
# row there may be of any tile, and was 4x4 once)
printf '2 3700 16\n' > "$work/cold.shapes"
awk '$1 == "row" && !p { print "row 2 3700 16 2x4 1 0 32 256 256 yes n n yes measured"; p = 1 } { print }' "$out" > "$work/cold.tkt"
# (one paired round, not five: 41 cold probes took 30 of this test's 141 s, session 84)
TKTUNE_TEST_BUSY_MR=2 "$tktune" evaluate --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/evc" --sample-ms 0.5 --log "$log" \
  --table "$work/cold.tkt" --shapes "$work/cold.shapes" --rounds 1 > "$work/o13" 2>&1 && ok || bad "cold evaluate failed: $(tail -3 "$work/o13")"
rec="$work/evc/evaluate.records"
# its plan says one round, the first evaluate's five (the default); an even count, or --rounds given
# to another command, is refused with the usage
grep -q "then up to 6 per shape in 1 paired round$" "$work/o13" && grep -q "then up to 6 per shape in 5 paired rounds$" "$work/o8" && ok ||
  bad "the evaluate runs' rounds: $(grep -h 'paired round' "$work/o13" "$work/o8")"
"$tktune" evaluate --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/evr" --shapes "$work/cold.shapes" --rounds 4 > "$work/or4" 2>&1
rc4=$?
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/evr" --rounds 3 --dry-run > "$work/or3" 2>&1
rc3=$?
[ $rc4 = 2 ] && [ $rc3 = 2 ] && grep -q "^usage:" "$work/or4" && grep -q "^usage:" "$work/or3" && ok ||
  bad "--rounds 4 to evaluate (exit $rc4) or --rounds to retune: $(head -2 "$work/or4" "$work/or3")"
grep ' operands=cold ' "$rec" | grep -v ' tile=2x' | grep -q ' result=ok gflops=[0-9.]* spread=[0-9.]* dram=[0-9.]* ' && ok ||
  bad "no cold record has its dram= reading"
busy=$(grep ' operands=cold .* quiet=no ' "$rec" | grep -c ' tile=2x')
tries=$(grep ' operands=cold ' "$rec" | grep ' tile=2x' | sed 's/ result=.*//' | sort | uniq -c | awk '$1 != 3' | wc -l)
left=$(sed -n 's/^cold measurements disturbed .*: \([0-9]*\)$/\1/p' "$work/o13")
[ "$busy" -ge 3 ] && [ "$tries" = 0 ] && [ "${left:-0}" -ge $((busy / 3)) ] && ok ||
  bad "disturbed cold runs: $busy records with quiet=no, $tries configurations not run 3 times, $left reported"

# the cold buffer is the bench's (bench/cold.h): 4 x the larger of the table's l3 and this host's
# last-level cache (its L3, else its L2), 256 MiB to 2 GiB; a record names its size when it is not
# the 256 MiB every earlier record used (an Emerald Rapids VM's 260 MiB LLC and spr's 64 MiB l3)
l2=0 l3=0
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
  [ -r "$d/size" ] && [ "$(cat "$d/type")" != Instruction ] || continue
  sz=$(($(sed 's/K$/*1024/; s/M$/*1048576/; s/G$/*1073741824/' "$d/size")))
  case $(cat "$d/level") in 2) [ "$sz" -gt "$l2" ] && l2=$sz ;; 3) [ "$sz" -gt "$l3" ] && l3=$sz ;; esac
done
llc=$(( l3 > 0 ? l3 : l2 ))
table_l3=$(awk '$1 == "l3_bytes" { print $2 }' "$root/tuning_tables/generic/generic.tkt")
llc=$(( llc > table_l3 ? llc : table_l3 ))
arena=$(( 4 * llc < 268435456 ? 268435456 : 4 * llc )); arena=$(( arena > 2147483648 ? 2147483648 : arena ))
mib=$((arena / 1048576))
grep -q "slot of the $mib MiB cold buffer" "$work/o13" && ok || bad "cold buffer: want $mib MiB, $(grep 'cold buffer' "$work/o13")"
if [ "$mib" = 256 ]; then ! grep ' operands=cold ' "$rec" | grep -q ' arena=' && ok || bad "a 256 MiB cold record names its arena"
else grep ' operands=cold ' "$rec" | grep -v -q " operands=cold arena=${mib}MiB " && bad "a cold record without arena=${mib}MiB" || ok; fi

# a malformed shape list
printf 'small 7 9 5\nsmall 7 x 5\n' > "$work/shapes"
if run "$log" "$work/bad.tkt" > "$work/o7" 2>&1; then bad "a malformed shape list was accepted"
else grep -q "shapes:2: 'x' is not a dimension" "$work/o7" && [ ! -e "$work/bad.tkt" ] && ok || bad "message: $(cat "$work/o7")"; fi
finish tune_retune
