#!/bin/sh
# A unit whose calls of tk all have literal shapes refers to no table: its object has no
# configuration array (tki_gemm_f32_cfgs_<cpu>, which names every row's kernels), where a unit with
# run-time shapes has it (which shows that nm sees it). The kernel symbols of each are counted for
# the reader (spr: 111 against 662); on the small tables they are the same few.
# usage: check_literal.sh NM LITERAL_OBJECT RUNTIME_OBJECT
nm=$1 lit=$2 run=$3
pass=0 fail=0
kernels() { "$nm" "$1" | grep -c ' [tT] tki_ukr_'; }
if "$nm" "$run" | grep -q ' tki_gemm_f32_cfgs_'; then pass=$((pass + 1)); else
  echo "$run: no tki_gemm_f32_cfgs_ array in a unit of run-time shapes"; fail=$((fail + 1)); fi
if "$nm" "$lit" | grep -q ' tki_gemm_f32_cfgs_'; then
  echo "$lit: a unit of literal shapes has the table's array: $("$nm" "$lit" | grep ' tki_gemm_f32_cfgs_')"; fail=$((fail + 1))
else pass=$((pass + 1)); fi
echo "kernels: $(kernels "$lit") in the literal unit, $(kernels "$run") in the run-time one"
echo "check_literal: $pass passed, $fail failed"
[ $fail = 0 ]
