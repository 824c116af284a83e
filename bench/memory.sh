#!/usr/bin/env bash
# bench/memory.sh — peak RSS of ppl-filter on the pathological inputs of a crawl, at the default
# thread count and at -j16: every generated stream is piped in (nothing large touches the disk).
#
# Cases (bench/gen_stream.py makes them): the CleanEval pages with one huge text node (as in
# bench/run.sh), one-word paragraphs, a huge CJK text node, unclosed list items, deeply nested
# divs and tables, a huge attribute, and a WARC response whose gzip body inflates to 64 MiB;
# the huge page and the WARC response also with --format json (records are held in 4 MiB of
# memory, the rest spooled to a temporary file).
# Targets: ≤ 64 MB at the default -j, ≤ 96 MB at -j16.
#
# Environment: STREAM_MB [1000] size of the two 1 GB streams; CASE_SCALE [1] multiplies the
# other cases' sizes; DATA [../shared/data/cleaneval]; PPL_FILTER (a prebuilt binary).
set -euo pipefail
cd "$(dirname "$0")/.."
STREAM_MB=${STREAM_MB:-1000}
CASE_SCALE=${CASE_SCALE:-1}
DATA=${DATA:-../shared/data/cleaneval}
[[ -x /usr/bin/time ]] || { apt-get update -qq && apt-get install -y -qq time; } >&2
if [[ -z "${PPL_FILTER:-}" ]]; then
    cargo build --release --locked --quiet
fi
ppl=${PPL_FILTER:-target/release/ppl-filter}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat "$DATA"/tune/input/*.html "$DATA"/dev/input/*.html > "$tmp/pages.html"

# case NAME GENERATOR-ARGS... : one row, the generator piped into ppl-filter at both -j.
row() {
    local name=$1 cells="" status
    shift
    for j in default 16; do
        local flags=()
        [[ $j == default ]] || flags=(-j "$j")
        set +e
        python3 bench/gen_stream.py "$@" | /usr/bin/time -f '%M %e' -o "$tmp/time" "$ppl" -q "${flags[@]}" \
            "${input_flags[@]}" > /dev/null 2> "$tmp/stderr"
        status=("${PIPESTATUS[@]}")
        set -e
        read -r kib seconds < <(tail -n 1 "$tmp/time")
        local mb limit
        mb=$(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }')
        limit=$([[ $j == default ]] && echo 64 || echo 96)
        verdict=$(awk -v a="$mb" -v b="$limit" 'BEGIN { print (a + 0 <= b + 0) ? "ok" : "MISS" }')
        (( status[1] <= 2 )) || verdict="exit ${status[1]}: $(head -c 200 "$tmp/stderr")"
        cells+=" $mb ($seconds s, exit ${status[1]}) | $verdict |"
    done
    printf '| %s |%s\n' "$name" "$cells"
}

printf 'ppl-filter peak RSS MB (wall s, exit status); default -j = %s cores. %s\n\n' "$(nproc)" "$(date -u +%F)"
printf '| input | default -j | ≤ 64 MB | -j16 | ≤ 96 MB |\n|---|---:|---|---:|---|\n'
input_flags=()
row "$STREAM_MB MB: CleanEval pages + one $((STREAM_MB / 5)) MB text node" pages "$((STREAM_MB * 1000000))" 20 "$tmp/pages.html"
input_flags=(--format json)
row "the same, \`--format json\` (one record)" pages "$((STREAM_MB * 1000000))" 20 "$tmp/pages.html"
input_flags=()
row "$STREAM_MB MB of \`<p>a</p>\`" tiny "$((STREAM_MB * 1000000))"
row "\`<p>a</p>\` × 2^22 (33 MB)" tiny "$(( (1 << 22) * 8 * CASE_SCALE ))"
row "\`<p>\` + 中 × 30 M (90 MB text node)" cjk "$((30000000 * CASE_SCALE))"
row "\`<li>item \` × 7 M (63 MB)" li "$((7000000 * CASE_SCALE))"
row "1 M nested \`<div>\`" div "$((1000000 * CASE_SCALE))"
row "300 K nested \`<table>\`" table "$((300000 * CASE_SCALE))"
row "a 300 MB attribute" attribute "$((300000000 * CASE_SCALE))"
input_flags=(--input warc)
row "WARC response, gzip body inflating to 64 MiB (WARC out)" warc-gzip "$((8388608 * CASE_SCALE))"
input_flags=(--input warc --format json)
row "the same, \`--format json\`" warc-gzip "$((8388608 * CASE_SCALE))"
