#!/bin/sh
# The tuner on CPUs other than the portable one, and its plan, beside tune_retune.sh (ctest runs
# the two side by side: together they took 141 s of the native build's 158 s of ctest): a CPU
# this machine cannot run (a76) is estimated, checked under qemu and refused when a result is
# wrong; an exact shape tries the tiles that cut it evenly (x86-64-v4, on an AVX-512 host); no row,
# measured or estimated, has a tile taller than its m range; the dry run prints each point's shapes
# and how they are measured (a narrow decode cell's warm corner, a small cell's shallow middle).
# usage: tune_retune_cpus.sh TKTUNE TKGEN ROOT WORKDIR
set -u
tktune=$1 tkgen=$2 root=$3 work=$4
. "$(dirname "$0")/lib.sh"
# has_points FILE SHOW WHAT PATTERN...: every PATTERN (a dry run's `point` line) is in FILE, else the
# failure names WHAT and shows FILE's lines that match SHOW
has_points() {
  f=$1 show=$2 what=$3; shift 3
  for pat; do grep -q "$pat" "$f" || { bad "$what: $(grep "$show" "$f")"; return; }; done
  ok
}
rm -rf "$work" && mkdir -p "$work"

# a CPU this machine cannot run (a76, NEON): level 0 estimated by llvm-mca, the chosen rows run and
# checked under qemu, every row says estimated; a configuration that computes a wrong result there
# stops the run before any table is written
"$tktune" retune --root "$root" --cpu a76 --tkgen "$tkgen" --work "$work/a76" --log "$work/a76.log" --out "$work/a76.tkt" \
  --budget 4 --max-dim 32 --timeout 20 > "$work/o9" 2>&1 && ok || bad "estimated retune of a76 failed: $(tail -3 "$work/o9")"
"$tkgen" check --root "$root" "$work/a76.tkt" > "$work/o10" 2>&1 && grep -q '^source       estimated$' "$work/a76.tkt" &&
  awk '$1 == "row" && $NF != "estimated" { bad = 1 } END { exit bad }' "$work/a76.tkt" && ok || bad "a76 table: $(cat "$work/o10")"
grep -q ' level=0 .* result=ok gflops=[0-9.]* spread=0 kernels=[0-9a-f]* evidence=estimated mca_cpu=cortex-a76 ' "$work/a76.log" &&
  [ "$(grep -c ' level=check .* result=ok ' "$work/a76.log")" -gt 0 ] && ! grep ' level=check ' "$work/a76.log" | grep -qv 'result=ok' &&
  ok || bad "a76 log lacks estimates or checks"
no_tall "$work/a76.tkt"
mr=$(awk '$1 == "row" { split($5, t, "x"); print t[1]; exit }' "$work/a76.tkt")
if TKTUNE_TEST_WRONG_MR=$mr "$tktune" retune --root "$root" --cpu a76 --tkgen "$tkgen" --work "$work/a76" --log "$work/a76w.log" \
  --out "$work/a76w.tkt" --budget 4 --max-dim 32 --timeout 20 > "$work/o11" 2>&1; then bad "a wrong result under qemu was accepted"
else grep -q "wrong result" "$work/o11" && grep -q ' level=check .* result=wrong ' "$work/a76w.log" && [ ! -e "$work/a76w.tkt" ] &&
  ok || bad "wrong result: $(tail -3 "$work/o11")"; fi

