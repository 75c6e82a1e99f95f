#!/usr/bin/env bash
# Builds every kernel of bench/kernels/ with the common driver bench/harness/harness.c
# into bench/out/bin/NAME (non-PIE, so run-time addresses equal ELF addresses).
# Per-kernel extra flags come from a "/* CFLAGS: ... */" line in the kernel file.
# Usage: bench/kernels/build.sh [NAME...]
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-gcc}
# AVX2 + FMA (x86-64-v3): QEMU 7.2's TCG executes these, but not AVX-512.
COMMON="-O3 -march=x86-64-v3 -mtune=znver3 -g -fno-pie -no-pie -Wall -Wno-unused-function"
out=out/bin
mkdir -p "$out"
$CC -O2 -fno-pie -g -Wall -c harness/harness.c -Iharness -o "$out/harness.o"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in kernels/*.c; do names+=("$(basename "$f" .c)"); done
fi
for n in "${names[@]}"; do
  src=kernels/$n.c
  extra=$(sed -n 's@^/\* CFLAGS: \(.*\) \*/$@\1@p' "$src" | head -1)
  # shellcheck disable=SC2086
  $CC $COMMON $extra -Iharness -c "$src" -o "$out/$n.o"
  $CC -no-pie "$out/$n.o" "$out/harness.o" -o "$out/$n"
done
echo "built ${#names[@]} kernels into bench/$out" >&2
