#!/usr/bin/env bash
# Mutation fuzzing of the ppl-filter binary: scripts/fuzz.sh SECONDS [OUT_DIR]
#
# Damages seed pages, WARC, WARC.gz and JSONL files, models and classifiers (fixtures, plus the
# shared CleanEval/article pages in ../shared/data when present) and runs the release binary on
# each damaged file with -j1 and -j2 under a timeout and an address-space limit, until SECONDS
# are spent. Fails (exit 1) if any run panics, dies of a signal, hangs, breaks the exit-status or
# stderr conventions, or -j1 and -j2 differ; every failing case is kept in OUT_DIR (default
# fuzz-out/) with FAILURE.txt saying which check failed and how to reproduce it.
# The edges have targets of their own, run in the same loop when their module is present and
# available (scripts/fuzz_pipes.py: streams; fuzz_outputs.py: --output-dir plans; fuzz_serve.py:
# server requests; fuzz_python.py: Python arguments; fuzz_fetch.py: -u/-i against a hostile
# local server); the start says which run and which not.
# The last lines are "fuzz: N runs (pages P, ..., outputs Y, serve S, python Z, fetch F), F failures"
# and "N passed, F failed".
#
# Environment: PPL_FILTER (binary to test instead of building target/release/ppl-filter),
# FUZZ_SEED (repeat a run), FUZZ_KINDS (comma-separated kinds to run, default all: pages, warc,
# jsonl, model, classifier, pipes, outputs, serve, python, fetch), FUZZ_TIMEOUT (seconds per run,
# default 20), FUZZ_MEMORY_MB (address space per run, default 2048), FUZZ_WORKERS (cases run at
# once, default 1), FUZZ_CORPUS (colon-separated directories of extra seed pages, or "none").
# See fuzz/README.md.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh SECONDS [OUT_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$root/fuzz-out}
binary=${PPL_FILTER:-}
if [ -z "$binary" ]; then
  (cd "$root" && cargo build --release --locked --bin ppl-filter >&2)
  binary=$root/target/release/ppl-filter
fi
exec python3 "$root/scripts/fuzz.py" --binary "$binary" --seconds "$1" --out "$out"
