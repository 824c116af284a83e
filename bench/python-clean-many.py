"""How much faster `ppl_filter.clean_many` is on two threads than on one.

Cleans the first 1,000 shared pages (CleanEval tune then dev inputs, then the article sets,
each in sorted order) with threads=1 and threads=2, 5 runs each, alternating; prints the
median seconds of each, their ratio (the target is at least 1.8x) and whether the outputs of
every run are identical. A benchmark, not a test: it prints figures.

    python bench/python-clean-many.py [--shared DIR] [--pages 1000] [--runs 5]

Needs the package installed (scripts/check-python.sh makes python/.venv with it) and the
shared data beside the repository (../shared).
"""

import argparse
import statistics
import time
from pathlib import Path

import ppl_filter

ROOT = Path(__file__).resolve().parents[1]


def shared_pages(shared: Path, count: int) -> list:
    """The first `count` pages' bytes: CleanEval tune, dev, then the articles, each sorted."""
    data = shared / "data"
    groups = [
        sorted((data / "cleaneval" / "tune" / "input").glob("*.html")),
        sorted((data / "cleaneval" / "dev" / "input").glob("*.html")),
        sorted((data / "articles").glob("**/*.html")),
    ]
    paths = [path for group in groups for path in group][:count]
    if len(paths) < count:
        raise SystemExit(f"only {len(paths)} pages under {data}, wanted {count}")
    return [path.read_bytes() for path in paths]


def timed(pages: list, threads: int) -> tuple:
    """Seconds to clean the pages on `threads` threads, and the texts."""
    started = time.perf_counter()
    texts = ppl_filter.clean_many(pages, threads=threads, errors="ignore")
    return time.perf_counter() - started, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pages = shared_pages(args.shared, args.pages)
    megabytes = sum(map(len, pages)) / 1e6
    print(f"{len(pages)} pages, {megabytes:.1f} MB of HTML, {args.runs} runs each")
    seconds = {1: [], 2: []}
    outputs = set()
    for _ in range(args.runs):
        for threads in seconds:
            elapsed, texts = timed(pages, threads)
            seconds[threads].append(elapsed)
            outputs.add(tuple(texts))
    one, two = (statistics.median(seconds[t]) for t in (1, 2))
    print(f"threads=1: median {one:.2f} s  (runs: {', '.join(f'{s:.2f}' for s in seconds[1])})")
    print(f"threads=2: median {two:.2f} s  (runs: {', '.join(f'{s:.2f}' for s in seconds[2])})")
    print(f"ratio: {one / two:.2f}x (target >= 1.8x)")
    print(f"outputs identical over every run: {'yes' if len(outputs) == 1 else 'NO'}")
    if len(outputs) != 1:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
