#!/usr/bin/env bash
# Regenerates the man pages and shell completions from the clap flag definitions.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q
bin=${CARGO_TARGET_DIR:-target}/release
mkdir -p man completions
for name in ppl-filter ppl-eval; do
  "$bin/$name" --generate man > "man/$name.1"
  for shell in bash zsh fish; do
    "$bin/$name" --generate "complete-$shell" > "completions/$name.$shell"
  done
done
