#!/usr/bin/env bash
# The whole test suite (unit, integration, paper reproductions, CLI). Builds the QEMU plugin first: the dynamic tests load it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo build --workspace
# the fuzz seed corpora from the project's files, so that the replay tests of
# crates/fuzz-targets run them too (with the committed seeds and crash regressions)
python3 fuzz/make_seeds.py >/dev/null
cargo test --workspace "$@"
# a short fuzz run of every target, so that new code is fuzzed too (about 4 minutes:
# the cargo-fuzz build, then FUZZ_SECONDS per target; a crash fails the suite and
# leaves its input in fuzz/artifacts/)
if [ "${FUZZ_SECONDS:-10}" -gt 0 ]; then
    bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}"
fi
