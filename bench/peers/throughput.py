"""A peer of bench/run.sh: resiliparse's main-content extraction over the pages of the
benchmark stream, cut by their byte lengths.

    python throughput.py --lengths FILE < stream.html > text

FILE holds the byte length of each page of the stream, one integer per line, in stream order.
Each page is cut from standard input, decoded with resiliparse's own encoding detection
(detect_encoding + bytes_to_str), given to extract_plain_text(html, main_content=True), and
the text is written to standard output followed by a newline. A page it fails on writes
nothing (a line on stderr) and the run goes on. Run it with the virtualenv made by
bench/run.sh (bench/peers/.venv, bench/peers/requirements.txt); resiliparse is not a
dependency of ppl-filter.
"""
import argparse
import sys

from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.encoding import bytes_to_str, detect_encoding


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", required=True, help="file of page byte lengths, one a line")
    args = parser.parse_args()
    with open(args.lengths) as f:
        lengths = [int(line) for line in f if line.strip()]

    stdin = sys.stdin.buffer
    out = sys.stdout
    done = failed = 0
    for i, length in enumerate(lengths, 1):
        page = stdin.read(length)
        if len(page) < length:
            sys.exit(f"throughput.py: stdin ends inside page {i} ({len(page)} of {length} bytes)")
        try:
            html = bytes_to_str(page, detect_encoding(page))
            text = extract_plain_text(html, main_content=True)
        except Exception as e:  # noqa: BLE001 — a failed page is counted and skipped
            print(f"throughput.py: page {i}: {e}", file=sys.stderr)
            failed += 1
            continue
        out.write(text)
        out.write("\n")
        done += 1
    out.flush()
    print(f"throughput.py: {done} pages extracted, {failed} failed", file=sys.stderr)


if __name__ == "__main__":
    main()
