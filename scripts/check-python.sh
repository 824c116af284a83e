#!/usr/bin/env bash
# Builds the Python package (python/: PyO3 bindings, built by maturin from PyPI) into a
# virtualenv and runs its tests against the ppl-filter binary: what CI runs for the bindings.
# Works from a fresh clone with Rust installed (and ../shared beside it for the benchmark only).
# Usage: scripts/check-python.sh [VENV_DIR]   (default python/.venv; made if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(realpath -m "${1:-python/.venv}")
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q pytest datasets
started=$(date +%s)
"$venv/bin/pip" install -q --force-reinstall --no-deps ./python
echo "check-python: wheel built and installed in $(( $(date +%s) - started )) s"
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}/release/ppl-filter")
if [ ! -x "$bin" ]; then
  cargo build --release --locked
fi
# The tests import the installed package, not the sources in python/ppl_filter.
cd python/tests
PPL_FILTER_BIN="$bin" "$venv/bin/python" -m pytest -q -p no:cacheprovider .
