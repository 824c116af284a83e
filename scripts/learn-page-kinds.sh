#!/usr/bin/env bash
# Learns the embedded page-kind model (model/page-kinds.json) from the shared sets and prints
# its confusion matrix, cross-validated by site (scripts/learn-page-kinds.py): the WCXB
# development pages (seven kinds) and the news pages of L3S-GN1, Dragnet and Fundus (articles,
# weighing half). Needs numpy (`pip install numpy`).
# Usage: scripts/learn-page-kinds.sh [-o FILE] [--folds-out DIR] [more options of the .py]
#   DATA=DIR  the data folder (default ../shared/data)   PYTHON=python3
set -euo pipefail
cd "$(dirname "$0")/.."
data=${DATA:-../shared/data}
cargo build --release --locked -q --example page_evidence
dump=${CARGO_TARGET_DIR:-target}/release/examples/page_evidence
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$dump" "$data"/wcxb-dev/input/*.html.gz > "$work/wcxb.tsv"
"$dump" "$data"/fundus/input/*.html.gz > "$work/fundus.tsv"
"$dump" "$data"/articles/l3s-gn1/input/*.html > "$work/l3s-gn1.tsv"
"$dump" "$data"/articles/dragnet/input/*.html > "$work/dragnet.tsv"
"${PYTHON:-python3}" scripts/learn-page-kinds.py --data "$data" "$@" \
  wcxb="$work/wcxb.tsv" fundus="$work/fundus.tsv:0.5" l3s-gn1="$work/l3s-gn1.tsv:0.5" \
  dragnet="$work/dragnet.tsv:0.5"
