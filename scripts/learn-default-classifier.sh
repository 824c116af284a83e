#!/usr/bin/env bash
# Learns the embedded classifier (model/en-classifier.bin) from CleanEval `tune` and both article
# sets (L3S-GN1 and Dragnet halves) with the default `ppl-filter learn` settings, every one of
# them chosen by scripts/cross-validate-sets.sh on these three sets: equal total weight per set
# (--set-balance equal) with CleanEval tune weighing twice (--set-weight 2), decision threshold
# -0.75 (log-odds; -1 before the model was retrained with the one sentence splitter), gold format told apart per file (CleanEval for tune, plain text for the
# article sets).
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
  --set-weight 2 --decision-threshold -0.75 \
  -o "$out" "$@"
