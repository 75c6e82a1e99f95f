#!/usr/bin/env bash
# Builds the REP string kernels of bench/strings/ (rep_string.c with the common driver
# bench/harness/harness.c) into bench/out/bin/rep_OP_SIZE, one per operation and size.
# Usage: bench/strings/build.sh            every kernel bench/strings.py measures
#        bench/strings/build.sh OP SIZE...  only those sizes of OP
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-gcc}
out=out/bin
mkdir -p "$out"
$CC -O2 -fno-pie -g -Wall -c harness/harness.c -Iharness -o "$out/harness.o"
build() {  # OP SIZE; OP movsb+chain: rep movsb beside an independent imul chain (-DCHAIN)
  local name="rep_${1/+/_}_$2" op=${1%+chain} chain=
  [ "$op" != "$1" ] && chain=-DCHAIN
  $CC -O2 -g -fno-pie -no-pie -Wall -DOP_"$op" $chain -DSIZE="$2" -DNAME="$name" -Iharness \
    -c strings/rep_string.c -o "$out/$name.o"
  $CC -no-pie "$out/$name.o" "$out/harness.o" -o "$out/$name"
}
if [ $# -ge 2 ]; then
  op=$1; shift
  for s in "$@"; do build "$op" "$s"; done
  exit 0
fi
# keep in step with KERNELS in bench/strings.py
for op in movsb movsq stosb stosq; do
  for s in 64 1024 32768 1048576 16777216; do build "$op" "$s"; done
done
for op in cmpsb scasb lodsb; do
  for s in 64 1024 32768; do build "$op" "$s"; done
done
for s in 64 1024 4096 16384; do build movsb+chain "$s"; done
echo "built the REP string kernels into bench/$out" >&2
