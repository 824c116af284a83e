#!/usr/bin/env python3
"""WCXB's own measure: for each page, the F1 of the bag of lowercase \\w+ words of OUT_DIR/ID.txt
against GOLD_DIR/ID.txt; prints the mean F1 per kind of page (PAGES_TSV: id, page_type, url) and
over all pages. A missing output counts as empty.

Usage: scripts/score-wcxb.py OUT_DIR GOLD_DIR PAGES_TSV [ROWS_TSV]
  ROWS_TSV  also writes one row per page: id, kind, F1, gold words, output words
"""
import collections
import os
import re
import sys

WORD = re.compile(r"\w+")


def bag(text):
    return collections.Counter(w.lower() for w in WORD.findall(text))


def read(path):
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def f1(gold, out):
    if not gold and not out:
        return 1.0
    common = sum((gold & out).values())
    if common == 0:
        return 0.0
    p, r = common / sum(out.values()), common / sum(gold.values())
    return 2 * p * r / (p + r)


def kinds_of(tsv):
    """Each page's kind, by id, from a pages.tsv (id, page_type, url; a header line "id…")."""
    kinds = {}
    with open(tsv) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols[0] != "id":
                kinds[cols[0]] = cols[1]
    return kinds


def main():
    out_dir, gold_dir, tsv = sys.argv[1:4]
    per, rows = collections.defaultdict(list), []
    for pid, kind in sorted(kinds_of(tsv).items()):
        gold_path = os.path.join(gold_dir, pid + ".txt")
        if not os.path.exists(gold_path):
            continue
        gold, out = bag(read(gold_path)), bag(read(os.path.join(out_dir, pid + ".txt")))
        score = f1(gold, out)
        per[kind].append(score)
        per["ALL"].append(score)
        rows.append((pid, kind, score, sum(gold.values()), sum(out.values())))
    for kind in sorted(per, key=lambda k: (k == "ALL", k)):
        scores = per[kind]
        print(f"{kind:<14} {len(scores):5d} {sum(scores) / len(scores):.4f}")
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w") as f:
            for row in rows:
                f.write("%s\t%s\t%.4f\t%d\t%d\n" % row)


if __name__ == "__main__":
    main()
