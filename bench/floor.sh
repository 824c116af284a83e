#!/usr/bin/env bash
# bench/floor.sh — how fast the default method could be if its language models and trees cost
# nothing: the floor that the rest of the pipeline (decoding, lol_html and the block-cutting
# handlers, sentences, the block's shape, document evidence, rendering) sets by itself.
#
# Builds the current commit with bench/experiments/without-models.patch applied (in a temporary git
# worktree, into target/floor): that build behaves as the default unless NO_LM is set (no
# language-model lookup: the models' evidence is 0) or NO_TREES (the trees replaced by a rule
# on the word count). The output of those two is not the default's; they only time what is left.
# Then times, interleaved, on the CleanEval pages concatenated COPIES times on stdin: the ceiling
# (bench/ceiling), the default, NO_LM, and NO_LM with NO_TREES, each with -j1, and prints each
# one's median wall time and throughput over the ceiling's.
#
# Environment (defaults in brackets):
#   DATA [../shared/data/cleaneval]   CleanEval, with {tune,dev}/input/*.html
#   COPIES [4]                         copies of the 386 pages in the stream (4: 60.5 MB)
#   RUNS [7]                           timed runs of each case (after one warm-up)
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=${DATA:-../shared/data/cleaneval}
COPIES=${COPIES:-4}
RUNS=${RUNS:-7}
die() { printf 'bench/floor.sh: %s\n' "$*" >&2; exit 2; }
progress() { printf '[floor %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

[[ -d "$DATA/tune/input" && -d "$DATA/dev/input" ]] || die "CleanEval not found in $DATA (set DATA)"
tmp=$(mktemp -d)
tree="$tmp/tree"
cleanup() { git worktree remove --force "$tree" 2> /dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

progress "building the patched copy of $(git rev-parse --short HEAD) (target/floor)"
git worktree add --quiet --detach "$tree" HEAD
git -C "$tree" apply "$PWD/bench/experiments/without-models.patch" || die "the patch no longer applies"
cargo build --release --locked --quiet --manifest-path "$tree/Cargo.toml" --target-dir target/floor
cargo build --release --locked --quiet --manifest-path bench/ceiling/Cargo.toml --target-dir target/floor
ppl=target/floor/release/ppl-filter
ceiling=target/floor/release/lol-ceiling

for _ in $(seq "$COPIES"); do cat "$DATA"/tune/input/*.html "$DATA"/dev/input/*.html; done > "$tmp/pages.html"
mb=$(stat -c %s "$tmp/pages.html" | awk '{ printf "%.1f", $1 / 1e6 }')

cases=(ceiling default no-lm no-lm-no-trees)
run_case() {
    case $1 in
        ceiling) "$ceiling" ;;
        default) "$ppl" -j1 -q ;;
        no-lm) NO_LM=1 "$ppl" -j1 -q ;;
        no-lm-no-trees) NO_LM=1 NO_TREES=1 "$ppl" -j1 -q ;;
    esac < "$tmp/pages.html" > /dev/null 2>&1 || [[ $? -eq 1 ]]
}
seconds() {  # seconds CASE — wall seconds of one run
    local start end
    start=$(date +%s.%N)
    run_case "$1"
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}
progress "timing $RUNS runs of each case on $mb MB"
for c in "${cases[@]}"; do run_case "$c"; done   # warm-up
for _ in $(seq "$RUNS"); do
    for c in "${cases[@]}"; do seconds "$c" >> "$tmp/$c.times"; done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
base=$(median "$tmp/ceiling.times")
echo "ppl-filter -j1 on $mb MB of CleanEval pages on stdin; median wall of $RUNS runs"
echo ""
echo "| case | wall s | MB/s | × ceiling |"
echo "|---|---:|---:|---:|"
for c in "${cases[@]}"; do
    m=$(median "$tmp/$c.times")
    awk -v c="$c" -v m="$m" -v mb="$mb" -v base="$base" \
        'BEGIN { printf "| %s | %.3f | %.1f | %.3f |\n", c, m, mb / m, base / m }'
done
