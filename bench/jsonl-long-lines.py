#!/usr/bin/env python3
"""Peak memory of long JSONL lines at several thread counts (hostile-streams issue, L2).

    python3 bench/jsonl-long-lines.py [LINES [MIB]]     # from the checkout, after cargo build --release

Writes LINES (default 16) lines of just under MIB (default 16) MiB each, every one an "html"
field of paragraphs (under the default --max-record-bytes of 16 MiB, so each is cleaned), to a
temporary file, runs `ppl-filter -f json -jN` on it for N = 1, 2 and 4 under GNU time, and
prints each run's peak RSS and seconds, its ratio to -j1's, and whether the outputs are the
same. The target: -j2 under 2 x -j1 (a line in flight holds its bytes; the lines in flight
hold at most --max-record-bytes in all).
"""
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("PPL_FILTER", os.path.join(ROOT, "target/release/ppl-filter"))
WORDS = ("the of and to in a is that for it as was with be by on not he this are or his from at "
         "which but have an they you were her she there one all we their").split()


def main():
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    rnd = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "long.jsonl")
        with open(path, "w") as f:
            for i in range(lines):
                parts, size = [], 0
                while size < mib * 1024 * 1024 - 300_000:
                    p = "<p>" + " ".join(rnd.choice(WORDS) for _ in range(60)) + ".</p>\n"
                    parts.append(p)
                    size += len(p)
                html = "<html><body>" + "".join(parts) + "</body></html>"
                f.write(json.dumps({"id": str(i), "html": html}) + "\n")
        print(f"{lines} lines of {mib} MiB ({os.path.getsize(path) / 1e6:.0f} MB)")
        first, first_out = None, None
        for threads in (1, 2, 4):
            out = os.path.join(tmp, f"out{threads}")
            timing = os.path.join(tmp, "time")
            with open(out, "wb") as stdout:
                subprocess.run(["/usr/bin/time", "-f", "%M %e", "-o", timing, BIN, "-q", f"-j{threads}",
                                "-f", "json", path], stdout=stdout, check=True)
            kib, seconds = open(timing).read().split()[-2:]
            mb = int(kib) / 1024
            first = first or mb
            same = ""
            if first_out is None:
                first_out = open(out, "rb").read()
            else:
                same = ", output the same as -j1's" if open(out, "rb").read() == first_out else ", OUTPUT DIFFERS"
            print(f"-j{threads}: {mb:.0f} MB peak, {float(seconds):.1f} s, {mb / first:.2f} x -j1{same}")


if __name__ == "__main__":
    main()
