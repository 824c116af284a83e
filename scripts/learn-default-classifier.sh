#!/usr/bin/env bash
# Learns the embedded classifier (model/en-classifier.bin) from every shared set: CleanEval
# `tune`, both article sets (L3S-GN1 and Dragnet halves), the WCXB development pages (2025–26,
# seven kinds of page) and the Fundus news pages (many languages), with the settings chosen by
# scripts/cross-validate-sets.sh on these five sets, by site: equal total weight per set
# (--set-balance equal) with tune, L3S-GN1 and Dragnet weighing twice (--set-weight 2, three
# times), decision threshold -0.5 (log-odds), 300 boosted trees of depth 4 with a learning rate
# of 0.15 (chosen on all five folds against 200 of depth 3, 500 of depth 4 and rates 0.1 and
# 0.2: docs/measurements.md, "Learning in minutes"), boilerplate bigrams seen once pruned
# (--min-count 2: the boilerplate model shrinks by 1.1 MB, the packaged crate stays
# under 10 MB). The gold format is told apart per file (CleanEval for tune, plain text for the
# others).
# Usage: scripts/learn-default-classifier.sh [LEARN_FLAGS...]
#   OUT=FILE  writes there instead of model/en-classifier.bin (to try it before replacing it)
#   DATA=DIR  the data folder (default ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${DATA:-../shared/data}
out=${OUT:-model/en-classifier.bin}
cargo build --release --locked -q
"${CARGO_TARGET_DIR:-target}/release/ppl-filter" learn \
  --set "$data/cleaneval/tune/input" "$data/cleaneval/tune/gold" \
  --set "$data/articles/l3s-gn1/input" "$data/articles/l3s-gn1/gold" \
  --set "$data/articles/dragnet/input" "$data/articles/dragnet/gold" \
  --set "$data/wcxb-dev/input" "$data/wcxb-dev/gold" \
  --set "$data/fundus/input" "$data/fundus/gold" \
  --set-weight 2 --set-weight 2 --set-weight 2 --decision-threshold -0.5 --min-count 2 \
  --trees 300 --depth 4 --learning-rate 0.15 \
  -o "$out" "$@"
