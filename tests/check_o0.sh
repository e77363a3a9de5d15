#!/bin/sh
# A unit that includes tk and calls nothing, compiled without optimisation, holds none of tk's
# functions or objects (tests/include_only.c says why), where a unit that calls tk at the same level
# holds its functions (which shows that nm sees them).
# usage: check_o0.sh NM INCLUDE_ONLY_OBJECT CALLING_OBJECT
nm=$1 none=$2 calls=$3
pass=0 fail=0
tk_syms() { "$nm" "$1" | grep -E ' [tTdDbBrR] tki?_'; }
if [ -n "$(tk_syms "$calls")" ]; then pass=$((pass + 1)); else
  echo "$calls: no tk symbol in a unit that calls tk"; fail=$((fail + 1)); fi
if [ -n "$(tk_syms "$none")" ]; then
  echo "$none: a unit that calls nothing holds tk's $(tk_syms "$none" | head -3 | awk '{ printf "%s ", $3 }')..."
  fail=$((fail + 1))
else pass=$((pass + 1)); fi
echo "tk symbols: $(tk_syms "$none" | wc -l) where nothing calls tk, $(tk_syms "$calls" | wc -l) in the unit that calls it"
echo "check_o0: $pass passed, $fail failed"
[ $fail = 0 ]