# an exact shape also tries the tiles that cut it evenly (fixed-width ISAs with the direct form):
# 32x32x32 on AVX-512 takes three 14x32 tiles, and 8x32 (four) must be among its measured instances;
# 32x64x32 six 6x64 (36 rows of work), and 4x64 (eight, the row count that divides 32) must be.
# Only the row count 32 (--rows): the exact shape and the cells of 17..32 rows.
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  printf '32 32 32\n32 64 32\n' > "$work/even.shapes"
  "$tktune" retune --root "$root" --cpu x86-64-v4 --tkgen "$tkgen" --work "$work/v4" --log "$work/v4.log" --out "$work/v4.tkt" \
    --budget 2 --top 1 --max-dim 32 --timeout 20 --shapes "$work/even.shapes" --sample-ms 0.5 --rows 32 > "$work/o12" 2>&1 && ok ||
    bad "retune of x86-64-v4 failed: $(tail -3 "$work/o12")"
  grep -q ' level=full m=32 n=32 k=32 tile=8x2vec .* path=literal rep=0 result=ok' "$work/v4.log" && ok ||
    bad "32x32x32 was not measured with an even 8x32 tile"
  grep -q ' level=full m=32 n=64 k=32 tile=4x4vec .* path=literal rep=0 result=ok' "$work/v4.log" && ok ||
    bad "32x64x32 was not measured with 4x64, the tile that divides its rows"
fi

# the dry run's plan (nothing measured): a streamed cell (at most 16 rows, n past 256) has a warm
# side, as deep as keeps B in half of L2 (generic: 256 KiB, so 64 deep at 512 columns), measured in
# cache at that depth and a quarter of it, an L2 side down to where B at the band's middle width (363)
# with A and C of 12 rows fills the L2 (160 deep), measured in cache but at its widest corner
# (12x512x160: A, B and C past the L2, which the bench times cold), and a deep side measured cold; a
# cell of many rows
# measures in cache
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/dry" --log "$work/dry.log" \
  --out "$work/dry.tkt" --max-dim 512 --dry-run > "$work/o13" 2>&1 && [ ! -e "$work/dry.tkt" ] && [ ! -s "$work/dry.log" ] && ok ||
  bad "dry run: $(tail -3 "$work/o13")"
grep -q '^point 9\.\.12 x 257\.\.512 x 1\.\.64: 12x512x64 cache, 12x512x16 cache, 10x363x32 cache; candidates: [1-9][0-9]*$' "$work/o13" &&
  grep -q '^point 9\.\.12 x 257\.\.512 x 65\.\.160: 12x512x160 cold, 12x512x65 cache, 10x363x102 cache; candidates: [1-9][0-9]*$' "$work/o13" &&
  grep -q '^point 9\.\.12 x 257\.\.512 x 161\.\.\*: 12x512x512 cold, 12x512x4096 cold, 9x[0-9]*x[0-9]* cold; candidates: [1-9][0-9]*$' "$work/o13" &&
  ok || bad "dry run, cell 9..12 x 257..512: $(grep '^point 9\.\.12 x 257' "$work/o13")"
# a cell of every depth whose top corner holds at most 64 x 64 of C measures its middle as deep as it
# is wide (2 x 97..128, 17..32 x 97..128: small products); one of more (17..32 x 129..256) between its
# corners' depths
grep -q '^point 2 x 97\.\.128 x \*: 2x128x256 cache, 2x128x512 cache, 2x111x111 cache; ' "$work/o13" &&
  grep -q '^point 17\.\.32 x 97\.\.128 x \*: 32x128x256 cache, 32x128x512 cache, 23x111x111 cache; ' "$work/o13" &&
  grep -q '^point 17\.\.32 x 129\.\.256 x \*: 32x256x256 cache, 32x256x512 cache, 23x182x362 cache; ' "$work/o13" && ok ||
  bad "dry run, small cells' middles: $(grep '^point 2 x 97\|^point 17\.\.32 x 97\|^point 17\.\.32 x 129' "$work/o13")"
# a cell of a large C also has a middle side, depths 33..256, measured 256 and 64 deep at its corner
# and 128 at its middle, in both orders, each also with its block of A reshaped (add_row_blocks:
# generic's 4x4 kc 256 mc 64, packing B, as kc 128 mc 128; the point is 512 rows tall); the depths
# past it from twice that deep
grep -q '^point 257\.\.512 x 257\.\.512 x 33\.\.256: 512x512x256 cache, 512x512x64 cache, 363x363x128 cache; candidates: 4$' "$work/o13" &&
  grep -A4 '^point 257\.\.512 x 257\.\.512 x 33\.\.256:' "$work/o13" | grep -q '^  candidate 4x4 ku1 kc128 mc128 nc256 packed order m$' &&
  grep -q '^point 257\.\.512 x 257\.\.512 x 257\.\.\*: 512x512x512 cache, ' "$work/o13" && ok ||
  bad "dry run, cell 257..512 x 257..512: $(grep '^point 257\.\.512 x 257\.\.512' "$work/o13")"
