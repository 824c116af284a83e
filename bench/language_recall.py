#!/usr/bin/env python3
"""bench/language_recall.py: how many Fundus pages the language filter keeps in their language.

    python3 bench/language_recall.py [--bin target/release/ppl-filter] [--data ../shared/data]

Fundus names each page by its publisher's country (`de-Spiegel_…`). Where the country has one
national language (COUNTRY below), each page is cleaned with `--target-language` set to it,
and kept when its record has text: the table gives, per language, the pages kept of those
whose country implies it. Countries of several languages (be, ca, ch, es, gl, ind, lu, tw, za)
are left out, as the name says nothing of the page's language there.
"""
import argparse
import collections
import glob
import json
import os
import subprocess

COUNTRY = {
    "at": "de", "de": "de", "li": "de", "au": "en", "uk": "en", "us": "en", "fr": "fr",
    "it": "it", "jp": "ja", "lt": "lt", "no": "no", "pl": "pl", "ru": "ru", "se": "sv",
    "vn": "vi", "isl": "is", "py": "es",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default="target/release/ppl-filter")
    parser.add_argument("--data", default="../shared/data")
    args = parser.parse_args()
    pages = collections.defaultdict(list)
    for page in sorted(glob.glob(os.path.join(args.data, "fundus", "input", "*.html.gz"))):
        country = os.path.basename(page).split("-", 1)[0]
        if country in COUNTRY:
            pages[COUNTRY[country]].append(page)
    print("| language | pages | kept | left out |")
    print("|---|---:|---:|---|")
    total = kept_total = 0
    for language, group in sorted(pages.items()):
        run = subprocess.run(
            [args.bin, "-q", "--format", "json", "--target-language", language, *group],
            capture_output=True, text=True,
        )
        if run.returncode not in (0, 1):
            # The language is not one whatlang tells: the run is refused (exit 2).
            print(f"| {language} | {len(group)} | – | all: `--target-language {language}` refused |")
            total += len(group)
            continue
        records = [json.loads(line) for line in run.stdout.splitlines()]
        kept = {r["source"] for r in records if r.get("text")}
        lost = [os.path.basename(p).split("_")[0] for p in group if p not in kept]
        print(f"| {language} | {len(group)} | {len(kept)} | {', '.join(lost)} |")
        total += len(group)
        kept_total += len(kept)
    print(f"| all | {total} | {kept_total} ({100 * kept_total / total:.1f} %) | |")


if __name__ == "__main__":
    main()
