#!/usr/bin/env bash
# Cleans every page of the WCXB development set on its own, with the default flags plus
# FLAGS, and prints WCXB's own measure (scripts/score-wcxb.py): the mean word F1 per kind of
# page and over all pages.
# Usage: scripts/score-wcxb-dev.sh [FLAGS...]      e.g. scripts/score-wcxb-dev.sh --comments
#   DATA=DIR  the data folder (default ../shared/data)   BIN=FILE  a ppl-filter to use instead
#   KEEP=DIR  keeps the outputs (DIR/ID.txt) and one score row per page (DIR.rows)
set -euo pipefail
cd "$(dirname "$0")/.."
set_dir=${DATA:-../shared/data}/wcxb-dev
if [ -z "${BIN:-}" ]; then
  cargo build --release --locked -q
  BIN=${CARGO_TARGET_DIR:-target}/release/ppl-filter
fi
if [ -n "${KEEP:-}" ]; then out=$KEEP; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
export BIN out set_dir
# shellcheck disable=SC2016
find "$set_dir/input" -name '*.html.gz' -printf '%f\0' | LC_ALL=C sort -z \
  | xargs -0 -P "$(nproc)" -I{} bash -c \
    'page={}; "$BIN" -q "$@" < "$set_dir/input/$page" > "$out/${page%.html.gz}.txt" 2>/dev/null || true' _ "$@"
python3 scripts/score-wcxb.py "$out" "$set_dir/gold" "$set_dir/pages.tsv" ${KEEP:+"$KEEP.rows"}
