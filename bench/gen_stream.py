"""Generated streams for the memory benchmarks, written to stdout, never to disk.

    gen_stream.py pages TOTAL_BYTES PATHO_PERCENT PAGES_FILE
        exactly TOTAL_BYTES: the pages repeated, then one pathological page (a single text
        node of PATHO_PERCENT % of the stream: words, no sentence punctuation), then the pages
        repeated again (bench/run.sh's memory part);
    gen_stream.py tiny TOTAL_BYTES
        exactly TOTAL_BYTES of one-word paragraphs, `<p>a</p>`, the most blocks per byte;
    gen_stream.py KIND N
        the pathological pages of the robustness issue, N repetitions of their unit:
        cjk (`<p>` + N × 中), li (N × `<li>item `), div (N nested `<div>`, then text),
        table (N nested `<table>`, then text), attribute (one tag with an N-byte attribute),
        warc-gzip (one WARC response whose gzip body inflates to N × `<p>a</p>`).
"""
import gzip
import random
import sys

out = sys.stdout.buffer


def emit(source, n):
    """Writes n bytes: source repeated, the last copy cut short."""
    while n > 0:
        piece = source[:n]
        out.write(piece)
        n -= len(piece)


def pages(total, patho_percent, pages_path):
    pages = open(pages_path, "rb").read()
    head, tail = b"<html><body><p>", b"</p></body></html>\n"
    words = """the of and to in a is that for it as was with be by on not he this are or his from at
which but have an they you were her she there been one all we their has would when if so no will
more out up into do any your what some can other than then them only time could these two may
first about new after also made many must before such years where through long each well people
too little state good very make world still own see men work way even back between life being
under never day same another know while last might us great old year off come since against go
came right used take three""".split()
    rng = random.Random(42)
    words_chunk = bytearray()
    while len(words_chunk) < 1 << 20:
        words_chunk += rng.choice(words).encode() + b" "
    patho = max(total * patho_percent // 100, len(head) + len(tail))
    pages_before = (total - patho) // 2
    emit(pages, pages_before)
    out.write(head)
    emit(bytes(words_chunk), patho - len(head) - len(tail))
    out.write(tail)
    emit(pages, total - patho - pages_before)


def tiny(total):
    emit(b"<p>a</p>" * (1 << 17), total)


def warc_gzip(n):
    body = gzip.compress(b"<p>a</p>" * n, compresslevel=9)
    http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)) + body
    header = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n"
              b"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n"
              b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n" % len(http))
    out.write(header + http + b"\r\n\r\n")


UNITS = {
    "cjk": (b"<p>", "中".encode(), b"\n"),
    "li": (b"", b"<li>item ", b"\n"),
    "div": (b"", b"<div>", b"deep text</div>\n"),
    "table": (b"", b"<table>", b"<tr><td>deep cell</td></tr>\n"),
    "attribute": (b'<p>before</p><a title="', b"x", b'">link</a><p>after</p>\n'),
}


def repeat(kind, n):
    head, unit, tail = UNITS[kind]
    out.write(head)
    emit(unit * (1 << 16), n * len(unit))
    out.write(tail)


if __name__ == "__main__":
    kind, args = sys.argv[1], sys.argv[2:]
    try:
        if kind == "pages":
            pages(int(args[0]), int(args[1]), args[2])
        elif kind == "tiny":
            tiny(int(args[0]))
        elif kind == "warc-gzip":
            warc_gzip(int(args[0]))
        elif kind in UNITS:
            repeat(kind, int(args[0]))
        else:
            sys.exit(f"gen_stream.py: unknown kind {kind!r}")
    except BrokenPipeError:
        pass
