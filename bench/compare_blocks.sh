#!/usr/bin/env bash
# Cycles per iteration of the blocks in bench/blocks/ from bottlenose and llvm-mca-19 (same machine).
# Usage: bench/compare_blocks.sh [skylake|zen4]   (prints a markdown table)
set -euo pipefail
cd "$(dirname "$0")/.."
machine=${1:-skylake}
case $machine in skylake) mcpu=skylake ;; zen4) mcpu=znver4 ;; *) echo "unknown machine $machine" >&2; exit 1 ;; esac
bn=./target/release/bottlenose
[ -x $bn ] || cargo build --release -q -p bottlenose
echo "| block | bottlenose $machine | llvm-mca-19 -mcpu=$mcpu | ratio | bottlenose's top bottleneck |"
echo "| --- | ---: | ---: | ---: | --- |"
for f in examples/jacobi.s bench/blocks/*.s; do
  name=$(basename "$f" .s)
  json=$($bn analyze "$f" --machine "$machine" --format json --weights 1.15 2>/dev/null)
  ours=$(printf '%s' "$json" | python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["cycles_per_iteration"])')
  top=$(printf '%s' "$json" | python3 -c 'import json,sys; b=json.load(sys.stdin)["bottlenecks"]; print("+".join(b[0]["resources"]) + " (%+.1f%%)" % (100*b[0]["speedup"]) if b else "-")')
  mca=$(llvm-mca-19 -mcpu=$mcpu -iterations=1000 "$f" 2>/dev/null | awk '/^Total Cycles:/ {printf "%.2f", $3/1000}')
  ratio=$(python3 -c "print('%.2f' % ($ours/$mca))" 2>/dev/null || echo "-")
  echo "| $name | $ours | $mca | $ratio | $top |"
done
