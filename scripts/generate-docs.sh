#!/usr/bin/env bash
# Regenerates the man pages and shell completions from the clap flag definitions, and the
# generated parts of Python's stub from the library's lists of options and names.
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
# Python's stub: the options' names and keyword arguments, from the library's lists.
PPL_UPDATE_STUB=1 cargo test --release --locked -q --test tests \
  docs_in_sync::the_python_stub_names_the_options_the_library_takes >/dev/null
