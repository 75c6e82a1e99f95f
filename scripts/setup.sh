#!/usr/bin/env bash
# Fresh machine: install what bottlenose needs, build everything (CLI and QEMU plugin), and analyze the bundled Jacobi kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo build --release --workspace
./target/release/bottlenose analyze examples/jacobi.s --machine skylake
