#!/usr/bin/env bash
# Regenerates every measurement output under bench/out/:
#   accuracy.md / accuracy.json   bench/accuracy.py: native measurements of bench/kernels/ on this
#                                 host vs bottlenose run/analyze --machine host, llvm-mca-19 and
#                                 OSACA on the models `bottlenose machines host` names (a full run
#                                 is also recorded in bench/accuracy_history.json)
#   native.json, runs/            raw native measurements and model-run JSON
#   compare_blocks_skylake.md     bench/compare_blocks.sh skylake (bottlenose vs llvm-mca, bench/blocks/)
#   compare_blocks_zen4.md        bench/compare_blocks.sh zen4
#   strings.md / strings.json     bench/strings.py: rep movs/stos/cmps/scas/lods natively vs
#                                 bottlenose run --machine host
#   aarch64.md / aarch64.json     bench/aarch64.py: AArch64 simulation speed under qemu-aarch64 and
#                                 analyze vs llvm-mca-19 on bench/blocks/aarch64/ (no Arm hardware)
#   sampling.md / sampling.json   bench/sampling.py: sampled against exact runs of ten programs of
#                                 10^8-10^9 instructions (issue 19's bars)
#   exact_speed.md                bench/exact_speed.py: exact mode end to end (simulated instructions/s)
#   prefix.md                     bench/prefix.py: a default run's exact prefix as the variants time
#                                 it, against the exact run, on programs a few times its length
#   sampling_cost.md              bench/sampling_cost.py: the full default analysis against the
#                                 sampled model alone (issue 19: at most 1.5x)
#   coverage.md                   bench/coverage.py: the cycles', functions' and loops' intervals against exact runs of
#                                 short programs over fixed periods and seeds (about 2 min)
# and finally BENCHMARKS.md (bench/benchmarks.py: model speed, paper reproductions, dynamic-run
# speed, views cost, and the outputs above).
# Each output starts with the date and the CPU (`bottlenose machines host`, else lscpu). ~15-20 min (plus about an hour for bench/sampling.py)
# on the 2-core development VM. Extra arguments go to accuracy.py (e.g. --skip-osaca).
# BENCH_KERNELS=a,b bench/run.sh: a quick check on those kernels only: builds them, runs
# accuracy.py on them (not recorded in the history) and stops there (BENCHMARKS.md untouched).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
stamp() { echo "Generated $(date -u '+%Y-%m-%d %H:%M:%S UTC') on ${model:-unknown CPU} ($(nproc) CPUs, $(uname -r))"; }

echo "== building bottlenose and the QEMU plugin"
cargo build --release -q -p bottlenose -p bottlenose-qemu-plugin
# the CPU as bottlenose identifies it (one line with its signature); lscpu's model name otherwise
host=$(target/release/bottlenose machines host --format json 2>/dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["cpu"])' 2>/dev/null) && model=$host ||
  echo "warning: \`bottlenose machines host\` failed; naming the CPU by lscpu" >&2
echo "== $(stamp)"
echo "== building the kernels"
# shellcheck disable=SC2086
bench/kernels/build.sh ${BENCH_KERNELS:+$(echo "$BENCH_KERNELS" | tr ',' ' ')}

if ! command -v osaca >/dev/null 2>&1; then
  # the peer's column needs it; a failed install leaves the column empty, not the run
  pip install -q osaca >/dev/null 2>&1 || echo "note: osaca not found and pip install osaca failed; its column will be empty" >&2
fi

echo "== accuracy (bench/accuracy.py)"
python3 bench/accuracy.py --no-build "$@"   # reads BENCH_KERNELS
if [ -n "${BENCH_KERNELS:-}" ]; then
  echo "== BENCH_KERNELS=$BENCH_KERNELS: subset only: accuracy.md/json written, compare_blocks and BENCHMARKS.md skipped"
  exit 0
fi

echo "== string instructions (bench/strings.py)"
python3 bench/strings.py --no-build-bottlenose

echo "== AArch64 (bench/aarch64.py)"
python3 bench/aarch64.py
echo "== sampled against exact runs (bench/sampling.py; about an hour of CPU)"
python3 bench/sampling.py
echo "== the full default analysis against the sampled model alone (bench/sampling_cost.py)"
python3 bench/sampling_cost.py --bin target/release/bottlenose
echo "== exact mode end to end (bench/exact_speed.py)"
python3 bench/exact_speed.py --bin target/release/bottlenose
echo "== a default run's exact prefix against the exact run (bench/prefix.py)"
python3 bench/prefix.py --bin target/release/bottlenose
echo "== the cycles' intervals over sampling periods and seeds (bench/coverage.py)"
python3 bench/coverage.py --bin target/release/bottlenose

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
