#!/usr/bin/env python3
"""bench/metadata.py: ppl-filter's metadata against trafilatura's, page by page.

    python bench/metadata.py [--bin target/release/ppl-filter] [--data ../shared/data]

For the Fundus pages (whose gold's first line is the article's title) and the WCXB dev pages
(whose gold holds no metadata), it prints for each tool: how often the title equals the gold
after normalising (NFKC, case, quotes, dashes, outer punctuation; Fundus only), how many pages
get an author, a date, a site name, how many dates read as ISO 8601, and how many fields hold
a character reference, an author that is a URL or a site name that is a handle. ppl-filter
runs as `--format json`; trafilatura 2 (`extract_metadata`) runs when this Python has it (a
scratch virtualenv: `pip install trafilatura`); it is not a dependency of ppl-filter.
"""
import argparse
import glob
import gzip
import json
import os
import re
import subprocess
import unicodedata

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?)?$")
REFERENCE = re.compile(r"&(#\d+|#x[0-9a-f]+|[a-z]+\d*);", re.I)


def norm(text):
    text = unicodedata.normalize("NFKC", text or "").casefold()
    text = re.sub("[\u2018\u2019\u201a\u201b\u2032\u00b4`]", "'", text)
    text = re.sub("[\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033]", '"', text)
    text = re.sub("[\u2010-\u2015\u2212]", "-", text)
    return re.sub(r"\s+", " ", text).strip().strip(" .,;:!?\"'-|")


def ppl_filter(binary, pages):
    out = subprocess.run(
        [binary, "-q", "--format", "json", *pages], capture_output=True, check=True, text=True
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


def trafilatura_records(pages):
    try:
        from trafilatura import extract_metadata
    except ImportError:
        return None
    records = []
    for page in pages:
        raw = gzip.open(page).read() if page.endswith(".gz") else open(page, "rb").read()
        meta = extract_metadata(raw.decode("utf-8", "replace"))
        meta = meta.as_dict() if meta is not None else {}
        records.append({k: meta.get(k) for k in ("title", "author", "date", "sitename")})
    return records


def row(name, records, golds):
    n = len(records)
    filled = {k: sum(1 for r in records if r.get(k)) for k in ("author", "date", "sitename")}
    iso = sum(1 for r in records if r.get("date") and ISO.match(r["date"]))
    refs = sum(
        1
        for r in records
        for k, v in r.items()
        if k != "text" and isinstance(v, str) and REFERENCE.search(v)
    )
    urls = sum(1 for r in records if "://" in (r.get("author") or ""))
    handles = sum(1 for r in records if (r.get("sitename") or "").startswith("@"))
    title = "–"
    if golds:
        equal = sum(1 for r, g in zip(records, golds) if norm(r.get("title")) == norm(g))
        title = f"{100 * equal / n:.1f} %"
    print(
        f"| {name} | {n} | {title} | {filled['author']} | {filled['date']} | {iso} "
        f"| {filled['sitename']} | {refs} | {urls} | {handles} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default="target/release/ppl-filter")
    parser.add_argument("--data", default="../shared/data")
    args = parser.parse_args()
    print(
        "| set, tool | pages | title = gold | author | date | ISO date | site name "
        "| with a reference | author a URL | site a handle |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, pattern, gold_dir in [
        ("Fundus", "fundus/input/*.html.gz", "fundus/gold"),
        ("WCXB dev", "wcxb-dev/input/*.html.gz", None),
    ]:
        pages = sorted(glob.glob(os.path.join(args.data, pattern)))
        golds = None
        if gold_dir:
            golds = []
            for page in pages:
                stem = os.path.basename(page).split(".")[0]
                with open(os.path.join(args.data, gold_dir, stem + ".txt")) as gold:
                    golds.append(gold.readline().strip())
        row(f"{name}, ppl-filter", ppl_filter(args.bin, pages), golds)
        peer = trafilatura_records(pages)
        if peer is not None:
            row(f"{name}, trafilatura", peer, golds)


if __name__ == "__main__":
    main()
