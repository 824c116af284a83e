#!/usr/bin/env bash
# Checks that both Spark examples give exactly the command's output: builds ppl-filter,
# installs pyspark from PyPI into a virtualenv (SPARK_VENV, default .venv-spark; Java 17 must
# be on the machine), makes a JSONL dataset of the fixture pages (plus the CleanEval pages of
# ../shared when present, and the fixture JSONL with its broken lines), runs spark_pipe.py
# (RDD.pipe) and compares it with one `ppl-filter --input jsonl` run; then installs the Python
# package's wheel (target/wheels, from scripts/check-python.sh, built here if missing) and runs
# spark_clean_many.py (mapPartitions with clean_many) on the pages, each text compared with the
# command's. Spark runs on local[2].
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

python3 - "$work/data.jsonl" "$work/pages.jsonl" <<'PY'
import glob, json, os, sys
pages = sorted(glob.glob("fixtures/pages/*.html")) + sorted(glob.glob("../shared/data/cleaneval/dev/input/*.html"))
with open(sys.argv[1], "w", encoding="utf-8") as out, open(sys.argv[2], "w", encoding="utf-8") as alone:
    for n, path in enumerate(pages):
        raw = open(path, "rb").read()
        try:
            html = raw.decode("utf-8")
        except UnicodeDecodeError:
            html = raw.decode("windows-1252", errors="replace")
        line = json.dumps({"id": n, "source": os.path.basename(path), "html": html}) + "\n"
        out.write(line)
        alone.write(line)
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

# mapPartitions with clean_many: the package's wheel in the Spark virtualenv.
wheel=$(ls "${CARGO_TARGET_DIR:-target}"/wheels/ppl_filter-*-abi3-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
  "$venv/bin/pip" install -q "maturin>=1.9,<2"
  "$venv/bin/maturin" build --release --locked -q -m python/Cargo.toml --out "$work/wheels"
  wheel=$(ls "$work"/wheels/ppl_filter-*-abi3-*.whl)
fi
"$venv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
"$bin" --input jsonl --output-field text -j2 -q "$work/pages.jsonl" > "$work/single-pages.jsonl" 2>/dev/null || [ $? -eq 1 ]
PYSPARK_PYTHON="$(realpath "$venv")/bin/python" "$venv/bin/python" examples/spark_clean_many.py "$work/pages.jsonl" "$work/spark-many" 2> "$work/spark-many.log" \
  || { tail -20 "$work/spark-many.log"; exit 1; }
"$venv/bin/python" - "$work/single-pages.jsonl" "$work/spark-many" <<'PY'
import glob, json, sys
single = {}
for line in open(sys.argv[1], encoding="utf-8"):
    row = json.loads(line)
    # A page the command skips (binary data) keeps its line without a text: clean_many's "".
    single[row["id"]] = row.get("text", "")
spark = {}
for part in glob.glob(sys.argv[2] + "/part-*.json"):
    for line in open(part, encoding="utf-8"):
        row = json.loads(line)
        spark[row["id"]] = row["text"]
differ = [i for i in single if single[i] != spark.get(i)]
if len(spark) != len(single) or differ:
    sys.exit(f"FAIL: mapPartitions output differs from the command's for ids {differ[:5]} ({len(spark)} rows, {len(single)} expected)")
print(f"ok: mapPartitions with clean_many equals the command's text for all {len(single)} pages")
PY
