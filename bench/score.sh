#!/usr/bin/env bash
# Benchmark of `ppl-eval score`: wall time of scoring all 386 CleanEval pairs (tune + dev)
# in release mode, median of 5 runs.
#
# The "cleaned" side is a hard, no-cleaning baseline made on the fly: every raw input page
# with its tags stripped by sed (boilerplate, scripts and all), so the alignments are long
# and far from the gold. Gold and stripped pages of both sets go into one temporary pair of
# directories, named tune-N.txt / dev-N.txt.
#
# Environment: DATA (default: ../shared/data/cleaneval next to the repo, or
# /work/shared/data/cleaneval), PPL_EVAL (a prebuilt binary; default: build with cargo),
# RUNS (default 5).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
data="${DATA:-}"
if [[ -z "$data" ]]; then
    for d in "$repo/../shared/data/cleaneval" /work/shared/data/cleaneval; do
        [[ -d "$d" ]] && { data="$d"; break; }
    done
fi
[[ -d "${data:-}" ]] || { echo "score.sh: CleanEval data not found (set DATA)" >&2; exit 2; }
runs="${RUNS:-5}"

bin="${PPL_EVAL:-}"
if [[ -z "$bin" ]]; then
    (cd "$repo" && cargo build --release --quiet --bin ppl-eval)
    bin="$(cd "$repo" && cargo metadata --format-version 1 --no-deps 2>/dev/null \
        | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/release/ppl-eval"
    [[ -x "$bin" ]] || bin="$repo/target/release/ppl-eval"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gold" "$work/stripped"
n=0
for set in tune dev; do
    for f in "$data/$set"/input/*.html; do
        id="$(basename "$f" .html)"
        [[ -f "$data/$set/gold/$id.txt" ]] || continue
        cp "$data/$set/gold/$id.txt" "$work/gold/$set-$id.txt"
        sed -e 's/<[^>]*>//g' "$f" > "$work/stripped/$set-$id.txt"
        n=$((n + 1))
    done
done
echo "pairs: $n (gold vs tag-stripped raw HTML)"

"$bin" score "$work/stripped" "$work/gold"

times=()
for _ in $(seq "$runs"); do
    start=$(date +%s.%N)
    "$bin" score "$work/stripped" "$work/gold" > /dev/null
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
printf 'runs (s): %s\n' "$(printf '%.3f ' "${times[@]}")"
printf 'median wall time, %d runs, %d pairs: %.3f s\n' "$runs" "$n" "$median"
