"""Clean the HTML responses of WARC files into JSONL with datatrove and ppl-filter.

    python examples/datatrove_pipeline.py CRAWL_DIR OUTPUT_DIR [--glob '*.warc.gz'] [--tasks 2]

Reads every WARC file of CRAWL_DIR matching the glob (datatrove's WarcReader), keeps each
page's main content with ppl-filter (PplFilter, where datatrove's Trafilatura extractor would
stand) and writes one gzipped JSONL file per task to OUTPUT_DIR (JsonlWriter). Each document
keeps the reader's metadata (its URL, the crawl date as `date`) and gains the page's: `kind`,
`lang`, `title`, `author`, the page's own date as `date_published`, `sitename`,
`description`. Needs `pip install ppl_filter "datatrove[io]"`; python/tests/test_datatrove.py
runs it on a WARC of three fixture pages.
"""

import argparse
import os

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter

from ppl_filter.datatrove import PplFilter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crawl", help="directory of WARC files")
    parser.add_argument("output", help="directory for the JSONL output")
    parser.add_argument("--glob", default="*.warc.gz", help="which files of CRAWL_DIR to read")
    parser.add_argument("--tasks", type=int, default=1, help="datatrove tasks (files in parallel)")
    args = parser.parse_args()
    LocalPipelineExecutor(
        pipeline=[
            WarcReader(args.crawl, glob_pattern=args.glob),
            PplFilter(),
            JsonlWriter(args.output),
        ],
        tasks=args.tasks,
        logging_dir=os.path.join(args.output, "logs"),
    ).run()


if __name__ == "__main__":
    main()
