#!/usr/bin/env bash
# Checks that the Spark example gives exactly the single-process output: builds ppl-filter,
# installs pyspark from PyPI into a virtualenv (SPARK_VENV, default .venv-spark; Java 17 must
# be on the machine), makes a JSONL dataset of the fixture pages (plus the CleanEval pages of
# ../shared when present, and the fixture JSONL with its broken lines), runs both and compares.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q
bin=$(realpath "${CARGO_TARGET_DIR:-target}/release/ppl-filter")
venv=${SPARK_VENV:-.venv-spark}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pyspark' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q pyspark
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work/data.jsonl" <<'PY'
import glob, json, os, sys
pages = sorted(glob.glob("fixtures/pages/*.html")) + sorted(glob.glob("../shared/data/cleaneval/dev/input/*.html"))
with open(sys.argv[1], "w", encoding="utf-8") as out:
    for n, path in enumerate(pages):
        raw = open(path, "rb").read()
        try:
            html = raw.decode("utf-8")
        except UnicodeDecodeError:
            html = raw.decode("windows-1252", errors="replace")
        out.write(json.dumps({"id": n, "source": os.path.basename(path), "html": html}) + "\n")
    out.write(open("fixtures/jsonl/pages.jsonl", encoding="utf-8").read())
PY
lines=$(wc -l < "$work/data.jsonl")
"$bin" --input jsonl -j2 -q "$work/data.jsonl" > "$work/single.jsonl" 2>/dev/null || [ $? -eq 1 ]
"$venv/bin/python" examples/spark_pipe.py "$work/data.jsonl" "$work/spark" --ppl-filter "$bin" 2> "$work/spark.log" \
  || { tail -20 "$work/spark.log"; exit 1; }
cat "$work"/spark/part-* > "$work/spark.jsonl"
if cmp -s "$work/single.jsonl" "$work/spark.jsonl"; then
  echo "ok: Spark output equals the single-process output ($lines lines in, $(wc -l < "$work/spark.jsonl") out)"
else
  echo "FAIL: Spark output differs from the single-process output" >&2
  diff <(head -c 2000 "$work/single.jsonl") <(head -c 2000 "$work/spark.jsonl") >&2 || true
  exit 1
fi
