#!/usr/bin/env bash
# bench/profile.sh — where ppl-filter's time goes, stage by stage (the table in the README's
# "Speed and memory").
#
# Samples the call graph of `ppl-filter -j1` (default flags) over the CleanEval pages
# concatenated into one stream on stdin, with Linux perf, and prints each stage's inclusive share
# of the samples: a stage's share counts the functions it calls. Stages are named by the
# functions that start them (below); perf must be allowed to sample this process
# (/proc/sys/kernel/perf_event_paranoid ≤ 2, or root).
#
# Environment (defaults in brackets):
#   DATA [../shared/data/cleaneval]   CleanEval, with {tune,dev}/input/*.html
#   PPL_FILTER                         a prebuilt binary (skips the cargo build)
#   FREQ [2000]                        samples per second
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=${DATA:-../shared/data/cleaneval}
FREQ=${FREQ:-2000}
die() { printf 'bench/profile.sh: %s\n' "$*" >&2; exit 2; }

[[ -d "$DATA/tune/input" && -d "$DATA/dev/input" ]] || die "CleanEval not found in $DATA (set DATA)"
if ! command -v perf > /dev/null; then
    printf '[profile] installing linux-perf\n' >&2
    { apt-get update -qq && apt-get install -y -qq linux-perf; } >&2 || die "perf (Debian's linux-perf) is needed"
fi
if [[ -z "${PPL_FILTER:-}" ]]; then
    # The `profiling` profile is the release build with line tables, for perf's call graphs.
    printf '[profile] building ppl-filter (cargo build --profile profiling --locked)\n' >&2
    cargo build --profile profiling --locked --quiet
fi
ppl=${PPL_FILTER:-target/profiling/ppl-filter}
[[ -x "$ppl" ]] || die "missing binary $ppl"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat "$DATA"/tune/input/*.html "$DATA"/dev/input/*.html > "$tmp/pages.html"
perf record -q --call-graph dwarf,32768 -F "$FREQ" -o "$tmp/perf.data" \
    "$ppl" -j1 -q < "$tmp/pages.html" > /dev/null 2> "$tmp/stderr" \
    || { cat "$tmp/stderr" >&2; die "perf record failed"; }
# One line per symbol: inclusive share, then the symbol. perf may list a symbol more than once
# (samples whose call chains it unwound differently); the lines of one symbol are added up.
perf report -i "$tmp/perf.data" --children --sort symbol -g none --percent-limit 0.1 --stdio \
    2> /dev/null | awk '/^ +[0-9.]+%/ {
        symbol = $0
        sub(/^ *[0-9.]+% +[0-9.]+% +\[[^]]*\] +/, "", symbol)
        sub(/[[:space:]-]+$/, "", symbol)   # perf pads with spaces and empty (-) columns
        sub(/%/, "", $1)
        total[symbol] += $1
    }
    END { for (s in total) print total[s], s }' > "$tmp/shares"

share() {  # share PATTERN — the inclusive share of the one symbol matching PATTERN (0 if none)
    awk -v p="$1" '{ s = $0; sub(/^[^ ]+ /, "", s) } s ~ p { if ($1 > m) m = $1 } END { printf "%.1f", m + 0 }' "$tmp/shares"
}
row() { printf '| %s | %s %% |\n' "$1" "$(share "$2")"; }

echo "ppl-filter -j1 over $(stat -c %s "$tmp/pages.html" | awk '{ printf "%.1f", $1 / 1e6 }') MB of CleanEval pages; inclusive share of the samples"
echo ""
echo "| stage (function) | share |"
echo "|---|---:|"
row "reader: lol_html and the block-cutting handlers (html::BlockParser::write)" 'html::BlockParser::write$'
row "· the handlers' text path (html::state::State::append_words)" 'html::state::State::append_words$'
row "reader: decoding to UTF-8 (encoding_rs::Decoder::decode_to_utf8)" 'encoding_rs::Decoder::decode_to_utf8$'
row "workers: sentences and evidence (pipeline::process)" 'pipeline::process$'
row "· evidence of a block (evidence::measure::measure)" 'evidence::measure::measure$'
row "· language-model scoring (lm::model::LanguageModel::log2_prob_pair)" 'log2_prob_pair'
row "· tokenizing (lm::tokenize::tokenize_with)" 'lm::tokenize::tokenize_with'
row "· words, characters and stopwords of a block (evidence::measure::Shape::of)" 'evidence::measure::Shape::of$'
row "· sentence splitting (segment::split_sentences)" 'split_sentences'
row "writer: decision, rendering, output (pipeline::write::Writer::emit)" 'pipeline::write::Writer::emit$'
row "· decision of held blocks (decide::decider::Decider::decide_held)" 'Decider::decide_held'
row "· the trees (log_odds_of_blocks)" 'log_odds_of_blocks'
row "· document evidence (evidence::document::annotate)" 'evidence::document::annotate$'
