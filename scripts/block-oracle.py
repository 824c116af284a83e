#!/usr/bin/env python3
"""The ceiling of choosing blocks: how well a reader who knew the gold could do by keeping or
dropping ppl-filter's blocks whole. Every page of INPUT_DIR (ID.html or ID.html.gz) that has a
gold GOLD_DIR/ID.txt is cut into blocks (`ppl-filter --format mark`: one block per line, dropped
sentences wrapped in <ppl …>); the blocks are taken in order, and one is kept when at least
SHARE of its words are gold words not yet matched (as bags of lowercase \\w+ words, WCXB's
measure). Prints the mean word F1 of that choice, per kind of page with PAGES_TSV (id, kind),
and, next to it, the mean word F1 of what ppl-filter kept (the same lines, marks removed).

Usage: scripts/block-oracle.py INPUT_DIR GOLD_DIR [PAGES_TSV]
  SHARE=0.7  BIN=target/release/ppl-filter  JOBS=$(nproc)
  FLAGS="..."  more flags for ppl-filter (e.g. --classifier FILE)
"""
import collections
import concurrent.futures
import gzip
import importlib.util
import os
import re
import shlex
import subprocess
import sys

# WCXB's measure and files, from scripts/score-wcxb.py: bag(text), f1(gold_bag, out_bag),
# read(path) and kinds_of(pages_tsv).
_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "score-wcxb.py")
_spec = importlib.util.spec_from_file_location("score_wcxb", _path)
_wcxb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wcxb)
bag, f1, read, kinds_of = _wcxb.bag, _wcxb.f1, _wcxb.read, _wcxb.kinds_of

DROPPED = re.compile(r'<ppl score="[^"]*">(.*?)</ppl>')


def blocks(path, command):
    """Each block of the page: (every word, the words ppl-filter kept)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        page = f.read()
    marked = subprocess.run(command, input=page, capture_output=True, check=False).stdout
    for line in marked.decode("utf-8", "replace").splitlines():
        yield bag(DROPPED.sub(r"\1", line)), bag(DROPPED.sub("", line))


def score(path, gold_path, command, share):
    gold = bag(read(gold_path))
    left, chosen, kept = gold.copy(), collections.Counter(), collections.Counter()
    for words, kept_words in blocks(path, command):
        kept += kept_words
        total = sum(words.values())
        if total and sum((words & left).values()) >= share * total:
            chosen += words
            left -= words
    return f1(gold, chosen), f1(gold, kept)


def main():
    input_dir, gold_dir = sys.argv[1:3]
    kinds = kinds_of(sys.argv[3]) if len(sys.argv) > 3 else {}
    share = float(os.environ.get("SHARE", "0.7"))
    command = [os.environ.get("BIN", "target/release/ppl-filter"), "-q", "-j1", "--format", "mark"]
    command += shlex.split(os.environ.get("FLAGS", ""))
    pages = {}
    for name in sorted(os.listdir(input_dir)):
        page_id = re.sub(r"\.html?(\.gz)?$", "", name)
        gold_path = os.path.join(gold_dir, page_id + ".txt")
        if page_id != name and os.path.exists(gold_path):
            pages[page_id] = (os.path.join(input_dir, name), gold_path)
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("JOBS", os.cpu_count()))) as pool:
        futures = {i: pool.submit(score, p, g, command, share) for i, (p, g) in pages.items()}
        per = collections.defaultdict(list)
        for page_id, future in futures.items():
            scores = future.result()
            per[kinds.get(page_id, "all")].append(scores)
            if kinds:
                per["ALL"].append(scores)
    print(f"{'kind':<14} {'pages':>5} {'ceiling':>7} {'kept':>7}   (blocks kept at SHARE {share})")
    for kind in sorted(per, key=lambda k: (k == "ALL", k)):
        s = per[kind]
        print(f"{kind:<14} {len(s):5d} {sum(c for c, _ in s) / len(s):7.4f} {sum(k for _, k in s) / len(s):7.4f}")


if __name__ == "__main__":
    main()
