#!/bin/sh
# The headers never allocate: objects compiled from them reference no malloc/calloc/realloc/free.
# usage: check_nomalloc.sh NM OBJECT...
nm=$1; shift
bad=0
for o in "$@"; do
  refs=$("$nm" -u "$o" | grep -E '\b(malloc|calloc|realloc|free|aligned_alloc|posix_memalign)\b')
  if [ -n "$refs" ]; then echo "$o references: $refs"; bad=1; fi
  echo "$o: $("$nm" -u "$o" | wc -l) undefined symbols, none an allocator"
done
[ $bad = 0 ] && echo "check_nomalloc: 1 passed, 0 failed" || echo "check_nomalloc: 0 passed, 1 failed"
exit $bad
