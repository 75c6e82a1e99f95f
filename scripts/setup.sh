#!/usr/bin/env bash
# Fresh machine: install what bottlenose needs, build everything (CLI and QEMU plugin),
# analyze the bundled Jacobi kernel, then run the bundled example program
# (examples/dot.c, the README's quick start) under the model and print its verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo build --release --workspace
./target/release/bottlenose analyze examples/jacobi.s --machine skylake
mkdir -p target/examples
gcc -O2 -g -o target/examples/dot examples/dot.c
./target/release/bottlenose run -- target/examples/dot
