#!/usr/bin/env bash
# Checks the web demo in a real browser: builds ppl-filter, starts `ppl-filter serve` on a free
# port, drives headless Chromium (with playwright-core) to paste fixtures/pages/news.html and
# press Clean, fails unless kept text and struck-through dropped text are both shown, and
# saves a screenshot.
#
# Usage: scripts/demo-screenshot.sh [OUT.png]   (default target/demo.png)
# Installs Debian's chromium if missing (as root) and playwright-core from npm under
# target/demo-node (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/demo.png}
target=${CARGO_TARGET_DIR:-target}
mkdir -p "$(dirname "$out")"

if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  apt-get install -y -qq chromium
fi
node_dir=$target/demo-node
if [ ! -d "$node_dir/node_modules/playwright-core" ]; then
  mkdir -p "$node_dir"
  npm install --prefix "$node_dir" --no-save --no-audit --no-fund --silent playwright-core@1
fi
cargo build --release --locked -q

log=$(mktemp)
"$target/release/ppl-filter" serve --bind 127.0.0.1:0 --threads 2 2>"$log" &
server=$!
stop() {
  kill -INT "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -f "$log"
}
trap stop EXIT

url=
for _ in $(seq 100); do
  url=$(sed -n 's|^ppl-filter: serving on ||p' "$log")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "demo-screenshot: the server did not start" >&2; cat "$log" >&2; exit 1; }

NODE_PATH=$node_dir/node_modules node scripts/demo/screenshot.js "$url" fixtures/pages/news.html "$out"
