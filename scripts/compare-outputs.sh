#!/usr/bin/env bash
# Compares every public output of two bottlenose binaries: `analyze` (JSON and
# text) on every bench block (x86-64 on skylake and zen4, AArch64 on
# neoverse-v2), and `run --json` on a few bench programs. A refactoring that
# claims "bit-identical" must print no DIFF line.
#
# Usage: scripts/compare-outputs.sh REFERENCE_BINARY [NEW_BINARY]
#   NEW_BINARY defaults to ./target/debug/bottlenose (build it first).
# Outputs are kept in $OUT (default /tmp/bn-compare) for inspection; the
# reference's outputs are reused when already there (delete the dir to redo).
set -uo pipefail
cd "$(dirname "$0")/.."
ref=${1:?usage: $0 REFERENCE_BINARY [NEW_BINARY]}
new=${2:-./target/debug/bottlenose}
out=${OUT:-/tmp/bn-compare}
mkdir -p "$out/ref" "$out/new" "$out/bin"
# A guest program sees the path of the bottlenose that runs it (its environment and
# stack move with it, and with them the instructions it executes): run both
# binaries from paths of the same length, each with its QEMU plugin beside it.
for side in ref new; do
  b=$ref; [[ $side == new ]] && b=$new
  mkdir -p "$out/bin/$side"
  cp "$b" "$out/bin/$side/bottlenose"
  p=$(dirname "$b")/libbottlenose_qemu_plugin.so
  [[ -e $p ]] && cp "$p" "$out/bin/$side/"
done
ref=$out/bin/ref/bottlenose new=$out/bin/new/bottlenose
fail=0
cases=()
for f in bench/blocks/*.s examples/jacobi.s examples/gus-fig4.s; do
  for m in skylake zen4; do
    cases+=("analyze-$(basename "$f" .s)-$m|analyze $f --machine $m")
  done
done
for f in bench/blocks/aarch64/*.s; do
  cases+=("analyze-a64-$(basename "$f" .s)|analyze $f --isa aarch64 --machine neoverse-v2")
done
# options that change the plan: user resources, combinations, fixed iterations
cases+=("analyze-opts-jacobi|analyze examples/jacobi.s --machine skylake --resources p23,p0,window,latency --combine p23,p4 --weights 1.1,1.15,2")
cases+=("analyze-iters-triad|analyze bench/blocks/triad.s --machine zen4 --iterations 1000")
cases+=("analyze-nosens-dot|analyze bench/blocks/dot_4acc.s --machine skylake --no-sensitivity")

run_one() { # name bin dir subcommand args... (options before a program's own arguments)
  local name=$1 bin=$2 dir=$3 sub=$4; shift 4
  if [[ $sub == run ]]; then
    # the report to a file (stderr has the progress, stdout is the program's); a pid is not ours to compare
    "$bin" "$sub" --format json -o "$dir/$name.json" "$@" >"$dir/$name.out" 2>"$dir/$name.err"; echo "exit $?" >>"$dir/$name.err"
    sed -i -E 's/"pid": [0-9]+/"pid": PID/' "$dir/$name.json"
  else
    "$bin" "$sub" --format json "$@" >"$dir/$name.json" 2>"$dir/$name.err"; echo "exit $?" >>"$dir/$name.err"
  fi
  if [[ $sub == analyze ]]; then
    "$bin" "$sub" --format text --no-color "$@" >"$dir/$name.txt" 2>>"$dir/$name.err"
  fi
}

compare() { # name
  local name=$1 ok=1
  for ext in json txt err out; do
    [[ -e $out/ref/$name.$ext ]] || continue
    if ! cmp -s "$out/ref/$name.$ext" "$out/new/$name.$ext"; then
      echo "DIFF $name.$ext"; diff "$out/ref/$name.$ext" "$out/new/$name.$ext" | head -10; ok=0
    fi
  done
  [[ $ok == 1 ]] || fail=1
}

for c in "${cases[@]}"; do
  name=${c%%|*}; read -ra args <<<"${c#*|}"
  [[ -e $out/ref/$name.json ]] || run_one "$name" "$ref" "$out/ref" "${args[@]}"
  run_one "$name" "$new" "$out/new" "${args[@]}"
  compare "$name"
done

# bench programs under QEMU (needs the plugin next to each binary, or
# BOTTLENOSE_QEMU_PLUGIN: cargo build -p bottlenose-qemu-plugin)
for p in matvec branchy; do
  bin=$out/bin/$p
  [[ -x $bin ]] || gcc -O2 -o "$bin" "bench/programs/$p.c" -lm || continue
  for m in skylake; do
    name=run-$p-$m
    [[ -e $out/ref/$name.json ]] || run_one "$name" "$ref" "$out/ref" run --machine $m --max-instructions 3000000 "$bin" 2
    run_one "$name" "$new" "$out/new" run --machine $m --max-instructions 3000000 "$bin" 2
    compare "$name"
  done
done
name=run-matvec-sens
[[ -e $out/ref/$name.json ]] || run_one "$name" "$ref" "$out/ref" run --machine zen4 --max-instructions 2000000 --resources alu0,l2_bw,window --combine frontend,commit --accelerate latency=1.1 "$out/bin/matvec" 1
run_one "$name" "$new" "$out/new" run --machine zen4 --max-instructions 2000000 --resources alu0,l2_bw,window --combine frontend,commit --accelerate latency=1.1 "$out/bin/matvec" 1
compare "$name"

if [[ $fail == 0 ]]; then echo "all ${#cases[@]} analyze cases and the runs are identical"; else echo "differences found"; exit 1; fi
