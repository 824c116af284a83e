#!/usr/bin/env python3
"""bench/headlines.py: on how many pages the gold's headline comes out.

    python3 bench/headlines.py [--bin target/release/ppl-filter] [--data ../shared/data] [SET...]

The gold of the news sets opens with the article's headline. Each page of each SET (default:
fundus, articles/l3s-gn1, articles/dragnet) is cleaned with default flags, and its gold's
first line is looked for in the output, both compared by their lowercase words (runs of letters
and digits). Prints, per set, the pages whose headline is missing, and their names.
"""
import argparse
import glob
import os
import re
import subprocess
import tempfile


def words(text):
    return " ".join(re.findall(r"\w+", text.lower()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default="target/release/ppl-filter")
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("sets", nargs="*", default=["fundus", "articles/l3s-gn1", "articles/dragnet"])
    args = parser.parse_args()
    for name in args.sets:
        root = os.path.join(args.data, name)
        with tempfile.TemporaryDirectory() as out:
            subprocess.run(
                [args.bin, "-q", "--output-dir", out, os.path.join(root, "input")],
                check=False,
                stderr=subprocess.DEVNULL,
            )
            pages, missing = 0, []
            for gold in sorted(glob.glob(os.path.join(root, "gold", "*.txt"))):
                with open(gold, encoding="utf-8", errors="replace") as f:
                    lines = [line for line in f.read().splitlines() if line.strip()]
                if not lines:
                    continue
                pages += 1
                stem = os.path.basename(gold)
                cleaned = os.path.join(out, stem)
                text = ""
                if os.path.exists(cleaned):
                    with open(cleaned, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                if words(lines[0]) not in words(text):
                    missing.append(stem[: -len(".txt")])
        print(f"{name}: {pages} pages, headline missing on {len(missing)}")
        for page in missing:
            print(f"  {page}")


if __name__ == "__main__":
    main()
