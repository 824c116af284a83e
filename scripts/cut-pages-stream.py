#!/usr/bin/env python3
"""Pages cut off in a stream: 300 WCXB dev pages, every tenth cut at a random byte (as a crawler's
size cap cuts them), cleaned as one stream on standard input and as files. Prints the documents
the stream gives, the share of the files' words (a bag of lowercase \\w+ words) that the stream
loses, and the cuts it reports.

    scripts/cut-pages-stream.py SEED [PAGES]     # from the checkout, after cargo build --release
"""
import collections
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target/release/ppl-filter")
INPUT = os.path.join(ROOT, "../shared/data/wcxb-dev/input")


def words(text):
    return collections.Counter(re.findall(r"\w+", text.lower()))


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rnd = random.Random(seed)
    names = sorted(os.listdir(INPUT))
    rnd.shuffle(names)
    pages = []
    for i, name in enumerate(names[:count]):
        page = gzip.decompress(open(os.path.join(INPUT, name), "rb").read())
        if i % 10 == 9:
            page = page[: rnd.randrange(1, len(page))]
        pages.append(page)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, page in enumerate(pages):
            files.append(os.path.join(tmp, "%03d.html" % i))
            open(files[-1], "wb").write(page)
        out = os.path.join(tmp, "out")
        subprocess.run([BIN, "-q", "-o", out] + files, check=False)
        expected = collections.Counter()
        for i in range(count):
            path = os.path.join(out, "%03d.txt" % i)
            if os.path.exists(path):
                expected += words(open(path, encoding="utf-8", errors="replace").read())
    run = subprocess.run([BIN, "-f", "json"], input=b"".join(pages), capture_output=True, check=False)
    records = run.stdout.decode("utf-8", "replace").splitlines()
    got = collections.Counter()
    for line in records:
        got += words(json.loads(line).get("text") or "")
    lost = sum((expected - got).values())
    total = sum(expected.values())
    cuts = [l for l in run.stderr.decode("utf-8", "replace").splitlines() if "where the next page begins" in l]
    print(
        f"seed {seed}: {len(records)} documents of {count}; words lost {lost}/{total} = "
        f"{100 * lost / total:.3f} %; cut reports {len(cuts)} (cut pages {count // 10})"
    )


if __name__ == "__main__":
    main()
