#!/usr/bin/env bash
# Calibrates the default perplexity threshold and link-density limit on CleanEval `tune`:
# cleans every page with each setting of a grid, scores it with ppl-eval, and prints one row
# per setting (sorted by the mean of Lev macro and word F micro, best last).
# Usage: scripts/calibrate.sh [SET_DIR]   (default ../shared/data/cleaneval/tune)
set -euo pipefail
cd "$(dirname "$0")/.."
set_dir=${1:-../shared/data/cleaneval/tune}
thresholds=${THRESHOLDS:-"1000 2000 3000 5000 10000 30000 100000 1e9"}
densities=${DENSITIES:-"0.3 0.5 0.7 0.9 1"}
cargo build --release --locked -q
bin=${CARGO_TARGET_DIR:-target}/release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {
  local t=$1 d=$2 out="$work/$1-$2"
  mkdir -p "$out"
  for page in "$set_dir"/input/*.html; do
    "$bin/ppl-filter" -j1 -t "$t" --max-link-density "$d" < "$page" > "$out/$(basename "$page" .html).txt" 2>/dev/null || true
  done
  "$bin/ppl-eval" score "$out" "$set_dir/gold" --json "$out.json" > /dev/null
  python3 - "$t" "$d" "$out.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[3]))
lev, f = s["lev_macro"], s["text_f_micro"]
print(f"{sys.argv[1]:>8} {sys.argv[2]:>5} {lev:7.2f} {s['lev_micro']:7.2f} {f:7.2f} {(lev + f) / 2:7.2f}")
PY
}
export -f run
export bin set_dir work
printf '%8s %5s %7s %7s %7s %7s\n' threshold links lev_mac lev_mic f_mic mean
for t in $thresholds; do for d in $densities; do echo "$t $d"; done; done \
  | xargs -P "$(nproc)" -n 2 bash -c 'run "$0" "$1"' | sort -k6 -n
