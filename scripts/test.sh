#!/usr/bin/env bash
# The whole test suite (unit, integration, paper reproductions, CLI). Builds the QEMU plugin first: the dynamic tests load it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo build --workspace
cargo test --workspace "$@"