# a cell of a large C has two shallow sides: 1..16, measured 16 and 4 deep at its corner, 8 at its
# middle, and 17..32, measured 32 and 17 deep, 23 at its middle; each with candidates in both orders
# (the previous row and its twin here: nothing measured, no model)
grep -q '^point 257\.\.512 x 257\.\.512 x 1\.\.16: 512x512x16 cache, 512x512x4 cache, 363x363x8 cache; candidates: 2$' "$work/o13" &&
  grep -q '^point 257\.\.512 x 257\.\.512 x 17\.\.32: 512x512x32 cache, 512x512x17 cache, 363x363x23 cache; candidates: 2$' "$work/o13" && ok ||
  bad "dry run, shallow cell 257..512 x 257..512: $(grep '^point 257\.\.512 x 257\.\.512' "$work/o13")"
# a small cell (at most 64 x 64) measures its middle as deep as it is tall or wide, a larger one deep
has_points "$work/o13" '^point 17\.\.32 x 17\.\.24 ' "dry run, cell 17..32 x 17..24" \
  '^point 17\.\.32 x 17\.\.24 x \*: 32x24x256 cache, 32x24x512 cache, 23x20x23 cache;'
has_points "$work/o13" '^point 65\.\.128 x 97\.\.128 ' "dry run, cell 65..128 x 97..128" \
  '^point 65\.\.128 x 97\.\.128 x \*: 128x128x256 cache, 128x128x512 cache, 91x111x362 cache;'

# an open cell (n past the grid's edge) takes its top corner at the next power of two, where the rows
# of B alias as a model's widths do: 2048 from an edge of 1408 (a multiple of 512, 1536, until
# session 39: rows 6 KiB apart, which the driver's depth cap cut far less than 8 KiB ones)
"$tktune" retune --root "$root" --cpu generic --tkgen "$tkgen" --work "$work/dry2" --log "$work/dry2.log" \
  --out "$work/dry2.tkt" --max-dim 1408 --dry-run > "$work/o14" 2>&1 && ok || bad "dry run at 1408: $(tail -3 "$work/o14")"
has_points "$work/o14" '^point 65\.\.128 x 1025' "dry run at 1408, cell 65..128 x 1025.." \
  '^point 65\.\.128 x 1025\.\.\* x 257\.\.[0-9*]*: 128x2048x512 cache, 128x2048x1408 cache, 91x1449x849 cache;'

# a decode cell's middle is an odd multiple of 16 columns (2064 here, not 2049): B's rows on 64-byte
# lines as a model's widths keep them, with a stride that aliases little; its warm side (64 deep)
# stops at 4096 columns, past which its shallow depths are streamed (8192 and 11008 wide)
has_points "$work/o14" '^point 4 x ' "dry run at 1408, cell 4 x 1025.." \
  '^point 4 x 1025\.\.\* x 65\.\.\*: 4x4096x512 cold, 4x11008x4096 cold, 4x2064x1448 cold;' \
  '^point 4 x 1025\.\.4096 x 1\.\.64: 4x1408x64 cache, 4x1408x16 cache, 4x1201x32 cache;' \
  '^point 4 x 4097\.\.\* x 1\.\.64: 4x8192x64 cold, 4x11008x64 cold;'

