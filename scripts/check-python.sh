#!/usr/bin/env bash
# The Python package as its users get it, what CI runs for the bindings:
#  1. builds the abi3 wheel with maturin (from PyPI) in a build virtualenv, and checks with
#     auditwheel that it is manylinux-compatible;
#  2. installs that wheel in a fresh virtualenv whose PATH has no cargo (the wheel needs no
#     Rust), with pytest, datasets and datatrove from PyPI;
#  3. runs examples/datatrove_pipeline.py there on a fixture WARC, then the package's tests
#     against the installed wheel (not the sources in python/ppl_filter) and the ppl-filter
#     binary, datatrove's pipeline test among them.
# Works from a fresh clone with Rust installed. The wheel is left in target/wheels/.
# Usage: scripts/check-python.sh [BUILD_VENV_DIR]   (default python/.venv; made if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(realpath -m "${1:-python/.venv}")
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "maturin>=1.9,<2" auditwheel
started=$(date +%s)
rm -rf "$target/wheels"
"$venv/bin/maturin" build --release --locked -q -m python/Cargo.toml --out "$target/wheels"
wheel=$(ls "$target"/wheels/ppl_filter-*-abi3-*.whl)
echo "check-python: built $(basename "$wheel") in $(( $(date +%s) - started )) s"
if ! "$venv/bin/auditwheel" show "$wheel" | tr '\n' ' ' | grep -q 'consistent with the following platform tag: "manylinux_'; then
  "$venv/bin/auditwheel" show "$wheel" >&2
  echo "check-python: the wheel is not manylinux-compatible" >&2
  exit 1
fi
# The build virtualenv gets the wheel too: the fuzzer's Python kind imports it from there.
"$venv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
bin="$target/release/ppl-filter"
if [ ! -x "$bin" ]; then
  cargo build --release --locked
fi
# A fresh virtualenv, and a PATH without cargo: the wheel installs and runs without Rust.
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
python3 -m venv "$fresh/venv"
no_cargo="$fresh/venv/bin:/usr/local/bin:/usr/bin:/bin"
if PATH=$no_cargo command -v cargo >/dev/null; then
  echo "check-python: cargo is still on the test PATH ($no_cargo)" >&2
  exit 1
fi
PATH=$no_cargo "$fresh/venv/bin/pip" install -q --upgrade pip
PATH=$no_cargo "$fresh/venv/bin/pip" install -q pytest datasets "datatrove[io]" "$wheel"
# The datatrove example as its docstring runs it: a WARC of fixture pages (written by warcio,
# which datatrove[io] brings) in, a document a page out.
mkdir "$fresh/crawl"
PATH=$no_cargo "$fresh/venv/bin/python" - "$fresh/crawl/pages.warc.gz" fixtures/pages/news.html \
  fixtures/pages/entities.html fixtures/pages/cleaneval-wrapper.html <<'PY'
import io, sys
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter
with open(sys.argv[1], "wb") as out:
    writer = WARCWriter(out, gzip=True)
    for path in sys.argv[2:]:
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        body = io.BytesIO(open(path, "rb").read())
        url = "https://example.test/" + path.rsplit("/", 1)[-1]
        kind = {"WARC-Identified-Payload-Type": "text/html"}
        record = writer.create_warc_record(
            url, "response", payload=body, http_headers=http, warc_headers_dict=kind
        )
        writer.write_record(record)
PY
PATH=$no_cargo "$fresh/venv/bin/python" examples/datatrove_pipeline.py "$fresh/crawl" "$fresh/clean" > "$fresh/example.log" 2>&1 \
  || { cat "$fresh/example.log" >&2; echo "check-python: examples/datatrove_pipeline.py failed" >&2; exit 1; }
documents=$(zcat "$fresh"/clean/*.jsonl.gz | wc -l)
if [ "$documents" -lt 3 ]; then
  echo "check-python: examples/datatrove_pipeline.py wrote $documents documents, not 3" >&2
  exit 1
fi
echo "check-python: examples/datatrove_pipeline.py wrote $documents documents"
cd python/tests
PATH=$no_cargo PPL_FILTER_BIN="$bin" "$fresh/venv/bin/python" -m pytest -q -p no:cacheprovider .
