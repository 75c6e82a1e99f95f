#!/bin/bash
# Manual check that `run --exact` output did not change: the JSON report of a
# small program (the two-phase bench program, 5 rounds, full default analysis)
# from a reference binary (e.g. main's) and from this tree's, compared byte for
# byte but for the traced processes' ids. Address-space randomization is off so
# that both runs see the same guest addresses.
#
#   scripts/exact-identical.sh REF_BINARY [NEW_BINARY]
#
# NEW_BINARY defaults to target/debug/bottlenose. Exit 0 when identical.
set -euo pipefail
ref=${1:?usage: $0 REF_BINARY [NEW_BINARY]}
new=${2:-$(dirname "$0")/../target/debug/bottlenose}
for b in "$ref" "$new"; do [ -x "$b" ] || { echo "$b: not an executable" >&2; exit 2; }; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O1 -o "$tmp/phases" "$(dirname "$0")/../bench/programs/phases.c"
for which in ref new; do
    bin=$ref; [ $which = new ] && bin=$new
    BOTTLENOSE_MACHINE=skylake setarch x86_64 -R "$bin" run --exact -q --weights 1.15 --resources p01,frontend,miss_latency \
        --format json -o "$tmp/$which.json" -- "$tmp/phases" 5 >/dev/null
    grep -v '"pid":' "$tmp/$which.json" > "$tmp/$which.nopid"
done
if cmp -s "$tmp/ref.nopid" "$tmp/new.nopid"; then
    echo "identical: --exact JSON of $ref and $new ($(wc -c < "$tmp/new.json") bytes)"
else
    echo "DIFFERENT: --exact JSON of $ref and $new" >&2
    diff "$tmp/ref.nopid" "$tmp/new.nopid" | head -40 >&2
    exit 1
fi
