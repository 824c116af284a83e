#!/usr/bin/env bash
# Learns the embedded classifier (model/en-classifier.bin) from CleanEval `tune` with the
# default `ppl-filter learn` settings (chosen by scripts/cross-validate.sh on tune alone).
set -euo pipefail
cd "$(dirname "$0")/.."
set_dir=${1:-../shared/data/cleaneval/tune}
cargo build --release --locked -q
"${CARGO_TARGET_DIR:-target}/release/ppl-filter" learn "$set_dir/input" "$set_dir/gold" -o model/en-classifier.bin
