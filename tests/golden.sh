#!/bin/sh
# Golden test: the generated headers of the portable `generic` CPU, committed under tests/golden/, so
# that a template change shows up in review. usage: golden.sh TKGEN ROOT M4 WORKDIR [--update]
set -u
tkgen=$1 root=$2 m4=$3 work=$4 mode=${5:-check}
rm -rf "$work" && mkdir -p "$work"
"$tkgen" build --root "$root" --cpus generic --default generic --out "$work" --m4 "$m4" || exit 1
status=0
for f in gemm_f32_generic.h ukr_f32_scalar.h; do
  if [ "$mode" = --update ]; then
    cp "$work/tk/gen/$f" "$root/tests/golden/$f"; echo "updated tests/golden/$f"
  elif ! diff -u "$root/tests/golden/$f" "$work/tk/gen/$f"; then
    echo "golden: $f differs from tests/golden/$f (run 'make golden' and review the diff)"; status=1
  fi
done
[ "$mode" = --update ] || { [ $status = 0 ] && echo "golden: 2 passed, 0 failed" || echo "golden: 0 passed, 1 failed"; }
exit $status
