#!/usr/bin/env bash
# bench/cores.sh — how ppl-filter scales with cores: for -j 1, 2, 4, 8 and 16, the throughput
# and how the process's CPU time is shared among its threads (bench/threads.py), over the
# CleanEval pages (COPIES copies of tune and dev) as many files, as the responses of one WARC
# file (plain, and gzipped a member a record), and as one stream on stdin.
#
# These machines have few cores, so MB/s stops growing at their count; the busiest thread's
# share of the CPU time says how far a run could scale on more (a thread holding 15 % lets six
# or more cores work; one holding 46 % caps any -j at about 2.2 cores). Prints a Markdown table.
#
# Environment (defaults in brackets):
#   DATA [../shared/data/cleaneval]   CleanEval, with {tune,dev}/input/*.html
#   COPIES [6]            copies of the 386 pages (6: 2,316 files)
#   JOBS [1 2 4 8 16]     the -j values
#   RUNS [3]              runs of each case (the median wall time is reported)
#   PPL_FILTER            a prebuilt binary (skips the cargo build)
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=${DATA:-../shared/data/cleaneval}
COPIES=${COPIES:-6}
JOBS=${JOBS:-1 2 4 8 16}
RUNS=${RUNS:-3}
die() { printf 'bench/cores.sh: %s\n' "$*" >&2; exit 2; }

[[ -d "$DATA/tune/input" && -d "$DATA/dev/input" ]] || die "CleanEval not found in $DATA (set DATA)"
if [[ -z "${PPL_FILTER:-}" ]]; then
    cargo build --release --locked --quiet
fi
ppl=${PPL_FILTER:-target/release/ppl-filter}
[[ -x "$ppl" ]] || die "missing binary $ppl"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/pages"
for c in $(seq -w "$COPIES"); do
    for set in tune dev; do
        for p in "$DATA/$set"/input/*.html; do cp "$p" "$tmp/pages/$c-$set-${p##*/}"; done
    done
done
cat "$tmp"/pages/*.html > "$tmp/stream.html"
# The same pages as the HTML responses of one WARC file, in the same order, and that WARC
# compressed as crawlers write it: one gzip member a record.
python3 - "$tmp/pages" "$tmp/pages.warc" "$tmp/pages.warc.gz" <<'PY'
import gzip, os, sys
pages, out, out_gz = sys.argv[1], sys.argv[2], sys.argv[3]
with open(out, "wb") as warc, open(out_gz, "wb") as warc_gz:
    for n, name in enumerate(sorted(os.listdir(pages))):
        body = open(os.path.join(pages, name), "rb").read()
        http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
        head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n:012d}>\r\n"
                f"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/{name}\r\n"
                f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n")
        record = head.encode() + http + b"\r\n\r\n"
        warc.write(record)
        warc_gz.write(gzip.compress(record, compresslevel=6))
PY
files=$(find "$tmp/pages" -type f | wc -l)
bytes=$(wc -c < "$tmp/stream.html")

# One case: the median run's wall time and thread shares, as a table row.
case_row() {  # case_row LABEL JOBS [--stdin FILE] ARGS...
    local label=$1 jobs=$2 stdin=()
    shift 2
    if [[ "$1" == --stdin ]]; then
        stdin=(--stdin "$2")
        shift 2
    fi
    for _ in $(seq "$RUNS"); do
        python3 bench/threads.py "${stdin[@]}" "$ppl" -q -j"$jobs" "$@"
    done | python3 -c '
import json, statistics, sys
runs = sorted((json.loads(line) for line in sys.stdin), key=lambda r: r["wall_s"])
run = runs[len(runs) // 2]
label, jobs, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
total = max(run["ticks"], 1)
names = {}
for t in run["threads"]:
    names.setdefault(t["name"], []).append(100 * t["ticks"] / total)
busiest = max((t["ticks"] for t in run["threads"]), default=0) * 100 / total
# The workers of the pool share the documents; any other thread (reader, writer, the main one) is a
# serial stage, and by Amdahl the run scales at most to 100 over its share.
serial = max((t["ticks"] for t in run["threads"] if t["name"] != "ppl-worker"), default=0) * 100 / total
shares = ", ".join(f"{n} {len(s)} × {max(s):.0f} %" if len(s) > 1 else f"{n} {s[0]:.0f} %"
                   for n, s in sorted(names.items(), key=lambda kv: -max(kv[1])))
mbps = size / 1e6 / run["wall_s"]
print(f"| {label} | {jobs} | {mbps:.1f} | {busiest:.1f} % | {serial:.1f} % | {shares} |")
' "$label" "$jobs" "$bytes"
}

echo "| input | -j | MB/s | busiest thread | busiest serial thread | threads (name: count × largest share of CPU time) |"
echo "|---|---:|---:|---:|---:|---|"
for jobs in $JOBS; do
    case_row "$files files" "$jobs" "$tmp/pages"
done
for jobs in $JOBS; do
    case_row "one WARC of $files responses" "$jobs" "$tmp/pages.warc"
done
for jobs in $JOBS; do
    case_row "one WARC.gz of $files responses (a gzip member each)" "$jobs" "$tmp/pages.warc.gz"
done
for jobs in $JOBS; do
    case_row "one stream of $((bytes / 1000000)) MB (stdin)" "$jobs" --stdin "$tmp/stream.html"
done
