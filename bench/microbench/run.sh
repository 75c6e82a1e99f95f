#!/bin/sh
# Build bench/microbench and run it pinned to one CPU.
#
#   bench/microbench/run.sh [RUNS] [-- microbench options]
#
# RUNS (default 3) whole runs of the program; each run already takes the minimum over
# its --rounds; this script keeps, per kernel, the minimum over the runs and prints
# the Markdown tables and the TOML fragment of the best run per kernel (re-derived by
# `microbench --merge`). Output also goes to build/results.md.
# BENCH_CPU picks the CPU (default: the highest-numbered one, as bench/harness does).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
runs=${1:-3}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
mkdir -p "$here/build"
gcc -O2 -Wall -Wextra -o "$here/build/microbench" "$here/microbench.c" "$here/kernels.S" -lm
cpu=${BENCH_CPU:-$(( $(nproc) - 1 ))}
raw=""
i=1
while [ "$i" -le "$runs" ]; do
    taskset -c "$cpu" "$here/build/microbench" --dump "$@" > "$here/build/run$i.tsv"
    raw="$raw $here/build/run$i.tsv"
    i=$((i + 1))
done
# shellcheck disable=SC2086
"$here/build/microbench" --merge $raw | tee "$here/build/results.md"
