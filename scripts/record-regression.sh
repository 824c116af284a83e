#!/usr/bin/env bash
# Re-records fixtures/regression.txt (CRC-32s of the output checked by tests/regression.rs).
# Only for a deliberate change of output: speed work must leave these values alone.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q
bin=${CARGO_TARGET_DIR:-target}/release/ppl-filter
head -4 fixtures/regression.txt > fixtures/regression.txt.new
for method in perplexity combined; do
for mode in clean mark scores cleaneval; do
  case $mode in clean) flag=();; mark) flag=(--mark);; scores) flag=(--scores);; cleaneval) flag=(--format cleaneval);; esac
  for set in fixtures shared; do
    if [ "$set" = fixtures ]; then
      files=$(ls fixtures/pages/*.html | LC_ALL=C sort)
    else
      files=$(ls ../shared/data/cleaneval/dev/input/*.html ../shared/data/cleaneval/tune/input/*.html | LC_ALL=C sort)
    fi
    # shellcheck disable=SC2086
    crc=$("$bin" -j2 --method "$method" "${flag[@]}" $files 2>/dev/null | python3 -c "import sys, zlib; print('%08x' % zlib.crc32(sys.stdin.buffer.read()))" || true)
    echo "$method $mode $set $crc" >> fixtures/regression.txt.new
  done
done
done
mv fixtures/regression.txt.new fixtures/regression.txt