# the dot form (an ISA with dot products: spr's AVX-512): at a cell of at most 8 columns every dot
# candidate but the previous row runs all the cell's columns in one block with the column tiles
# inner (nc >= 8, order m), the previous row's 6x4 (one block of 4 columns, order n) among them
# (the table's rows there set by the test: the committed ones change with retunes)
awk '$1 == "row" && $2 == "257..512" && $3 == "1..8" { print "row 257..512 1..8 * 6x4 2 0 66 4 512 yes m n dot measured"; next }
  $1 == "row" && $2 == "257..512" && $3 == "17..24" { print "row 257..512 17..24 * 9x48 4 0 576 48 384 no m n no measured"; next }
  $1 == "row" && $2 ~ /^[34]$|^[234]\.\.[34]$/ && $3 == "97..128" {
    if (!cut++) print "row 2..4 97..128 * 4x64 4 0 4 64 2048 no n n no measured"; next }
  { print }' "$root/tuning_tables/x86/spr.tkt" > "$work/dot.tkt"
"$tktune" retune --root "$root" --cpu spr --tkgen "$tkgen" --work "$work/dry3" --log "$work/dry3.log" --table "$work/dot.tkt" \
  --out "$work/dry3.tkt" --max-dim 512 --dry-run > "$work/o15" 2>&1 && ok || bad "spr dry run: $(tail -3 "$work/o15")"
awk '/^point 257\.\.512 x 1\.\.8 x / { on = 1; next } on && /^point/ { exit }
  on && /^  candidate / && !n++ { if ($0 != "  candidate 6x4 ku2 kc512 mc66 nc4 dot order n") badc++; next }
  on && / dot / { nc = $0; sub(/.* nc/, "", nc); nc += 0; if ($NF != "m" || nc < 8) badc++; else good++ }
  on && $0 == "  candidate 6x4 ku2 kc512 mc66 nc8 dot order m" { own++ }
  END { exit !(good >= 2 && !badc && own) }' "$work/o15" && ok ||
  bad "spr dry run, cell 257..512 x 1..8: dot candidates not whole-width in order m: $(grep -A8 '^point 257\.\.512 x 1\.\.8 x' "$work/o15")"
# a cell of one row count split from a row of several (3 from 2..4) takes as its previous choice
# the row's tile cut to its rows, as tkgen ran it there (3x64 of 2..4's 4x64), not the whole tile
# (a retune left the cell unmeasured and wrote 4x64: 3x100x100 ran at 0.79, spr, session 78)
grep -q '^row 2\.\.4 97\.\.128 \* 4x64 ' "$work/dot.tkt" &&
  grep -A1 '^point 3 x 97\.\.128 x ' "$work/o15" | grep -q '^  candidate 3x64 ku4 kc2048 mc3 nc64 direct order n$' && ok ||
  bad "spr dry run, cell 3 x 97..128: the previous choice is not 2..4's 4x64 cut to 3 rows: $(grep -A2 '^point 3 x 97\.\.128 x ' "$work/o15")"
# a direct candidate one column tile wide (9x48 at 17..24 columns) is also tried in one k block
# (add_deep_twins: kc 8192); at 257..512 columns (several column tiles) none is
grep -A8 '^point 257\.\.512 x 17\.\.24 x ' "$work/o15" | grep -q '^  candidate 9x48 ku4 kc384 mc576 nc48 direct order n$' &&
  grep -A8 '^point 257\.\.512 x 17\.\.24 x ' "$work/o15" | grep -q '^  candidate 9x48 ku4 kc8192 mc9 nc48 direct order n$' &&
  ! grep -A8 '^point 257\.\.512 x 257\.\.512 x 257' "$work/o15" | grep -q 'kc8192' && ok ||
  bad "spr dry run: no one-k-block twin of 9x48 at 257..512 x 17..24 (or one at 257..512 x 257..512): $(grep -A8 '^point 257\.\.512 x 17\.\.24 x ' "$work/o15")"
