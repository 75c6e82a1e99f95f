#!/usr/bin/env bash
# Regenerates every measurement output under bench/out/:
#   accuracy.md / accuracy.json   bench/accuracy.py: native measurements of bench/kernels/ vs
#                                 bottlenose run, bottlenose analyze, llvm-mca-19, OSACA
#   native.json, runs/            raw native measurements and model-run JSON
#   compare_blocks_skylake.md     bench/compare_blocks.sh skylake (bottlenose vs llvm-mca, bench/blocks/)
#   compare_blocks_zen4.md        bench/compare_blocks.sh zen4
# and finally BENCHMARKS.md (bench/benchmarks.py: model speed, paper reproductions, dynamic-run
# speed, views cost, and the outputs above).
# Each output starts with the date and the machine (lscpu model name). ~10-15 min on the
# 2-core development VM. Extra arguments go to accuracy.py (e.g. --kernels a,b --skip-osaca).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
stamp() { echo "Generated $(date -u '+%Y-%m-%d %H:%M:%S UTC') on ${model:-unknown CPU} ($(nproc) CPUs, $(uname -r))"; }
echo "== $(stamp)"

echo "== building bottlenose and the QEMU plugin"
cargo build --release -q -p bottlenose -p bottlenose-qemu-plugin
echo "== building the kernels"
bench/kernels/build.sh

if ! command -v osaca >/dev/null 2>&1; then
  echo "note: osaca not found (pip install osaca); its column will be empty" >&2
fi

echo "== accuracy (bench/accuracy.py)"
python3 bench/accuracy.py --no-build "$@"

for m in skylake zen4; do
  echo "== bench/compare_blocks.sh $m"
  { echo "# bottlenose vs llvm-mca-19 on bench/blocks ($m)"; echo; echo "$(stamp)"; echo;
    bench/compare_blocks.sh "$m"; } > "bench/out/compare_blocks_$m.md.tmp"
  mv "bench/out/compare_blocks_$m.md.tmp" "bench/out/compare_blocks_$m.md"
done
echo "== done: $(date -u '+%H:%M:%S UTC'); outputs in bench/out/:"
ls -1 bench/out/*.md bench/out/*.json

echo "== BENCHMARKS.md (bench/benchmarks.py)"
python3 bench/benchmarks.py
