#!/bin/sh
# `tkgen detect` on saved /proc/cpuinfo files: each file in tests/cpuinfo/ starts with
#   # expect CPU: what the file is
# and detect --cpuinfo FILE must print CPU. The registry's x86 rows match x86 flags, and tkgen
# takes arch= from the machine it runs on, so the files are x86's and the test skips elsewhere.
# An unreadable file is an error, not a silent `generic`.
# usage: detect.sh TKGEN ROOT
set -u
tkgen=$1 root=$2
. "$(dirname "$0")/lib.sh"
case "$(uname -m)" in x86_64|amd64) ;; *) echo "detect: x86 cpuinfo files on $(uname -m): skipped"; exit 77 ;; esac
for f in "$root"/tests/cpuinfo/*.txt; do
  want=$(sed -n '1s/^# expect \([^:]*\):.*/\1/p' "$f")
  [ -n "$want" ] || { bad "$f: no '# expect CPU:' line"; continue; }
  got=$("$tkgen" detect --root "$root" --cpuinfo "$f" 2>&1)
  if [ "$got" = "$want" ]; then ok; else bad "$f: detected '$got', want '$want'"; fi
done
out=$("$tkgen" detect --root "$root" --cpuinfo "$root/tests/cpuinfo/missing.txt" 2>&1); rc=$?
case "$rc:$out" in 1:*"cannot read"*missing.txt*) ok ;; *) bad "missing file: exit $rc: $out" ;; esac
finish detect
