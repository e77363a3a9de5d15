# tests/lib.sh - what the shell tests share: counted checks and the closing line
#   . "$(dirname "$0")/lib.sh"; ok; bad "what went wrong"; finish NAME
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() { echo "$1: $pass passed, $fail failed"; [ "$fail" = 0 ]; }
