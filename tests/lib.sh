# tests/lib.sh - what the shell tests share: counted checks and the closing line
#   . "$(dirname "$0")/lib.sh"; ok; bad "what went wrong"; finish NAME
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() { echo "$1: $pass passed, $fail failed"; [ "$fail" = 0 ]; }

# A test's own tk/gen/all.h over the ukr headers of chosen ISAs (test_ukr takes its kernels from
# it): isa_add ISA FEATURE for each (FEATURE: the ISA's host_feature, none where any CPU runs it),
# then isa_all_h DIR writes DIR/tk/gen/all.h; isa_all_h fails when no ISA was added.
includes="" isas=""
isa_add() {
  includes="$includes#include \"ukr_f32_$1.h\"
"
  if [ "$2" = none ]; then isas="$isas X($1, 1)"; else isas="$isas X($1, TKI_CPU_SUPPORTS(\"$2\"))"; fi
}
isa_all_h() {
  [ -n "$isas" ] || return 1
  printf '%s#define TKI_GEN_ISAS(X)%s\n' "$includes" "$isas" > "$1/tk/gen/all.h"
}

# ukr_text GENDIR ISA: the text of GENDIR/ukr_f32_ISA.h with the parts it includes (tkgen writes a
# long microkernel header's kernels as ukr_f32_ISA_p1.h, _p2.h ...), for greps over the kernels (the
# parts in ls order, not the order the header includes them)
ukr_text() {
  cat "$1/ukr_f32_$2.h" $(ls "$1/ukr_f32_$2_p"*.h 2>/dev/null)
}

# Tuner tests: no_tall TABLE checks that a row for m = 1 never takes a tile taller than 1 (its twin
# of one row stands in); at m >= 2 a tall tile stays only where it beat its twin by the margin
# (retune_keep_tall, checked in test_decide). Uses $work for its scratch file.
no_tall() {
  awk '$1 == "row" && $2 == 1 { split($5, t, "x"); if (t[1] + 0 > 1) { print; bad = 1 } } END { exit bad }' "$1" > "$work/tall" && ok ||
    bad "tiles taller than 1 at m = 1 in $1: $(cat "$work/tall")"
}
