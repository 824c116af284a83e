#!/usr/bin/env bash
# Checks ppl-filter's WARC output with warcio, the reference Python reader: a crawl written by
# warcio (200, 404 and 301 responses; gzip, chunked and brotli bodies; PNG and PDF payloads) is
# cleaned to stdout (plain and --compress) and with --output-dir (.warc.gz), and each output
# must pass `warcio check` (digests) and `warcio index`, holding the 2xx HTML pages only.
# Usage: scripts/check-warc-output.sh [VENV_DIR]   (the virtualenv is made if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.venv-warcio}
if [ ! -x "$venv/bin/warcio" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q warcio==1.7.5 brotli==1.1.0
fi
cargo build --release --locked -q
bin=${CARGO_TARGET_DIR:-target}/release/ppl-filter
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" scripts/warc_crawl.py "$work/crawl.warc.gz"
"$bin" -q "$work/crawl.warc.gz" > "$work/plain.warc"
"$bin" -q --compress "$work/crawl.warc.gz" > "$work/piped.warc.gz"
"$bin" -q -o "$work/out" "$work/crawl.warc.gz"
expected="http://example.com/brotli http://example.com/chunked http://example.com/gzip http://example.com/plain"
for warc in plain.warc piped.warc.gz out/crawl.warc.gz; do
  "$venv/bin/warcio" check "$work/$warc"
  index=$("$venv/bin/warcio" index -f warc-type,warc-target-uri "$work/$warc")
  types=$(printf '%s\n' "$index" | grep -o '"warc-type": "[a-z]*"' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  uris=$(printf '%s\n' "$index" | grep -o '"warc-target-uri": "[^"]*"' | cut -d'"' -f4 | sort | tr '\n' ' ')
  if [ "${uris% }" != "$expected" ] || [ "$types" != " 4 \"warc-type\": \"conversion\"; 1 \"warc-type\": \"warcinfo\";" ]; then
    echo "check-warc-output: $warc holds [$uris] ($types), expected [$expected] and one warcinfo" >&2
    exit 1
  fi
  echo "ok: $warc passes warcio check and index: warcinfo + 4 conversions ($expected)"
done
if [ "$(head -c 2 "$work/piped.warc.gz" | od -An -tx1 | tr -d ' ')" != 1f8b ]; then
  echo "check-warc-output: --compress output is not gzip" >&2
  exit 1
fi
grep -q "Brotli. The committee met" "$work/plain.warc" || { echo "check-warc-output: the brotli page's text is missing" >&2; exit 1; }
