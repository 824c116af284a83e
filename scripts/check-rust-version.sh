#!/usr/bin/env bash
# Checks that the workspace's `rust-version` (Cargo.toml, [workspace.package]) is true:
#  1. no locked dependency (of any target of this platform) declares a newer one, and at least
#     one declares exactly it, so the number is neither too old nor needlessly new;
#  2. the workspace builds with that very toolchain (`cargo +VERSION check`, installed by rustup
#     with the minimal profile when missing), every target, from the committed Cargo.lock.
# Usage: scripts/check-rust-version.sh   (from anywhere in a clone; needs rustup and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
declared=$(sed -n '/^\[workspace.package\]/,/^\[/s/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
if [ -z "$declared" ]; then
  echo "check-rust-version: no rust-version in Cargo.toml's [workspace.package]" >&2
  exit 1
fi
cargo metadata --format-version 1 --locked --filter-platform "$(rustc -vV | sed -n 's/^host: //p')" |
  python3 -c '
import json, sys
declared = sys.argv[1]
def key(v): return tuple(int(x) for x in v.split("."))
meta = json.load(sys.stdin)
used = {node["id"] for node in meta["resolve"]["nodes"]}
members = set(meta["workspace_members"])
needs = [(p["rust_version"], p["name"] + " " + p["version"]) for p in meta["packages"]
         if p["id"] in used and p["id"] not in members and p.get("rust_version")]
newest = max(needs, key=lambda need: key(need[0]))
if key(newest[0]) > key(declared):
    sys.exit(f"check-rust-version: {newest[1]} needs Rust {newest[0]}, Cargo.toml says {declared}")
if key(newest[0]) < key(declared):
    sys.exit(f"check-rust-version: Cargo.toml says {declared}, the dependencies need only {newest[0]} ({newest[1]})")
print(f"check-rust-version: the dependencies need Rust {declared} ({newest[1]}), as declared")
' "$declared"
if ! command -v rustup >/dev/null 2>&1; then
  echo "check-rust-version: no rustup here, so the build with Rust $declared is not checked" >&2
  exit 0
fi
if ! rustup run "$declared" rustc --version >/dev/null 2>&1; then
  rustup toolchain install "$declared" --profile minimal
fi
cargo "+$declared" check --locked --workspace --all-targets --quiet
echo "check-rust-version: the workspace builds with Rust $declared"
