#!/bin/sh
# Mutation fuzzing of the table parser: every committed table and the registry, mutated N times
# (token replaced by garbage, line duplicated or dropped, number blown up, file cut short). tkgen
# check must end with 0 or 1 (never a crash or hang), and every error line must read `file:line: `.
# usage: fuzz_tables.sh TKGEN ROOT WORKDIR [N]
set -u
tkgen=$1 root=$2 work=$3 n=${4:-200}
mkdir -p "$work"
pass=0 fail=0 i=0
files=$(ls "$root"/tuning_tables/*/*.tkt "$root"/tuning_tables/registry.tkr)
nf=$(echo "$files" | wc -l)
while [ $i -lt $n ]; do
  src=$(echo "$files" | sed -n "$((i % nf + 1))p")
  ext=${src##*.}
  f="$work/fuzz$i.$ext"
  awk -v seed=$i 'BEGIN { srand(seed); op = int(rand() * 6); target = 0 }
    { lines[NR] = $0 }
    END {
      t = int(rand() * NR) + 1
      for (l = 1; l <= NR; l++) {
        s = lines[l]
        if (l == t) {
          nt = split(s, tok, /[ \t]+/); w = int(rand() * nt) + 1
          if (op == 0) { tok[w] = "@#x9"; s = ""; for (q = 1; q <= nt; q++) s = s " " tok[q] }
          else if (op == 1) { print s }
          else if (op == 2) { continue }
          else if (op == 3) { tok[w] = "99999999999999999999"; s = ""; for (q = 1; q <= nt; q++) s = s " " tok[q] }
          else if (op == 4) { s = substr(s, 1, int(rand() * length(s))); print s; exit }
          else { tok[w] = tok[w] ".." ; s = ""; for (q = 1; q <= nt; q++) s = s " " tok[q] }
        }
        print s
      }
    }' "$src" > "$f"
  out=$(timeout 10 "$tkgen" check --root "$root" "$f" 2>&1); rc=$?
  if [ $rc -gt 1 ]; then
    fail=$((fail + 1)); echo "FAIL: $f (from $src): exit $rc: $out"
  elif [ -n "$out" ] && echo "$out" | grep -qv "^$f:[0-9]*: "; then
    fail=$((fail + 1)); echo "FAIL: $f: error without file:line: $out"
  else
    pass=$((pass + 1)); rm -f "$f"
  fi
  i=$((i + 1))
done
echo "fuzz_tables: $pass passed, $fail failed"
[ $fail = 0 ]
