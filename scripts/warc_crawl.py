#!/usr/bin/env python3
"""Writes a small crawl with warcio (gzip members, as crawlers write them) to argv[1]: HTML
responses with status 200 (plain, gzip-encoded, chunked, brotli-encoded), 404 and 301, and
non-HTML payloads (PNG, PDF). Used by scripts/check-warc-output.sh."""
import gzip
import sys
from io import BytesIO

import brotli
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter


def page(words):
    paragraphs = "".join(f"<p>{w} The committee met on Tuesday and approved the plan for the new library, "
                         "which will open next spring after two years of work.</p>" for w in words)
    return f"<html><body><nav><a href='/'>Home</a></nav><article>{paragraphs}</article></body></html>".encode()


def chunked(body):
    return b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"


RECORDS = [
    ("http://example.com/plain", "200 OK", [("Content-Type", "text/html; charset=utf-8")], page(["Plain."])),
    ("http://example.com/gzip", "200 OK", [("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
     gzip.compress(page(["Gzipped."]), mtime=0)),
    ("http://example.com/chunked", "200 OK", [("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")],
     chunked(page(["Chunked."]))),
    ("http://example.com/brotli", "200 OK", [("Content-Type", "text/html"), ("Content-Encoding", "br")],
     brotli.compress(page(["Brotli."]))),
    ("http://example.com/missing", "404 Not Found", [("Content-Type", "text/html")], page(["Missing."])),
    ("http://example.com/moved", "301 Moved Permanently",
     [("Content-Type", "text/html"), ("Location", "http://example.com/plain")], page(["Moved."])),
    ("http://example.com/dot.png", "200 OK", [("Content-Type", "image/png")], b"\x89PNG\r\n\x1a\n" + bytes(range(64))),
    ("http://example.com/paper.pdf", "200 OK", [("Content-Type", "application/pdf")], b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"),
]

with open(sys.argv[1], "wb") as out:
    writer = WARCWriter(out, gzip=True)
    writer.write_record(writer.create_warcinfo_record("crawl.warc.gz", {"software": "warc_crawl.py"}))
    for uri, status, headers, body in RECORDS:
        http = StatusAndHeaders(status, headers + [("Content-Length", str(len(body)))], protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(uri, "response", payload=BytesIO(body), http_headers=http))
