#!/usr/bin/env bash
# Fuzzes bottlenose's input parsers.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Builds the cargo-fuzz targets in fuzz/ (their own workspace; each calls
# crates/fuzz-targets) with the stable toolchain (RUSTC_BOOTSTRAP=1, no
# sanitizer: see fuzz/README.md), writes the seed corpora
# (fuzz/make_seeds.py), then runs each target for SECONDS (default 60) one
# after the other on one core, starting from its corpus, seeds and committed
# crash regressions, and prints per target the executions run and the
# crashing inputs found (fuzz/artifacts/TARGET/, with the panic message).
# Exits 1 when any target crashed (or timed out / ran out of memory), 2 when
# cargo-fuzz or the build failed. scripts/test.sh (CI) runs it for a few
# seconds per target.
#
# Environment: FUZZ_JOBS (cargo build jobs, default 2), FUZZ_RSS_MB (memory
# limit per input, default 2048), FUZZ_NICE (nice level, default 10).
set -uo pipefail

cd "$(dirname "$0")/../fuzz"
SECONDS_EACH=${1:-60}
shift || true
ALL_TARGETS=(hex asm_offline asm_gnu_as decode_resolve machine_loader metric_expr elf_sources elf_attribution qemu_stream counters_import numeric_args)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi
JOBS=${FUZZ_JOBS:-2}
RSS=${FUZZ_RSS_MB:-2048}
NICE=${FUZZ_NICE:-10}

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    echo "== installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked >&2 || { echo "cannot install cargo-fuzz" >&2; exit 2; }
fi

# libFuzzer wants nightly-only rustc flags (-Cpasses=sancov-module ...):
# RUSTC_BOOTSTRAP=1 lets the stable compiler take them. ASan needs a nightly
# std, so no sanitizer: Rust's own checks (bounds, overflow, debug asserts)
# are what catch bugs here.
build() {
    RUSTC_BOOTSTRAP=1 CARGO_BUILD_JOBS=$JOBS nice -n "$NICE" cargo fuzz build --sanitizer none "$@"
}
echo "== building fuzz targets" >&2
if ! build >build.log 2>&1; then
    tail -30 build.log >&2
    echo "fuzz build failed (fuzz/build.log)" >&2
    exit 2
fi
BIN=target/x86_64-unknown-linux-gnu/release

echo "== seed corpora" >&2
python3 make_seeds.py >&2 || echo "   (seeding failed: the targets start from what fuzz/corpus has)" >&2

max_len() {
    case "$1" in
        asm_gnu_as) echo 512 ;;       # one `as` process per input
        numeric_args) echo 256 ;;
        decode_resolve) echo 512 ;;
        metric_expr) echo 2048 ;;
        hex) echo 4096 ;;
        asm_offline | qemu_stream | counters_import) echo 8192 ;;
        machine_loader) echo 16384 ;;
        elf_sources | elf_attribution) echo 65536 ;;
        *) echo 4096 ;;
    esac
}

mkdir -p logs artifacts
printf '%-16s %12s %8s  %s\n' target executions crashes artifacts
status=0
for t in "${TARGETS[@]}"; do
    if [ ! -x "$BIN/$t" ]; then
        printf '%-16s %12s %8s  %s\n' "$t" - - "not built (see fuzz/build.log)"
        continue
    fi
    mkdir -p "corpus/$t" "artifacts/$t"
    before=$(ls "artifacts/$t" | wc -l)
    # new finds go to corpus/ (the first directory, which make_seeds.py filled); the
    # committed crash inputs are read too
    extra=()
    [ -d "regressions/$t" ] && extra+=("regressions/$t")
    # -fork=1 with -ignore_*: one worker process; a crash is saved and fuzzing
    # goes on, so one run can find several bugs.
    nice -n "$NICE" "$BIN/$t" "corpus/$t" "${extra[@]}" \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$t")" \
        -timeout=10 -rss_limit_mb="$RSS" -artifact_prefix="artifacts/$t/" \
        -print_final_stats=1 >"logs/$t.log" 2>&1
    # fork mode's progress lines: "#N: cov: .. exec/s: .. oom/timeout/crash: a/b/c time: .."
    execs=$(grep -oE '^#[0-9]+: cov:' "logs/$t.log" | tail -1 | tr -dc '0-9')
    [ -n "$execs" ] || execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "logs/$t.log" | tail -1 | grep -oE '[0-9]+$')
    after=$(ls "artifacts/$t" | wc -l)
    crashes=$((after - before))
    note=""
    if [ "$crashes" -gt 0 ]; then
        status=1
        note="fuzz/artifacts/$t/ (log: fuzz/logs/$t.log)"
    fi
    printf '%-16s %12s %8s  %s\n' "$t" "${execs:-?}" "$crashes" "$note"
    if [ "$crashes" -gt 0 ]; then
        # what broke, for a CI log: the panic lines and the newest inputs
        grep -E "panicked at|^attempt to|assertion|ERROR: libFuzzer" "logs/$t.log" | sort | uniq -c | head -10 | sed 's/^/    /'
        ls -t "artifacts/$t" | head -"$crashes" | head -5 | while read -r f; do
            echo "    artifacts/$t/$f: $(head -c 64 "artifacts/$t/$f" | od -An -tx1 | tr -s ' \n' ' ')"
        done
    fi
done
exit $status
