#!/usr/bin/env bash
# Rebuilds the default English language model (model/en.pack, packed) from the shared
# Wikipedia corpus (../shared/corpus/en/*.txt.gz, see its README.md).
# Run from anywhere; paths are relative to the repository root.
# Output is deterministic: the same corpus and options give the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."

CREDIT="Contains text from English Wikipedia (https://en.wikipedia.org/), by Wikipedia contributors, licensed under CC BY-SA 3.0 (https://creativecommons.org/licenses/by-sa/3.0/); extracted from a May 2015 dump and modified (markup, headings, short lines and duplicates removed). The n-gram statistics in this model are a derived work of that text, also licensed under CC BY-SA 3.0."

# Training does not use the embedded model (model/en.pack, unpacked by build.rs).
model=$(mktemp)
trap 'rm -f "$model"' EXIT
cargo run --release --bin ppl-filter -- train \
    --order 2 --min-count 2 --min-unigram-count 1 \
    --credit "$CREDIT" \
    -o "$model" \
    ../shared/corpus/en/01.txt.gz ../shared/corpus/en/02.txt.gz \
    ../shared/corpus/en/03.txt.gz ../shared/corpus/en/04.txt.gz
cargo run --release --example pack_model -- "$model" model/en.pack
echo "wrote model/en.pack ($(wc -c < model/en.pack) bytes; md5 of the model: $(md5sum < "$model" | cut -d' ' -f1)); rebuild the binary to embed it" >&2
