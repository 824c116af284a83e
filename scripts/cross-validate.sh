#!/usr/bin/env bash
# Cross-validates the combined method by page on a CleanEval set (default: tune): the pages
# (sorted by name) are dealt into FOLDS folds (page i goes to fold i mod FOLDS); for each fold,
# `ppl-filter learn` trains on the other folds, the held-out pages are cleaned one by one
# through standard input with that classifier, and `ppl-eval score` scores them. Prints one
# row per fold and one for all held-out pages pooled.
# One set at a time; scripts/cross-validate-sets.sh does several at once (CleanEval tune and the
# article sets by default) and scores each separately.
# Usage: scripts/cross-validate.sh [SET_DIR] [-- LEARN_FLAGS...]
#   FOLDS=5 (default)  FILTER_FLAGS="..." extra flags for cleaning (e.g. --format cleaneval)
#   KEEP=DIR keeps the folds' classifiers and outputs (DIR/all/out) in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
set_dir=../shared/data/cleaneval/tune
if [ $# -gt 0 ] && [ "$1" != "--" ]; then set_dir=$1; shift; fi
[ "${1:-}" = "--" ] && shift
folds=${FOLDS:-5}
cargo build --release --locked -q
bin=${CARGO_TARGET_DIR:-target}/release
if [ -n "${KEEP:-}" ]; then work=$KEEP; rm -rf "$work"; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
mapfile -t pages < <(cd "$set_dir/input" && ls -- *.html | LC_ALL=C sort)
row() { # name json
  python3 - "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[2]))
print(f"{sys.argv[1]:>6} {s['pages']:>5} {s['lev_macro']:7.2f} {s['lev_micro']:7.2f} {s['text_p_micro']:7.2f} {s['text_r_micro']:7.2f} {s['text_f_micro']:7.2f} {s.get('marker_f_micro', float('nan')):7.2f}")
PY
}
fold() {
  local k=$1 dir="$work/fold$1"
  mkdir -p "$dir"/{train/input,train/gold,out,gold}
  for i in "${!pages[@]}"; do
    local stem=${pages[$i]%.html}
    if [ $((i % folds)) -eq "$k" ]; then
      ln -s "$(realpath "$set_dir/gold/$stem.txt")" "$dir/gold/"
    else
      ln -s "$(realpath "$set_dir/input/$stem.html")" "$dir/train/input/"
      ln -s "$(realpath "$set_dir/gold/$stem.txt")" "$dir/train/gold/"
    fi
  done
  "$bin/ppl-filter" learn "$dir/train/input" "$dir/train/gold" -o "$dir/classifier" "${learn_flags[@]}" 2>/dev/null
  for i in "${!pages[@]}"; do
    [ $((i % folds)) -eq "$k" ] || continue
    local stem=${pages[$i]%.html}
    # shellcheck disable=SC2086
    "$bin/ppl-filter" -j1 --classifier "$dir/classifier" ${FILTER_FLAGS:-} < "$set_dir/input/$stem.html" \
      > "$dir/out/$stem.txt" 2>/dev/null || true
  done
  "$bin/ppl-eval" score "$dir/out" "$dir/gold" --json "$dir/score.json" > /dev/null
}
learn_flags=("$@")
export -f fold
printf '%6s %5s %7s %7s %7s %7s %7s %7s\n' fold pages lev_mac lev_mic P_mic R_mic F_mic markF
pids=()
for ((k = 0; k < folds; k++)); do fold "$k" & pids+=($!); [ $(( (k + 1) % $(nproc) )) -eq 0 ] && wait; done
wait
mkdir -p "$work/all/out" "$work/all/gold"
for ((k = 0; k < folds; k++)); do
  row "$k" "$work/fold$k/score.json"
  cp -P "$work/fold$k/out/"* "$work/all/out/"; cp -P "$work/fold$k/gold/"* "$work/all/gold/"
done
"$bin/ppl-eval" score "$work/all/out" "$work/all/gold" --json "$work/all.json" > /dev/null
row all "$work/all.json"
