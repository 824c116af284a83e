#!/usr/bin/env python3
"""Deals a set's pages into folds by site, so that the pages of one site (one template) are
never on both sides of a fold: the site is the host of the page's URL (DIR/pages.tsv, as WCXB
has it, or CleanEval's <text id="URL">) or the publisher of a Fundus file name
(CC-Publisher_YYYY_MM_DD); sites are sorted by a hash of their name and dealt in turn. A set
with no site known (the article sets) deals its pages by name, page i to fold i mod FOLDS.

Usage: scripts/folds.py DIR FOLDS   prints "fold<TAB>page file" for every page of DIR/input.
scripts/cross-validate-sets.sh and scripts/learn-page-kinds.py deal their folds with it.
"""
import os
import re
import sys
import zlib
from urllib.parse import urlsplit


def stem(f):
    return re.sub(r"\.html?(\.gz)?$", "", f)


def host(url):
    h = urlsplit(url.strip()).hostname or ""
    return h[4:] if h.startswith("www.") else h


def folds_of(dir, folds):
    """{page file name: fold} for every page of DIR/input."""
    pages = sorted(f for f in os.listdir(f"{dir}/input") if re.search(r"\.html?(\.gz)?$", f))
    urls = {}
    if os.path.exists(f"{dir}/pages.tsv"):
        for line in open(f"{dir}/pages.tsv"):
            cols = line.rstrip("\n").split("\t")
            if cols[0] != "id" and len(cols) > 2:
                urls[cols[0]] = cols[2]

    def site(f):
        if stem(f) in urls:
            return host(urls[stem(f)])
        m = re.match(r"([a-z]{2}-[^_]+)_\d{4}_\d\d_\d\d$", stem(f))
        if m:
            return m.group(1)
        if f.endswith(".html"):
            m = re.match(rb'\s*<text id="([^"]+)"', open(f"{dir}/input/{f}", "rb").read(512))
            if m:
                return host(m.group(1).decode("latin-1"))
        return None

    sites = [site(f) for f in pages]
    if None in sites:
        return {f: i % folds for i, f in enumerate(pages)}
    order = sorted(set(sites), key=lambda s: (zlib.crc32(s.encode()), s))
    of_site = {s: i % folds for i, s in enumerate(order)}
    return {f: of_site[s] for f, s in zip(pages, sites)}


if __name__ == "__main__":
    for f, fold in folds_of(sys.argv[1], int(sys.argv[2])).items():
        print(f"{fold}\t{f}")
