#!/usr/bin/env bash
# The Python package as its users get it, what CI runs for the bindings:
#  1. builds the abi3 wheel with maturin (from PyPI) in a build virtualenv, linked by zig
#     (ziglang, from PyPI) against glibc 2.17, and checks with auditwheel that it is
#     manylinux2014 (manylinux_2_17: CentOS 7 and every later Linux);
#  2. installs that wheel in a fresh virtualenv whose PATH has no cargo (the wheel needs no
#     Rust), with pytest, datasets and datatrove from PyPI;
#  3. runs the package's tests there against the installed wheel (not the sources in
#     python/ppl_filter) and the ppl-filter binary, datatrove's pipeline test and
#     examples/datatrove_pipeline.py among them.
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
"$venv/bin/pip" install -q "maturin>=1.9,<2" auditwheel ziglang
started=$(date +%s)
rm -rf "$target/wheels"
# maturin finds zig as `python3 -m ziglang`, with the build virtualenv's python3.
PATH="$venv/bin:$PATH" "$venv/bin/maturin" build --release --locked -q -m python/Cargo.toml \
  --zig --compatibility manylinux2014 --out "$target/wheels"
wheel=$(ls "$target"/wheels/ppl_filter-*-abi3-*.whl)
echo "check-python: built $(basename "$wheel") in $(( $(date +%s) - started )) s"
if ! "$venv/bin/auditwheel" show "$wheel" | tr '\n' ' ' | grep -q 'consistent with the following platform tag: "manylinux_2_17_'; then
  "$venv/bin/auditwheel" show "$wheel" >&2
  echo "check-python: the wheel is not manylinux2014 (manylinux_2_17)" >&2
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
cd python/tests
PATH=$no_cargo PPL_FILTER_BIN="$bin" "$fresh/venv/bin/python" -m pytest -q -p no:cacheprovider .