# spr's L2 holds B 16 deep at 8192 columns: the shallow decode widths 4097..8192 are a cell measured
# in cache (at its widest as deep as B fits, at its deepest as wide as B fits, its middle), and only
# those past 8192 are streamed, also measured in cache at 12288 columns as deep as fits (generic's
# 256 KiB L2 above gets neither)
has_points "$work/o15" '^point 4 x [48][01]9[27]' "spr dry run, cells 4 x 4097.. x 1..64: not split at 8192 in cache" \
  '^point 4 x 4097\.\.8192 x 1\.\.64: 4x8192x40 cache, 4x5776x64 cache, 4x5792x16 cache;' \
  '^point 4 x 8193\.\.\* x 1\.\.64: 4x16384x64 cold, 4x11008x64 cold, 4x12288x24 cache;'
# ... and half of it holds B 128 deep at 2048 columns: the open decode cell's deep side is a warm cell
# up to 2048 wide and 128 deep (measured in cache, here at the small grid's edge), a streamed one
# deeper, and the wider widths streamed as the whole side was
has_points "$work/o15" '^point 4 x [12]0[24][59]' "spr dry run, cells 4 x 1025.. x 65..: not split at 2048 and 128" \
  '^point 4 x 1025\.\.2048 x 65\.\.128: 4x512x128 cache, 4x512x65 cache, 4x724x91 cache;' \
  '^point 4 x 1025\.\.2048 x 129\.\.\*: 4x512x512 cold, 4x512x4096 cold, 4x724x1448 cold;' \
  '^point 4 x 2049\.\.\* x 65\.\.\*: 4x4096x512 cold, 4x11008x4096 cold, 4x2896x1448 cold;'
# every shape is measured as the bench times it (bench/cold.h: at most 16 rows and A, B and C past
# the table's L2 cold, else in cache), at the grid's full size: the warm L2 side of a finite band
# (4 x 513..1024 x 257..712) has its widest corner past the L2, and until session 81 it was measured
# in cache (24 such corners on spr)
"$tktune" retune --root "$root" --cpu spr --tkgen "$tkgen" --work "$work/dry4" --log "$work/dry4.log" \
  --out "$work/dry4.tkt" --dry-run > "$work/o16" 2>&1 && ok || bad "spr dry run at full size: $(tail -3 "$work/o16")"
l2=$(awk '$1 == "l2_bytes" { print $2 }' "$root/tuning_tables/x86/spr.tkt")
awk -v l2="$l2" '/^point / { sub(/^[^:]*: /, ""); sub(/;.*/, ""); n = split($0, sh, ", ")
    for (i = 1; i <= n; i++) { split(sh[i], w, " "); split(w[1], d, "x"); pts++
      cold = d[1] <= 16 && 4 * (d[1] * d[3] + d[3] * d[2] + d[1] * d[2]) > l2
      if (cold != (w[2] == "cold")) { miss++; print sh[i] " (the bench: " (cold ? "cold" : "in cache") ")" } } }
  END { print pts " shapes"; exit !(pts > 1000 && l2 > 0 && !miss) }' "$work/o16" > "$work/regime" && ok ||
  bad "spr dry run: shapes not measured as the bench times them: $(tail -5 "$work/regime")"
# a point of 8..16 rows also tries the first candidate of its height half as tall (rows rounded
# up) and wider, at the same unroll and depth (add_short_siblings: 16x16 -> 8x48)
awk 'function done() { if (first != "") { pts++; if (!found) { miss++; print "no short sibling at " pt ": " first } } }
  /^point / { done(); r = $2 ~ /^[0-9]+$/ ? $2 + 0 : 0; on = r >= 8 && r <= 16; pt = $0; first = ""; found = 0; next }
  on && /^  candidate / && !/ dot / { split($2, d, "x")
    if (first == "" && d[1] + 0 == r) { first = $0; ku = $3; kc = $4; w = d[2] + 0 }
    else if (first != "" && d[1] + 0 == int((r + 1) / 2) && d[2] + 0 > w && $3 == ku && $4 == kc) found = 1 }
  END { done(); print pts " points of 8..16 rows"; exit !(pts >= 9 && !miss) }' "$work/o15" > "$work/short" && ok ||
  bad "spr dry run: short siblings: $(tail -5 "$work/short")"

finish tune_retune_cpus
