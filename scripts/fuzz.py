#!/usr/bin/env python3
"""Mutation fuzzer for the ppl-filter binary (driven by scripts/fuzz.sh; standard library only).

Every case picks a seed (an HTML page, a WARC or WARC.gz file, a JSONL file, a language model
or a classifier), damages it with 1..N random mutations (byte flips, inserted, deleted and
duplicated ranges, splices from other seeds, truncation, pathological constructs such as a
huge CJK text node, 70,000 unclosed <li>, deep nesting, NUL bytes, huge attributes, \\ud800
JSON escapes, huge Content-Length, junk between gzip members, `HTTP/1.1 100 Continue`), writes
it and runs ppl-filter on it twice, with -j1 and with -j2, each under a timeout and an
address-space limit. Model and classifier cases pass the damaged file as --model or
--classifier and clean a small fixture page.

A case fails when a run
  * exits 101 or prints a panic (`panicked at`) on stderr,
  * dies of a signal (including an abort after a failed allocation under the memory limit),
  * does not finish within the timeout (a hang),
  * exits with a status other than 0, 1 or 2, or with 0 although it reported a problem, or
    with 1 or 2 without reporting one,
  * writes a stderr line that is not a single `ppl-filter: <input or model path>: ...` line,
or when -j1 and -j2 differ (stdout byte for byte, exit status, stderr), or, for generated
WARC and JSONL files whose damage keeps the framing of the other records, when an intact HTML
response record is missing from the output or the JSONL output has a different number of lines
than the input.

Besides these five kinds, the edges have targets of their own, each a module next to this file
(`scripts/fuzz_<name>.py` for pipes, outputs, serve, python and fetch; see MODULES): a module is
imported when its file exists and its optional `available(binary)` says yes, one `Target` is
made per worker that needs it (a Target serves one case at a time), each of its cases gets an
empty directory OUT_DIR/<case>-<kind>/ (kept, with FAILURE.txt, when the case fails) and a
random stream seeded like the other kinds', and every Target is closed at the end, also after
Ctrl-C or SIGTERM. FUZZ_KINDS=pages,pipes,... (or --kinds) restricts a run to some kinds.

Each case is generated from its own random stream, seeded with "<FUZZ_SEED>/<case number>", so
`fuzz.py --seed S --case N` rebuilds exactly case N of a run with seed S. Every failing case is
kept under OUT_DIR/<case>-<kind>/ with its input files, the outputs that matter and FAILURE.txt
(which checks failed, the mutations applied, the exact commands to reproduce).
"""

import argparse
import array
import concurrent.futures
import fcntl
import gzip
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import traceback
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("pages", "warc", "jsonl", "model", "classifier")
# How often each kind of seed is picked.
KIND_WEIGHTS = (35, 25, 18, 11, 11)
# Targets in modules of their own (scripts/fuzz_<name>.py, the interface in their docs), and how
# often each is picked against the 100 of the five kinds above: with all four, a third of the
# cases go to the edges, which are new (the mutation kinds above had run clean for over 10,000
# cases when they came) and where issue 33 found what failed; pipes and outputs get more as
# they cover several ways in and out per case and are cheap (two to four runs of the binary).
MODULES = ("pipes", "outputs", "serve", "python", "fetch")
MODULE_WEIGHTS = {"pipes": 15, "outputs": 15, "serve": 10, "python": 10, "fetch": 10}
# Largest file a mutation may produce (bigger results are cut).
MAX_FILE_BYTES = 24 << 20
# The classifier's input width (EVIDENCE_VALUES × (2 × CONTEXT_RADIUS + 1), src/decide/classifier.rs).
CLASSIFIER_INPUTS = 27 * 5
LEAF = 65535


# ---------------------------------------------------------------------------------------------
# Seeds


class Seeds:
    """Every seed file, read once, by kind; and small models and classifiers made at startup."""

    def __init__(self, binary, corpus_dirs, work):
        fixtures = os.path.join(ROOT, "fixtures")
        self.fixture_pages = [read(p) for p in listing(os.path.join(fixtures, "pages"), (".html",))]
        self.fixture_pages += [read(os.path.join(fixtures, "empty.html"))]
        self.pages = list(self.fixture_pages)
        self.corpus_pages = 0
        for d in corpus_dirs:
            for path in listing(d, (".html", ".htm")):
                self.pages.append(read(path))
                self.corpus_pages += 1
        self.binary_blobs = [read(os.path.join(fixtures, "binary.bin"))]
        self.warcs = [read(os.path.join(fixtures, "warc", n)) for n in ("small.warc", "small.warc.gz")]
        self.jsonls = [read(os.path.join(fixtures, "jsonl", "pages.jsonl"))]
        self.texts = [read(p) for p in listing(os.path.join(fixtures, "eval", "gold"), (".txt",))]
        self.texts.append(read(os.path.join(fixtures, "gold", "news.txt")))

        # Models: the embedded 14 MB English model and two small ones trained on the fixtures'
        # gold text (small enough that mutations land in every part of the format).
        self.big_model = subprocess.run([binary, "--generate", "model"], check=True, stdout=subprocess.PIPE).stdout
        gold = [os.path.join(fixtures, "gold", "news.txt")]
        gold += listing(os.path.join(fixtures, "eval", "gold"), (".txt",))
        self.small_models = []
        for order, files in ((3, gold), (2, gold[:1])):
            out = os.path.join(work, f"seed-order{order}.bin")
            subprocess.run([binary, "train", "-o", out, "--order", str(order), "--min-count", "1"] + files,
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.small_models.append(read(out))

        # Classifiers: the embedded one, and small ones (its first trees, or a logistic
        # scorer) over a small boilerplate model.
        self.big_classifier = read(os.path.join(ROOT, "model", "en-classifier.bin"))
        weights, _ = split_classifier(self.big_classifier)
        self.weights = weights
        few = dict(weights, scorer=dict(weights["scorer"], trees=weights["scorer"]["trees"][:3]))
        logistic = dict(weights, scorer={
            "kind": "logistic", "mean": [0.5] * CLASSIFIER_INPUTS, "scale": [1.0] * CLASSIFIER_INPUTS,
            "weights": [0.01 * ((i % 7) - 3) for i in range(CLASSIFIER_INPUTS)], "intercept": 0.25})
        self.small_classifiers = [join_classifier(w, m) for w in (few, logistic) for m in self.small_models]

    def counts(self):
        return (f"{len(self.pages)} pages ({self.corpus_pages} from the corpus), {len(self.warcs)} WARC, "
                f"{len(self.jsonls)} JSONL, {1 + len(self.small_models)} models, "
                f"{1 + len(self.small_classifiers)} classifiers")

    def any_bytes(self, rng):
        """Any seed's bytes, for splicing."""
        pool = rng.choice([self.pages, self.pages, self.warcs, self.jsonls, self.texts, self.binary_blobs,
                           self.small_models, self.small_classifiers])
        return rng.choice(pool)


def listing(directory, suffixes):
    if not os.path.isdir(directory):
        return []
    return sorted(os.path.join(directory, n) for n in os.listdir(directory) if n.endswith(suffixes))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def split_classifier(data):
    """(weights as a dict, model bytes) of a well-formed classifier file."""
    end = data.index(b"\n")
    n = int(data[7:end])
    return json.loads(data[end + 1:end + 1 + n]), data[end + 1 + n:]


def join_classifier(weights, model):
    text = weights if isinstance(weights, bytes) else json.dumps(weights, separators=(",", ":")).encode()
    return b"PPLC 1 %d\n" % len(text) + text + model


# ---------------------------------------------------------------------------------------------
# Generic byte mutations


INTERESTING_BYTES = b"\x00\xff\x7f\x80\xc0\xe0\xf0\xf4\xed\r\n\t <>&\"'/=;:#\\{}[],%"


def span(rng, size, small=64):
    """A range length: mostly short, sometimes long."""
    roll = rng.random()
    if roll < 0.7:
        return rng.randint(1, small)
    if roll < 0.95:
        return rng.randint(1, max(1, size // 8 + 1))
    return rng.randint(1, max(1, size))


def mutate_bytes(rng, data, seeds, tokens, log):
    """One generic mutation of `data` (a bytearray), in place; `tokens` are the kind's markup."""
    n = len(data)
    what = rng.choice(["flip", "set", "insert", "token", "delete", "duplicate", "splice", "truncate",
                       "overwrite", "repeat_token"])
    if n == 0 and what in ("flip", "set", "delete", "duplicate", "truncate", "overwrite"):
        what = "token"
    at = rng.randint(0, n)
    if what == "flip":
        i = rng.randrange(n)
        data[i] ^= 1 << rng.randrange(8)
        log.append(f"flip a bit at {i}")
    elif what == "set":
        i = rng.randrange(n)
        data[i] = rng.choice(INTERESTING_BYTES) if rng.random() < 0.6 else rng.randrange(256)
        log.append(f"set byte {i} to {data[i]:#04x}")
    elif what == "insert":
        k = span(rng, 64, 16)
        data[at:at] = bytes(rng.randrange(256) for _ in range(k))
        log.append(f"insert {k} random bytes at {at}")
    elif what in ("token", "repeat_token"):
        token = rng.choice(tokens)
        times = 1 if what == "token" else rng.choice([2, 10, 100, 1000, 10000])
        data[at:at] = token * times
        log.append(f"insert {token[:40]!r} x{times} at {at}")
    elif what == "delete":
        i = rng.randrange(n)
        k = span(rng, n - i)
        del data[i:i + k]
        log.append(f"delete {k} bytes at {i}")
    elif what == "duplicate":
        i = rng.randrange(n)
        k = span(rng, n - i)
        times = rng.choice([1, 1, 2, 5, 50])
        data[at:at] = bytes(data[i:i + k]) * times
        log.append(f"copy bytes {i}..{i + k} x{times} to {at}")
    elif what == "splice":
        other = seeds.any_bytes(rng)
        if other:
            i = rng.randrange(len(other))
            k = span(rng, len(other) - i, 4096)
            data[at:at] = other[i:i + k]
            log.append(f"splice {k} bytes of another seed at {at}")
    elif what == "truncate":
        cut = rng.randrange(n)
        del data[cut:]
        log.append(f"truncate to {cut} bytes")
    elif what == "overwrite":
        i, j = rng.randrange(n), rng.randrange(n)
        k = min(span(rng, n), n - i, n - j)
        data[j:j + k] = data[i:i + k]
        log.append(f"overwrite {k} bytes at {j} with bytes from {i}")


def mutate_many(rng, data, seeds, tokens, log, most=8):
    data = bytearray(data)
    for _ in range(rng.randint(1, most)):
        if rng.random() < 0.3:
            insert_at(rng, data, rng.choice(HTML_CONSTRUCTS)(rng), log)
        else:
            mutate_bytes(rng, data, seeds, tokens, log)
    return bytes(data[:MAX_FILE_BYTES])


def insert_at(rng, data, construct, log):
    name, blob = construct
    at = rng.randint(0, len(data))
    data[at:at] = blob
    log.append(f"insert {name} ({len(blob)} bytes) at {at}")


# ---------------------------------------------------------------------------------------------
# Pathological HTML


HTML_TOKENS = [b"<", b">", b"</", b"<p>", b"</p>", b"<div>", b"</div>", b"<li>", b"<br>", b"<pre>", b"</pre>",
               b"<table>", b"<td>", b"<tr>", b"<a href='/x'>", b"</a>", b"<script>", b"</script>", b"<style>",
               b"<!--", b"-->", b"<![CDATA[", b"]]>", b"<title>", b"<h1>", b"<nav>", b"<textarea>",
               b"<plaintext>", b"<svg>", b"<math>", b"<template>", b"&amp;", b"&", b"&#", b"&#x", b"&#0;",
               b"&#xD800;", b"&#x10FFFF;", b"&#1114112;", b"&nbsp;", b"&notin", b"\x00", b"\r", b"\r\n",
               b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc3",
               b"\xe4\xb8", b"\xe2\x80\xa8", b"\xe2\x80\x8d", b"\xcc\x81", b"\xf0\x9f\x98\x80", b". ", b"... ",
               b"Mr. ", b"e.g. ", b"http://x.y/z.html ", b"3.14 ", b"<meta charset=utf-16>",
               b"<meta charset=shift_jis>", b"<meta http-equiv=content-type content='text/html; charset=iso-2022-jp'>",
               b"<meta charset=x-user-defined>", b"<meta charset=replacement>", b"<meta charset=utf-7>",
               b"<text id=1 title=t>", b"<div class='nav footer sidebar' id='content'>", b"<p class=\"",
               b"<img src=x alt='", b"<select><option>", b"<frameset>", b"<noscript>", b"<iframe>", b"<object>",
               b"<th>", b"<thead>", b"<td colspan=1000000>", b"<td rowspan=0>", b"<caption>", b"<code>", b"</code>",
               b"<pre><code class=language-x>", b"<ol start=-7>", b"<ol start=99999999999>", b"<blockquote>",
               b"<math>", b"</math>", b"<math display=block>", b"<annotation encoding='application/x-tex'>",
               b"</annotation>", b"<mfrac>", b"<msup>", b"<mo>(</mo>", b"<mtable><mtr><mtd>", b"<mi>",
               b"<script type='math/tex'>", b"<span data-math='\\frac{'>", b"<sub>", b"<sup>"]

CJK_CHARS = ["中", "文", "日本語", "한국어", "ไทย", "😀", "👩‍👩‍👧", "e\u0301", "\u200f", "\u00a0", "ß", "ﷺ", "\U0010fffd"]


def html_huge_text(rng):
    chars = rng.choice(CJK_CHARS)
    n = rng.choice([5000, 30000, 70000, 100000, 300000]) // len(chars)
    sep = rng.choice(["", "", " ", "。", ". "])
    text = (chars + sep) * n
    return "huge text node of " + repr(chars), (rng.choice(["<p>", "<pre>", "<li>", "", "<td>"]) + text).encode()


def html_unclosed(rng):
    tag = rng.choice(["li", "li", "p", "td", "tr", "dd", "option", "a href=x", "b", "span", "h1"])
    n = rng.choice([1000, 10000, 70000])
    text = rng.choice(["", "x", "item ", "Word. "])
    return f"{n} unclosed <{tag}>", (f"<{tag}>{text}" * n).encode()


def html_nested(rng):
    open_, close = rng.choice([("<div>", "</div>"), ("<table><tr><td>", "</td></tr></table>"), ("<ul><li>", "</li></ul>"),
                               ("<b><i>", "</i></b>"), ("<blockquote>", "</blockquote>"), ("<a href=x>", "</a>"),
                               ("<pre>", "</pre>"), ("<span>", "</span>"), ("<div><p>", "</p></div>")])
    n = rng.choice([100, 1000, 10000, 100000])
    closed = rng.random() < 0.5
    inner = rng.choice(["", "Deep text here.", "x"])
    return f"{n} nested {open_}", (open_ * n + inner + (close * n if closed else "")).encode()


def html_nul(rng):
    n = rng.choice([1, 10, 1000, 100000])
    if rng.random() < 0.5:
        return f"{n} NUL bytes", b"\x00" * n
    return f"{n} NULs between words", b"w\x00" * n


def html_huge_attribute(rng):
    n = rng.choice([1000, 100000, 1 << 20, (8 << 20) + 10])
    name = rng.choice(["class", "href", "title", "data-x" * 100])
    quote = rng.choice(['"', "'", ""])
    end = rng.choice([quote + ">text</p>", ""])
    return f"{n}-byte attribute", f"<p {name}={quote}".encode() + b"a" * n + end.encode()


def html_huge_markup(rng):
    n = rng.choice([1000, 100000, 1 << 20])
    what = rng.choice(["tag name", "comment", "script", "title", "entity", "doctype", "closing tag", "attributes"])
    blob = {
        "tag name": b"<" + b"x" * n + b">",
        "comment": b"<!--" + b"-" * n,
        "script": b"<script>" + b"if(a<b){}" * (n // 9),
        "title": b"<title>" + b"Title words " * (n // 12),
        "entity": b"&" + b"a" * n + b";",
        "doctype": b"<!DOCTYPE " + b"x" * n,
        "closing tag": b"</" + b"p " * (n // 2) + b">",
        "attributes": b"<p " + b"a=1 " * (n // 4) + b">",
    }[what]
    return f"huge {what}", blob


def html_text_shapes(rng):
    n = rng.choice([1000, 20000, 100000])
    shape = rng.choice(["long word", "sentence without end", "many sentences", "many br", "pre lines",
                        "dots", "urls", "numbers", "cr only", "mixed scripts", "entities"])
    blob = {
        "long word": "<p>" + "a" * n,
        "sentence without end": "<p>" + "and the council said " * (n // 21),
        "many sentences": "<p>" + "Yes. " * (n // 5),
        "many br": "<p>" + "line<br>" * (n // 8),
        "pre lines": "<pre>" + "code line\n" * (n // 10) + "</pre>",
        "dots": "<p>" + "." * n,
        "urls": "<p>" + "see http://example.com/a.b.c?d=e. " * (n // 35),
        "numbers": "<p>" + "1.2.3.4 " * (n // 8),
        "cr only": "<pre>" + "line\r" * (n // 5),
        "mixed scripts": "<p>" + "Hello мир 世界 عالم. " * (n // 20),
        "entities": "<p>" + "&amp;&lt;&#x1F600;&nbsp;&bogus;" * (n // 30),
    }[shape]
    return shape, blob.encode("utf-8")


def html_encoding(rng):
    what = rng.choice(["utf-16le bom", "utf-16be bom", "utf-8 bom", "meta utf-16", "meta shift_jis",
                       "invalid utf-8", "latin-1 bytes", "surrogates"])
    blob = {
        "utf-16le bom": b"\xff\xfe" + "<p>Text in UTF-16. 中文</p>".encode("utf-16-le"),
        "utf-16be bom": b"\xfe\xff" + "<p>Text in UTF-16. 中文</p>".encode("utf-16-be"),
        "utf-8 bom": b"\xef\xbb\xbf<p>Text.</p>",
        "meta utf-16": b"<meta charset=utf-16><p>Not really UTF-16.</p>",
        "meta shift_jis": b"<meta charset=shift_jis><p>\x82\xa0\x82\xa2\x82\xa4 \x81</p>",
        "invalid utf-8": bytes(rng.randrange(0x80, 0x100) for _ in range(rng.choice([10, 1000, 100000]))),
        "latin-1 bytes": b"<p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>" * 100,
        "surrogates": b"<p>" + b"\xed\xa0\x80\xed\xbf\xbf" * 1000,
    }[what]
    return what, blob


def html_structure(rng):
    """The shapes of structure at their bounds: deep tables, lists and MathML, huge spans, ragged
    rows, broken TeX, huge code blocks and tables."""
    n = rng.choice([10, 1000, 10000, 100000])
    shape = rng.choice(["nested tables", "colspan", "ragged rows", "deep mathml", "wide mathml", "broken tex",
                        "huge pre", "huge table", "deep lists", "marks"])
    blob = {
        "nested tables": "<table><tr><th>h</th><td>" * min(n, 1000) + "cell" + "</td></tr></table>" * min(n, 1000),
        "colspan": "<table>" + "<tr><td colspan=1000000>a</td><td colspan=-3>b</td><td colspan=x>c</td></tr>" * (n // 10 + 2)
                   + "</table>",
        "ragged rows": "<table>" + "".join("<tr>" + "<td>v</td>" * rng.randrange(0, 40) for _ in range(n // 10 + 2)),
        "deep mathml": "<p>Let <math>" + "<mrow><msup><mfrac>" * n + "<mi>x</mi>" + "</mfrac></msup></mrow>" * (n // 2)
                       + " be small.</p>",
        "wide mathml": "<p><math>" + "<mi>x</mi><mo>(</mo><mtable><mtr><mtd><mn>1</mn>" * (n // 10 + 1) + "</math></p>",
        "broken tex": "<p>See <math><semantics><mi>a</mi><annotation encoding='application/x-tex'>"
                      + "\\frac{{}$$\\\\" * (n // 10 + 1) + "</annotation></semantics></math> here.</p>",
        "huge pre": "<pre><code class=language-rust>" + "    let x = y;\n" * n + "</code></pre>",
        "huge table": "<table><thead><tr><th>a</th><th>b</th></tr></thead>" + "<tr><td>1</td><td>2</td></tr>" * n
                      + "</table>",
        "deep lists": "<ol start=3><li>" * min(n, 10000) + "item",
        "marks": "<p>" + "<code>c</code><sub>2</sub><sup>[1]</sup><kbd>k</kbd> " * (n // 10 + 1) + "</p>",
    }[shape]
    return "structure: " + shape, blob.encode()


HTML_CONSTRUCTS = [html_structure, html_structure, html_huge_text, html_huge_text, html_unclosed, html_unclosed, html_nested, html_nested, html_nul,
                   html_huge_attribute, html_huge_markup, html_text_shapes, html_text_shapes, html_encoding]


def page_case(rng, seeds, log):
    """One damaged page."""
    if rng.random() < 0.1:
        name, blob = rng.choice(HTML_CONSTRUCTS)(rng)
        log.append(f"page made of {name} only ({len(blob)} bytes)")
        return blob
    page = rng.choice(seeds.pages)
    log.append(f"seed page of {len(page)} bytes (sha1 {hashlib.sha1(page).hexdigest()[:12]})")
    return mutate_many(rng, page, seeds, HTML_TOKENS, log)


# ---------------------------------------------------------------------------------------------
# WARC


WARC_TOKENS = [b"WARC/1.1\r\n", b"WARC/1.0\r\n", b"WARC/", b"\r\n", b"\n", b"\r\n\r\n", b"Content-Length: ",
               b"Content-Length: 99999999999999999999\r\n", b"Content-Length: -1\r\n", b"WARC-Type: response\r\n",
               b"Content-Type: application/http; msgtype=response\r\n", b"HTTP/1.1 200 OK\r\n",
               b"HTTP/1.1 100 Continue\r\n\r\n", b"Transfer-Encoding: chunked\r\n", b"Content-Encoding: gzip\r\n",
               b"Content-Type: text/html; charset=utf-16\r\n", b"\x1f\x8b\x08\x00", b": ", b" continued\r\n",
               b"ffffffffffffffff\r\n", b"0\r\n\r\n", b"\x00"] + HTML_TOKENS[:20]


def http_block(rng, body, html=True):
    """An HTTP response (status line, headers, body) with random but valid framing."""
    headers = []
    status = "200 OK"
    if html:
        ctype = rng.choice(["text/html", "text/html; charset=utf-8", "text/html; charset=ISO-8859-1",
                            "application/xhtml+xml", 'text/html; charset="windows-1252"', "TEXT/HTML;charset=utf-8"])
    else:
        ctype = rng.choice(["image/png", "application/pdf", "text/css"])
    headers.append(("Content-Type", ctype))
    roll = rng.random()
    if roll < 0.15:
        headers.append(("Content-Encoding", "gzip"))
        body = gzip.compress(body, mtime=0)
    elif roll < 0.22:
        headers.append(("Content-Encoding", "deflate"))
        body = zlib.compress(body)
    if rng.random() < 0.15:
        headers.append(("Transfer-Encoding", "chunked"))
        chunks, i = [], 0
        while i < len(body):
            k = rng.randint(1, 4096)
            chunks.append(b"%x\r\n" % len(body[i:i + k]) + body[i:i + k] + b"\r\n")
            i += k
        body = b"".join(chunks) + b"0\r\n\r\n"
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    return f"HTTP/1.1 {status}\r\n{head}\r\n".encode() + body


def warc_record(record_id, wtype, block, uri=None, ctype=None, date="2024-05-01T12:00:00Z"):
    head = [f"WARC/1.1", f"WARC-Type: {wtype}", f"WARC-Date: {date}", f"WARC-Record-ID: {record_id}"]
    if uri:
        head.append(f"WARC-Target-URI: {uri}")
    if ctype:
        head.append(f"Content-Type: {ctype}")
    head.append(f"Content-Length: {len(block)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode(), block, b"\r\n\r\n"


class Rec:
    """A record being built: its header, block and trailer, and whether it must reach the output."""

    def __init__(self, record_id, head, block, tail, is_html):
        self.id, self.head, self.block, self.tail = record_id, head, block, tail
        self.html = is_html
        self.expected = is_html
        self.prefix = b""   # junk before the record (framing-safe)

    def set_block(self, block):
        self.block = block
        self.head = re.sub(rb"Content-Length: \d+", b"Content-Length: %d" % len(block), self.head)

    def raw(self):
        return self.prefix + self.head + self.block + self.tail


def warc_generated(rng, seeds, case_no, log, damages):
    """A WARC built from several records; returns (bytes, gzipped, ids that must reach the output or None).
    The kinds of damage done are added to `damages`."""
    recs = []
    for i in range(rng.randint(2, 6)):
        rid = f"<urn:uuid:fuzz-{case_no}-{i}>"
        uri = f"http://example.com/{case_no}/{i}"
        roll = rng.random()
        if roll < 0.7:
            page = rng.choice(seeds.pages)[:rng.choice([2000, 20000, 65536])]
            if rng.random() < 0.3:
                page = mutate_many(rng, page, seeds, HTML_TOKENS, log, most=3)
            block = http_block(rng, page)
            recs.append(Rec(rid, *warc_record(rid, "response", block, uri, "application/http; msgtype=response"), True))
        elif roll < 0.8:
            block = http_block(rng, rng.choice(seeds.binary_blobs), html=False)
            recs.append(Rec(rid, *warc_record(rid, "response", block, uri, "application/http; msgtype=response"), False))
        else:
            wtype = rng.choice(["request", "warcinfo", "metadata", "resource", "revisit"])
            block = b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n" if wtype == "request" else b"software: fuzz\r\n"
            recs.append(Rec(rid, *warc_record(rid, wtype, block, uri, "application/warc-fields"), False))
    gz = rng.random() < 0.5
    per_member = gz and rng.random() < 0.8
    framing_ok = True
    for _ in range(rng.choice([0, 1, 1, 2])):
        r = rng.choice(recs)
        damage = rng.choice(["payload bytes", "payload resize", "100 continue", "junk lines", "header without colon",
                             "huge content-length", "bad chunked", "gzip bomb", "cut record", "bad charset",
                             "gzip junk" if per_member else "junk lines"])
        if damage == "junk lines" and per_member:
            damage = "gzip junk"   # outside the members: junk between them
        if damage == "gzip junk":
            # Between members (junk before the first one would hide that the file is gzip).
            r = rng.choice(recs[1:])
        log.append(f"record {r.id}: {damage}")
        damages.add(damage)
        body_at = r.block.find(b"\r\n\r\n") + 4
        if damage == "payload bytes" and len(r.block) > body_at + 1:
            b = bytearray(r.block)
            for _ in range(rng.randint(1, 20)):
                b[rng.randrange(body_at, len(b))] = rng.randrange(256)
            r.block, r.expected = bytes(b), False
        elif damage == "payload resize":
            b = bytearray(r.block)
            mutate_bytes(rng, b, seeds, HTML_TOKENS, log)
            r.set_block(bytes(b))
            r.expected = False
        elif damage == "100 continue" and r.block.startswith(b"HTTP/"):
            interim = rng.choice([b"HTTP/1.1 100 Continue\r\n\r\n", b"HTTP/1.1 100 Continue\r\nX-Hint: 1\r\n\r\n",
                                  b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" + b"HTTP/1.1 100 Continue\r\n\r\n"])
            r.set_block(interim + r.block)
        elif damage == "junk lines":
            r.prefix = rng.choice([b"garbage\r\n", b"\r\n\r\n\r\n", b"x" * 70000 + b"\r\n", b"WARC\r\n",
                                   b"\x00\x01\x02\r\n", b"HTTP/1.1 200 OK\r\n\r\n<p>stray</p>\r\n"])
        elif damage == "header without colon":
            r.head = r.head.replace(b"\r\nWARC-Date", b"\r\nthis line has no colon\r\nWARC-Date", 1)
            r.expected = False
        elif damage == "huge content-length":
            r.head = re.sub(rb"Content-Length: \d+", b"Content-Length: " + rng.choice(
                [b"99999999999999999999", b"18446744073709551615", b"16777217", b"9223372036854775807"]), r.head)
            framing_ok = False
        elif damage == "bad chunked":
            r.set_block(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n" +
                        rng.choice([b"ffffffffffffffff\r\n<p>x", b"zz\r\n<p>x", b"5\r\n<p>x</p>text without end",
                                    b"10000000\r\n<p>short", b"-1\r\n<p>x"]))
            r.expected = False
        elif damage == "gzip bomb":
            size = rng.choice([1 << 20, 70 << 20])
            bomb = gzip.compress(b"<p>" + b"a " * (size // 2), compresslevel=6, mtime=0)
            r.set_block(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n" + bomb)
        elif damage == "cut record":
            r.block = r.block[:rng.randrange(len(r.block) + 1)]
            r.tail = b""
            framing_ok = False
        elif damage == "bad charset":
            r.block = r.block.replace(b"Content-Type: text/html", b"Content-Type: text/html; charset=" + rng.choice(
                [b"utf-16", b"x-unknown", b'"', b"utf-7", b"replacement", b"utf-16be"]), 1)
            r.set_block(r.block)
        elif damage == "gzip junk":
            r.prefix = rng.choice([b"JUNK", b"\x00" * 100, b"\r\n", bytes(rng.randrange(32, 127) for _ in range(500))])
    if gz and not per_member:
        data = gzip.compress(b"".join(r.raw() for r in recs), mtime=0)
    elif gz:
        # Each record its own member; junk (a record's prefix) goes between members, outside them.
        data = b"".join(r.prefix + gzip.compress(r.head + r.block + r.tail, mtime=0) for r in recs)
    else:
        data = b"".join(r.raw() for r in recs)
    expected = None
    if framing_ok:
        expected = [r.id for r in recs if r.expected]
    return data, gz, expected


def warc_case(rng, seeds, case_no, log, damages):
    """(bytes, gzipped, expected ids or None)."""
    if rng.random() < 0.6:
        data, gz, expected = warc_generated(rng, seeds, case_no, log, damages)
        if rng.random() < 0.35:
            # Byte-level damage on top (inside the decompressed stream when gzipped).
            raw = gzip.decompress(data) if gz and expected is not None and not has_junk(data) else None
            if raw is not None:
                data = gzip.compress(mutate_many(rng, raw, seeds, WARC_TOKENS, log, 4), mtime=0)
            else:
                data = mutate_many(rng, data, seeds, WARC_TOKENS, log, 4)
            expected = None
        return data, gz, expected
    seed = rng.choice(seeds.warcs)
    gz = seed[:2] == b"\x1f\x8b"
    log.append(f"seed {'small.warc.gz' if gz else 'small.warc'}")
    if gz and rng.random() < 0.5:
        data = mutate_many(rng, gzip.decompress(read_gz_prefix(seed)), seeds, WARC_TOKENS, log, 6)
        data = gzip.compress(data, mtime=0)
    else:
        data = mutate_many(rng, seed, seeds, WARC_TOKENS, log, 6)
    return data, gz, None


def has_junk(data):
    try:
        gzip.decompress(data)
        return False
    except Exception:
        return True


def read_gz_prefix(data):
    """The complete gzip members at the start of `data`, decompressed and recompressed."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out, rest = b"", data
    while rest:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            piece = d.decompress(rest)
        except zlib.error:
            break
        if not d.eof:
            break
        out += piece
        rest = d.unused_data
    return gzip.compress(out, mtime=0)


# ---------------------------------------------------------------------------------------------
# JSONL


JSONL_TOKENS = [b"\\ud800", b"\\udc00", b"\\udbff\\udfff", b"\\ud800\\u0041", b"\\u0000", b"\\", b"\"", b"\n", b"\r\n",
                b"{", b"}", b"[", b"]", b",", b":", b"1e999999", b"-0", b"null", b"true", b"\"html\":", b"\"text\":",
                b"\xff", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf", b"[" * 200, b"\\n", b"\\t"] + HTML_TOKENS[:20]


def json_string(rng, text):
    """`text` as a JSON string, with random escapes (and sometimes broken ones)."""
    s = json.dumps(text, ensure_ascii=rng.random() < 0.3)
    roll = rng.random()
    if roll < 0.15:
        at = rng.randint(1, len(s) - 1)
        s = s[:at] + rng.choice(["\\ud800", "\\udc00", "\\ud800\\ud800", "\\udfff\\ud800", "\\ud83d\\ude00",
                                 "\\u0000", "\\uD800x"]) + s[at:]
    return s


def jsonl_line(rng, seeds, field, log):
    """One line: an object with the field holding HTML or text, sometimes damaged."""
    roll = rng.random()
    if roll < 0.2:
        name, blob = rng.choice(HTML_CONSTRUCTS)(rng)
        value = blob.decode("utf-8", "replace")
        log.append(f"line with {name}")
    elif field == "text":
        value = rng.choice(seeds.texts).decode("utf-8", "replace")
    else:
        value = rng.choice(seeds.pages)[:rng.choice([500, 5000, 50000])].decode("utf-8", "replace")
    fields = [f'"id": {rng.randrange(1000)}', f'"{field}": {json_string(rng, value)}']
    extras = [
        '"meta": {"score": 1.50, "tags": ["a", "b"], "n": 1e3}', '"n": 1.50', '"deep": ' + "[" * 100 + "]" * 100,
        '"big": 123456789012345678901234567890', f'"{field}": "duplicate"', '"x": "\\ud800"', '"e": -0.0e-0',
    ]
    for extra in rng.sample(extras, rng.randint(0, 3)):
        fields.insert(rng.randint(0, len(fields)), extra)
    line = ("{" + ", ".join(fields) + "}").encode("utf-8", "surrogatepass")
    if rng.random() < 0.1:
        line = rng.choice([b"", b"[1, 2]", b"not json", b"{\"" + field.encode() + b"\": 1}", b"{}", b"   ",
                           b"{\"" + field.encode() + b"\": \"\\ud800\"}", b"\xff\xfe{}", b"{" * 10000])
    return line


def jsonl_case(rng, seeds, log):
    """(bytes, field, expected number of output lines or None)."""
    field = rng.choice(["html", "html", "html", "text", "body"])
    if rng.random() < 0.6:
        lines = [jsonl_line(rng, seeds, field, log) for _ in range(rng.randint(1, 8))]
        end = rng.choice([b"\n", b"\n", b"\r\n", b""])
        data = b"\n".join(lines) + end
        if rng.random() < 0.5:
            return data, field, count_lines(data)
        return mutate_many(rng, data, seeds, JSONL_TOKENS, log, 5), field, None
    log.append("seed pages.jsonl")
    data = mutate_many(rng, rng.choice(seeds.jsonls), seeds, JSONL_TOKENS, log, 6)
    # Every input line must give one output line (one too long to read is passed through).
    return data, field, count_lines(data)


def count_lines(data):
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


# ---------------------------------------------------------------------------------------------
# Models and classifiers


def model_fix(data):
    """Rewrites the preamble's total length and checksum so the damage reaches the checks behind them."""
    if len(data) < 24:
        return data
    data = bytearray(data)
    struct.pack_into("<Q", data, 8, len(data))
    struct.pack_into("<I", data, 16, zlib.crc32(bytes(data[24:])) & 0xFFFFFFFF)
    return bytes(data)


def model_layout(data):
    """Offsets of interesting header fields of a well-formed model: [(name, offset, size)]."""
    fields = [("order", 24, 1), ("unk_log2", 28, 4), ("seed", 32, 8), ("credit_len", 40, 4), ("provenance_len", 44, 4)]
    try:
        order = data[24]
        credit, prov = struct.unpack_from("<II", data, 40)
        at = 48 + credit + prov
        descriptors = []
        for n in range(1, order + 1):
            entries, bits, backoff = struct.unpack_from("<IBB", data, at)
            fields += [(f"order-{n} entries", at, 4), (f"order-{n} bucket bits", at + 4, 1), (f"order-{n} backoff flag", at + 5, 1)]
            at += 8
            fields.append((f"order-{n} probability codebook", at, 1024))
            at += 1024
            if backoff:
                fields.append((f"order-{n} backoff codebook", at, 1024))
                at += 1024
            descriptors.append((entries, bits, 6 if backoff else 5))
        for n, (entries, bits, rec) in enumerate(descriptors, 1):
            fields.append((f"order-{n} bucket offsets", at, 4 * ((1 << bits) + 1)))
            at += 4 * ((1 << bits) + 1)
            fields.append((f"order-{n} records", at, entries * rec))
            at += entries * rec
    except (struct.error, IndexError):
        pass
    return fields


F32_EXTREMES = [0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1e-45, -1e30, 1e30, float("inf"), float("-inf"), float("nan"), -100.0, 100.0]
U32_EXTREMES = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 1 << 24, 65535, 65536]


def model_field_edit(rng, data, log):
    """Sets one header field, codebook value, bucket offset or record byte to an unusual value."""
    data = bytearray(data)
    name, at, size = rng.choice(model_layout(bytes(data)))
    if name == "unk_log2" or "codebook" in name:
        i, fmt, v = at + 4 * rng.randrange(max(1, size // 4)), "<f", rng.choice(F32_EXTREMES)
    elif "offsets" in name:
        i, fmt, v = at + 4 * rng.randrange(max(1, size // 4)), "<I", rng.choice(U32_EXTREMES + [rng.randrange(1 << 16)])
    elif "records" in name:
        i, fmt, v = at + rng.randrange(max(1, size)), "<B", rng.randrange(256)
    elif size == 1:
        i, fmt, v = at, "<B", rng.choice([0, 1, 2, 3, 4, 5, 24, 25, 31, 32, 63, 64, 255, rng.randrange(256)])
    elif size == 8:
        i, fmt, v = at, "<Q", rng.choice([0, 1, 2**63, 2**64 - 1, rng.getrandbits(64)])
    else:
        i, fmt, v = at, "<I", rng.choice(U32_EXTREMES)
    if i + struct.calcsize(fmt) <= len(data):
        struct.pack_into(fmt, data, i, v)
        log.append(f"model {name} (byte {i}) := {v}")
    return bytes(data)


FINITE_F32 = [0.0, -0.0, 100.0, 3.4e38, -3.4e38, 1e-45, -1e-45, -1e30, -64.0, 1.0]


def model_value_edit(rng, data, log):
    """Changes a value the loader accepts (a finite codebook entry or log2 P(<unk>), a record's
    fingerprint or quantised value, the hash seed), so the model loads and scores with it."""
    data = bytearray(data)
    fields = [f for f in model_layout(bytes(data)) if f[0] in ("unk_log2", "seed") or "codebook" in f[0] or "records" in f[0]]
    name, at, size = rng.choice(fields)
    if name == "unk_log2":
        i, fmt, v = at, "<f", -abs(rng.choice(FINITE_F32))
    elif name == "seed":
        i, fmt, v = at, "<Q", rng.getrandbits(64)
    elif "records" in name:
        i, fmt, v = at + rng.randrange(max(1, size)), "<B", rng.randrange(256)
    else:
        i, fmt, v = at + 4 * rng.randrange(max(1, size // 4)), "<f", rng.choice(FINITE_F32)
    if i + struct.calcsize(fmt) <= len(data):
        struct.pack_into(fmt, data, i, v)
        log.append(f"model {name} (byte {i}) := {v}")
    return bytes(data)


def model_mutate(rng, data, seeds, log, fix_probability=0.75):
    """Damaged model bytes: generic, field or value edits, checksums usually repaired afterwards."""
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.4:
            data = model_field_edit(rng, data, log)
        elif roll < 0.75:
            data = model_value_edit(rng, data, log)
        else:
            b = bytearray(data)
            mutate_bytes(rng, b, seeds, [b"PPLM", b"\x01\x00", b"\x00" * 8, b"\xff" * 8], log)
            data = bytes(b)
    if rng.random() < fix_probability:
        data = model_fix(data)
        log.append("model length and checksum repaired")
    return data


def model_case(rng, seeds, log):
    """(model bytes, truncate-while-in-use length or None)."""
    if rng.random() < 0.08:
        # An intact model, cut while the process has it mapped (as when a model file is rewritten
        # in place while a filter runs).
        data = seeds.big_model if rng.random() < 0.3 else rng.choice(seeds.small_models)
        cut = rng.choice([0, 24, 4096, len(data) // 2, len(data) - 1])
        log.append(f"intact {len(data)}-byte model truncated to {cut} bytes while in use")
        return data, cut
    if rng.random() < 0.15:
        log.append("seed en.bin (14 MB)")
        data = seeds.big_model
        if rng.random() < 0.3:
            cut = rng.randrange(len(data))
            log.append(f"model truncated to {cut} bytes")
            return data[:cut], None
    else:
        data = rng.choice(seeds.small_models)
        log.append(f"seed small model of {len(data)} bytes")
    return model_mutate(rng, data, seeds, log), None


def tree_chain(n, shared=True):
    """A tree whose nodes form a chain with both children equal: valid order, 2^n paths."""
    nodes = [{"feature": i % CLASSIFIER_INPUTS, "threshold": 0.5, "left": i + 1, "right": i + 1 if shared else i + 2,
              "value": 0.0} for i in range(n)]
    nodes += [{"feature": LEAF, "threshold": 0.0, "left": 0, "right": 0, "value": 0.1}] * 2
    return nodes


def tree_complete(depth):
    """A complete tree of `depth` levels of splits."""
    nodes = []
    splits = (1 << depth) - 1
    for i in range((1 << (depth + 1)) - 1):
        if i < splits:
            nodes.append({"feature": i % CLASSIFIER_INPUTS, "threshold": 0.1 * (i % 10), "left": 2 * i + 1,
                          "right": 2 * i + 2, "value": 0.0})
        else:
            nodes.append({"feature": LEAF, "threshold": 0.0, "left": 0, "right": 0, "value": 0.01 * (i % 7 - 3)})
    return nodes


def random_number(rng):
    if rng.random() < 0.4:   # ordinary values: the classifier still loads
        return rng.choice([0, 1, 2, 3, 10, 0.5, -0.5, 2.5, -100.0, rng.uniform(-10, 10), rng.randrange(135)])
    return rng.choice([-1, 64, 65, 134, 135, 136, 65534, 65535, 65536, 2**32, 2**64, -2**63, 1e30, -1e30,
                       3.4e38, 3.5e38, -3.5e38, 1e-45, 1e-300, rng.randrange(70000)])


def json_leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from json_leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from json_leaves(v, path + (i,))
    else:
        yield path


def json_set(value, path, new):
    for k in path[:-1]:
        value = value[k]
    value[path[-1]] = new


def classifier_json_edit(rng, weights, log):
    """One structural edit of the classifier's parameters (a deep copy is edited)."""
    w = json.loads(json.dumps(weights))
    scorer = w.get("scorer") if isinstance(w, dict) else None
    if not isinstance(scorer, dict):
        return w
    trees = scorer.get("trees") if isinstance(scorer.get("trees"), list) else None
    what = rng.choice(["leaf", "leaf", "leaf", "chain", "complete", "many trees", "no trees", "empty tree",
                       "logistic", "lag", "transition", "node refs", "drop key", "scorer kind"])
    if what == "leaf":
        paths = list(json_leaves(w))
        path = rng.choice(paths)
        new = random_number(rng)
        json_set(w, path, new)
        log.append(f"classifier {'/'.join(map(str, path))} := {new}")
    elif what == "chain" and trees is not None:
        n = rng.choice([5, 11, 20, 30, 40, 60, 200])
        i = rng.randrange(len(trees)) if trees else 0
        trees[i:i + 1] = [tree_chain(n, shared=rng.random() < 0.8)]
        log.append(f"classifier tree replaced by a {n}-node chain with shared children")
    elif what == "complete" and trees is not None:
        depth = rng.choice([1, 5, 10, 11, 12])
        trees.append(tree_complete(depth))
        log.append(f"classifier gets a complete tree of depth {depth}")
    elif what == "many trees" and trees:
        # At most about 200,000 nodes (some 15 MB of JSON): a big classifier, not an absurd one.
        per_tree = max(1, sum(len(t) if isinstance(t, list) else 1 for t in trees) // len(trees))
        n = min(rng.choice([100, 1000, 5000]), max(1, 200_000 // per_tree))
        w["scorer"]["trees"] = (trees * (n // len(trees) + 1))[:n]
        log.append(f"classifier with {n} trees")
    elif what == "no trees" and trees is not None:
        w["scorer"]["trees"] = []
        log.append("classifier with no trees")
    elif what == "empty tree" and trees is not None:
        trees.insert(0, [])
        log.append("classifier with an empty tree")
    elif what == "logistic":
        n = rng.choice([CLASSIFIER_INPUTS, CLASSIFIER_INPUTS, 0, CLASSIFIER_INPUTS + 1])
        w["scorer"] = {"kind": "logistic", "mean": [random_number(rng) for _ in range(n)],
                       "scale": [rng.choice([1.0, 1e-45, 3.4e38, 0.5]) for _ in range(n)],
                       "weights": [random_number(rng) for _ in range(n)], "intercept": random_number(rng)}
        log.append(f"classifier becomes logistic over {n} inputs")
    elif what == "lag":
        w["lag"] = rng.choice([0, 1, 2, 63, 64, 65, 1000, 2**64 - 1, -1])
        log.append(f"classifier lag := {w['lag']}")
    elif what == "transition":
        w["transition"] = [[random_number(rng) for _ in range(2)] for _ in range(2)]
        w["smoothing"] = random_number(rng)
        log.append(f"classifier transition := {w['transition']}, smoothing := {w['smoothing']}")
    elif what == "node refs" and trees and all(isinstance(t, list) and t for t in trees):
        tree = rng.choice(trees)
        for _ in range(rng.randint(1, 5)):
            node = rng.choice(tree)
            node[rng.choice(["left", "right", "feature"])] = rng.choice(
                [0, 1, len(tree) - 1, len(tree), LEAF, rng.randrange(len(tree) + 2)])
        log.append("classifier node references changed")
    elif what == "drop key" and w:
        key = rng.choice(list(w))
        del w[key]
        log.append(f"classifier without {key}")
    elif what == "scorer kind":
        w["scorer"]["kind"] = rng.choice(["logistic", "trees", "forest", ""])
        log.append(f"classifier scorer kind := {w['scorer']['kind']}")
    return w


def classifier_case(rng, seeds, log):
    if rng.random() < 0.15:
        data = seeds.big_classifier
        log.append("seed en-classifier.bin")
        if rng.random() < 0.5:
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                mutate_bytes(rng, b, seeds, [b"PPLC 1 ", b"\n", b"{", b"}"], log)
            return bytes(b)
        weights, model = split_classifier(data)
    else:
        weights = seeds.weights
        weights = dict(weights, scorer=dict(weights["scorer"], trees=weights["scorer"]["trees"][:rng.choice([1, 3, 10])]))
        model = rng.choice(seeds.small_models)
        log.append(f"seed classifier of {len(weights['scorer']['trees'])} trees over a {len(model)}-byte model")
    roll = rng.random()
    if roll < 0.6:
        for _ in range(rng.randint(1, 3)):
            weights = classifier_json_edit(rng, weights, log)
    elif roll < 0.8:
        model = model_mutate(rng, model, seeds, log)
    else:
        text = bytearray(json.dumps(weights, separators=(",", ":")).encode())
        for _ in range(rng.randint(1, 4)):
            mutate_bytes(rng, text, seeds, [b"{", b"}", b"[", b"]", b",", b":", b"\"", b"1e39", b"-", b"65535"], log)
        weights = bytes(text)
    data = join_classifier(weights, model)
    if rng.random() < 0.15:
        b = bytearray(data)
        mutate_bytes(rng, b, seeds, [b"PPLC 1 ", b"\n"], log)
        data = bytes(b)
    return data


# ---------------------------------------------------------------------------------------------
# Cases


class Case:
    def __init__(self, number, kind):
        self.number, self.kind = number, kind
        self.files = {}          # file name -> bytes (written into the case directory)
        self.inputs = []         # file names passed as inputs
        self.args = []           # flags (without -j)
        self.log = []            # mutations applied
        self.expected_ids = None  # WARC: record ids that must reach the output
        self.damages = set()     # WARC: kinds of record damage done
        self.expected_lines = None  # JSONL: output lines expected
        self.truncate_model = None  # (file name, length): cut the model while the process runs
        self.output_dir = False  # -o DIR: compare directories


EXTRA_PAGE_FLAGS = [["--format", "markdown"], ["--format", "markdown"], ["--format", "html"], ["--mark"], ["--scores"], ["--format", "cleaneval"], ["--title"], ["-0"], ["--method", "perplexity"],
                    ["--input", "text"], ["--max-block-bytes", "256"], ["--max-parser-memory", "4096"],
                    ["--encoding", "windows-1252"], ["--encoding", "utf-16le"], ["--encoding", "shift_jis"]]


def make_case(number, seed, seeds, kind=None):
    """Case `number` of a run; its kind is drawn from its own stream unless `kind` is given."""
    rng = random.Random(f"{seed}/{number}")
    drawn = rng.choices(KINDS, KIND_WEIGHTS)[0]
    kind = kind or drawn
    case = Case(number, kind)
    if kind == "pages":
        for i in range(rng.choice([1, 1, 1, 2, 3])):
            name = f"page{i}.html" + (".gz" if rng.random() < 0.05 else "")
            data = page_case(rng, seeds, case.log)
            case.files[name] = gzip.compress(data, mtime=0) if name.endswith(".gz") else data
            case.inputs.append(name)
        if rng.random() < 0.5:
            case.args += rng.choice(EXTRA_PAGE_FLAGS)
        if rng.random() < 0.1:
            case.output_dir = True
    elif kind == "warc":
        data, gz, expected = warc_case(rng, seeds, number, case.log, case.damages)
        name = "input.warc.gz" if gz else "input.warc"
        case.files[name] = data
        case.inputs.append(name)
        case.args += ["--input", "warc"]
        if rng.random() < 0.5:
            case.args += ["--format", "jsonl"]
        if rng.random() < 0.2:
            case.args += rng.choice([["--mark"], ["--scores"], ["--method", "perplexity"], ["--title"]])
        case.expected_ids = expected
    elif kind == "jsonl":
        data, field, lines = jsonl_case(rng, seeds, case.log)
        name = "input.jsonl"
        if rng.random() < 0.1:
            name, data = "input.jsonl.gz", gzip.compress(data, mtime=0)
        case.files[name] = data
        case.inputs.append(name)
        case.args += ["--input", "jsonl", "--field", field]
        if rng.random() < 0.3:
            case.args += ["--add-scores"]
        if rng.random() < 0.15:
            case.args += ["--skip-bad-lines"]
            lines = None
        case.expected_lines = lines
    else:
        page = rng.choice(seeds.fixture_pages[:-1])
        case.files["page.html"] = page
        case.inputs.append("page.html")
        if kind == "model":
            data, cut = model_case(rng, seeds, case.log)
            case.files["model.bin"] = data
            case.args += ["--model", "model.bin"]
            if cut is not None:
                case.truncate_model = ("model.bin", cut)
            if rng.random() < 0.3:
                case.args += rng.choice([["--method", "perplexity"], ["--scores"], ["--mark"]])
        else:
            case.files["classifier.bin"] = classifier_case(rng, seeds, case.log)[:MAX_FILE_BYTES]
            case.args += ["--classifier", "classifier.bin"]
            if rng.random() < 0.2:
                case.args += ["--mark"]
    return case


# ---------------------------------------------------------------------------------------------
# Running and checking


class Runner:
    def __init__(self, binary, timeout, memory_mb):
        self.binary, self.timeout, self.memory = binary, timeout, memory_mb << 20

    def limit_prefix(self):
        if shutil.which("prlimit"):
            return ["prlimit", f"--as={self.memory}", "--"]
        return ["bash", "-c", f'ulimit -v {self.memory >> 10} && exec "$@"', "ulimit"]

    def command(self, case, directory, threads, out_dir=None):
        def path(name):
            return os.path.join(directory, name)
        args = [path(a) if a in case.files else a for a in case.args]
        if out_dir:
            args += ["-o", out_dir]
        inputs = ["-"] if case.truncate_model else [path(n) for n in case.inputs]
        return [self.binary, f"-j{threads}", "-q"] + args + inputs

    def run(self, case, directory, threads):
        """(exit status or None on timeout, stdout, stderr, seconds, command)."""
        out_dir = os.path.join(directory, f"out-j{threads}") if case.output_dir else None
        if out_dir:
            shutil.rmtree(out_dir, ignore_errors=True)
        command = self.command(case, directory, threads, out_dir)
        if case.truncate_model:
            # Each run maps its own copy, which is cut once the process has mapped it.
            name, cut = case.truncate_model
            model = os.path.join(directory, name)
            copy = os.path.join(directory, f"j{threads}-{name}")
            shutil.copyfile(model, copy)
            command = [copy if a == model else a for a in command]
        # A fixed run date (the warcinfo record's WARC-Date): -j1 and -j2 stdout compared byte for byte.
        env = dict(os.environ, RUST_BACKTRACE="1", LC_ALL="C", SOURCE_DATE_EPOCH="1714564800")
        started = time.monotonic()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            stdin = subprocess.PIPE if case.truncate_model else subprocess.DEVNULL
            proc = subprocess.Popen(self.limit_prefix() + command, stdin=stdin, stdout=out, stderr=err, env=env,
                                    start_new_session=True)
            status = None
            try:
                if case.truncate_model:
                    # The model is loaded (and validated) before standard input is read: send the
                    # page's first bytes, cut the file once they are read, then send the rest.
                    page = case.files[case.inputs[0]]
                    try:
                        proc.stdin.write(page[:1024])
                        proc.stdin.flush()
                        wait_until_read(proc.stdin, 5.0)
                        os.truncate(copy, cut)
                        proc.stdin.write(page[1024:])
                        proc.stdin.close()
                    except BrokenPipeError:
                        pass
                status = proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            seconds = time.monotonic() - started
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if out_dir:
            stdout = directory_digest(out_dir)
        return status, stdout, stderr, seconds, command


def wait_until_read(pipe, limit):
    """Waits until the reader has taken everything written to `pipe` (or `limit` seconds)."""
    end = time.monotonic() + limit
    unread = array.array("i", [1])
    while time.monotonic() < end:
        fcntl.ioctl(pipe.fileno(), termios.FIONREAD, unread)
        if unread[0] == 0:
            return
        time.sleep(0.002)


def directory_digest(root):
    """Every file under `root` and its bytes, as one byte string (for comparing -o runs)."""
    parts = []
    for d, _, names in sorted(os.walk(root)):
        for n in sorted(names):
            p = os.path.join(d, n)
            parts.append(os.path.relpath(p, root).encode() + b"\0" + read(p) + b"\0")
    return b"".join(parts)


# Lines about the whole run, not one input (see bin/ppl-filter/clean.rs).
SUMMARY = re.compile(r"^ppl-filter: (\d+ WARC responses? skipped|nothing kept from \d+ documents?$)")
# Problems that are notes: the input was cleaned, the exit status stays 0.
NOTES = (
    "were replaced by U+FFFD",
    ": empty input",
    "every line names a file",
    "but its bytes are UTF-8: read as UTF-8",
    "was cut into blocks of that size",
)
PANIC = re.compile(rb"panicked at ([^\s:]+:\d+)")


def check_run(case, directory, result, threads):
    """Failures of one run: [(signature, detail)]."""
    status, stdout, stderr, seconds, command = result
    failures = []
    if status is None:
        failures.append(("timeout", f"-j{threads} did not finish within the timeout"))
        return failures
    panic = PANIC.search(stderr)
    if status == 101 or panic:
        where = panic.group(1).decode(errors="replace") if panic else "?"
        failures.append((f"panic at {where}", f"-j{threads} panicked (exit {status})"))
    elif status < 0 or status >= 128:
        name = signal_name(-status if status < 0 else status - 128)
        why = " (out of memory under the address-space limit)" if b"memory allocation of" in stderr else ""
        failures.append((f"signal {name}{why}", f"-j{threads} was killed by {name}{why}"))
    elif status not in (0, 1, 2):
        failures.append((f"exit status {status}", f"-j{threads} exited with {status}"))
    if failures:
        return failures
    allowed = [os.path.join(directory, n) for n in case.files] + ["<stdin>"]
    allowed += [os.path.join(directory, f"j{threads}-{n}") for n in case.files]
    lines = stderr.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # Run-level lines name no input; notes (bytes replaced, an empty input) leave the status 0.
    problems = [line for line in lines if not SUMMARY.match(line)]
    for line in problems:
        if not line.startswith("ppl-filter: ") or not any(line[12:].startswith(p) for p in allowed):
            failures.append(("stderr line not of the form 'ppl-filter: <input>: ...'",
                             f"-j{threads} wrote the stderr line {line[:300]!r}"))
            break
    real = [line for line in problems if not any(note in line for note in NOTES)]
    if status == 0 and real:
        failures.append(("exit 0 with problems reported", f"-j{threads} exited 0 but wrote {len(real)} problem lines"))

    if status in (1, 2) and not lines:
        failures.append((f"exit {status} with no problem reported", f"-j{threads} exited {status} and wrote nothing on stderr"))
    return failures


def check_oracles(case, stdout, stderr=b""):
    failures = []
    if case.expected_ids is not None:
        # A page damaged before it was wrapped may have become binary (10,000 NULs inserted, say),
        # or grown past the record limit (16 MiB, a range copied 50 times): a record said on
        # stderr to be skipped for either is not lost silently.
        said = re.compile(rb"record (<[^>]*>): (binary data|\d+ bytes is more than the limit)")
        skipped = {m.group(1).decode(errors="replace") for m in said.finditer(stderr)}
        lost = [i for i in case.expected_ids
                if b"WARC-Refers-To: " + i.encode() not in stdout and b'"warc_record_id":"' + i.encode() + b'"' not in stdout
                and i not in skipped]
        if lost:
            after = ", ".join(sorted(case.damages)) or "no record damage"
            failures.append((f"WARC: intact HTML responses missing from the output (damage: {after})",
                             f"{len(lost)} of {len(case.expected_ids)} intact HTML responses missing: {', '.join(lost)}"))
    if case.expected_lines is not None:
        got = count_lines(stdout)
        if got != case.expected_lines:
            failures.append(("JSONL: output line count differs from the input's",
                             f"{case.expected_lines} input lines, {got} output lines"))
    return failures


def run_case(case, runner, work):
    """Runs one case; returns (case, failures, results, directory)."""
    directory = os.path.join(work, f"case-{case.number}")
    os.makedirs(directory, exist_ok=True)
    for name, data in case.files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    results = {1: runner.run(case, directory, 1)}
    failures = check_run(case, directory, results[1], 1)
    if results[1][0] is not None:   # after a hang, spare the second timeout
        results[2] = runner.run(case, directory, 2)
        failures += check_run(case, directory, results[2], 2)
        if not failures:
            (s1, o1, e1, *_), (s2, o2, e2, *_) = results[1], results[2]
            if o1 != o2:
                failures.append(("-j1 and -j2 stdout differ", f"stdout: {len(o1)} bytes with -j1, {len(o2)} with -j2, "
                                 f"first difference at byte {first_difference(o1, o2)}"))
            if s1 != s2:
                failures.append(("-j1 and -j2 exit status differ", f"exit {s1} with -j1, {s2} with -j2"))
            if e1.replace(b"/j1-", b"/j-") != e2.replace(b"/j2-", b"/j-"):
                failures.append(("-j1 and -j2 stderr differ", "stderr differs between -j1 and -j2"))
            if not case.output_dir:
                failures += check_oracles(case, o1, e1)
    return case, failures, results, directory


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_status(status):
    if status is None:
        return "killed after the timeout"
    if status < 0:
        return f"killed by {signal_name(-status)}"
    return f"exit {status}"


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def keep_failure(case, failures, results, directory, out_root, runner, seed):
    """Copies the case to OUT_DIR/<case>-<kind>/ with FAILURE.txt."""
    dest = os.path.join(out_root, f"{case.number:06d}-{case.kind}")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for name, data in case.files.items():
        with open(os.path.join(dest, name), "wb") as f:
            f.write(data)
    lines = [f"case {case.number} ({case.kind}) of seed {seed}", "", "failed checks:"]
    lines += [f"  - {sig}: {detail}" for sig, detail in failures]
    lines += ["", "mutations:"] + [f"  - {m}" for m in case.log] + ["", "reproduce (from any directory):"]
    for threads, result in sorted(results.items()):
        status, stdout, stderr, seconds, _ = result
        command = runner.command(case, dest, threads, os.path.join(dest, f"out-j{threads}") if case.output_dir else None)
        if case.truncate_model:
            model = os.path.join(dest, case.truncate_model[0])
            command = ["/tmp/fuzz-model.bin" if c == model else c for c in command]
        text = f"timeout -s KILL {runner.timeout:g} " + " ".join(shlex.quote(c) for c in runner.limit_prefix() + command)
        if case.truncate_model:
            page = shlex.quote(os.path.join(dest, case.inputs[0]))
            text = (f"cp {shlex.quote(model)} /tmp/fuzz-model.bin && (head -c 1024 {page}; sleep 1; truncate -s "
                    f"{case.truncate_model[1]} /tmp/fuzz-model.bin; tail -c +1025 {page}) | {text}")
        lines.append(f"  {text}")
        lines.append(f"    -> {describe_status(status)}, {seconds:.2f} s, {len(stdout)} bytes of stdout, {len(stderr)} of stderr")
        with open(os.path.join(dest, f"stderr-j{threads}.txt"), "wb") as f:
            f.write(stderr[:200_000])
        with open(os.path.join(dest, f"stdout-j{threads}"), "wb") as f:
            f.write(stdout[:5_000_000])
    lines += ["", f"rebuild this case: python3 scripts/fuzz.py --seed {shlex.quote(str(seed))} --case {case.number} --out DIR"]
    with open(os.path.join(dest, "FAILURE.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return dest


# ---------------------------------------------------------------------------------------------
# Targets in modules of their own


class Targets:
    """The Targets of one module: made when a worker needs one and none is free (at most one per
    worker, the first at startup), each serving one case at a time; all closed by close()."""

    def __init__(self, module, binary, work, most):
        self.module, self.binary, self.work, self.most = module, binary, work, most
        self.lock = threading.Condition()
        self.free, self.all = [], []
        self.free.append(self._make())

    def _make(self):
        work = os.path.join(self.work, f"{self.module.NAME}-{len(self.all)}")
        os.makedirs(work, exist_ok=True)
        target = self.module.Target(self.binary, work)
        self.all.append(target)
        return target

    def take(self):
        with self.lock:
            while True:
                if self.free:
                    return self.free.pop()
                if len(self.all) < self.most:
                    return self._make()
                self.lock.wait()

    def give_back(self, target):
        with self.lock:
            self.free.append(target)
            self.lock.notify()

    def close(self):
        for target in self.all:
            try:
                target.close()
            except Exception as e:   # close the others anyway
                print(f"fuzz: closing a {self.module.NAME} target failed: {e!r}", flush=True)
        self.all, self.free = [], []


def load_modules(binary, kinds):
    """({name: module} of the module targets that run, [(name, why skipped)])."""
    import importlib
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    loaded, skipped = {}, []
    for name in MODULES:
        if name not in kinds:
            skipped.append((name, "not in FUZZ_KINDS"))
            continue
        if not os.path.exists(os.path.join(here, f"fuzz_{name}.py")):
            skipped.append((name, f"scripts/fuzz_{name}.py not present"))
            continue
        module = importlib.import_module(f"fuzz_{name}")   # a broken target stops the run
        ok, why = module.available(binary) if hasattr(module, "available") else (True, "")
        if not ok:
            skipped.append((name, why or "not available"))
            continue
        loaded[name] = module
    return loaded, skipped


def pick_kind(number, seed, builtins, modules):
    """The kind of case `number`: a module target, or one of the five kinds (None: all five are
    on, and make_case draws the kind as it always did, so those cases stay as they were)."""
    rng = random.Random(f"{seed}/{number}/kind")
    groups = list(modules) + (["builtin"] if builtins else [])
    weights = [MODULE_WEIGHTS[m] for m in modules] + ([sum(KIND_WEIGHTS[KINDS.index(k)] for k in builtins)]
                                                     if builtins else [])
    group = rng.choices(groups, weights)[0]
    if group != "builtin":
        return group
    if len(builtins) == len(KINDS):
        return None
    return rng.choices(builtins, [KIND_WEIGHTS[KINDS.index(k)] for k in builtins])[0]


def run_module_case(kind, number, seed, targets, out_root):
    """Runs case `number` of a module target; returns (kind, number, failures, directory, seconds)."""
    directory = os.path.join(out_root, f"{number:06d}-{kind}")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    target = targets.take()
    started = time.monotonic()
    try:
        failures = list(target.case(random.Random(f"{seed}/{number}"), number, directory))
    except Exception as e:
        failures = [f"the target raised {e!r}\n    " + traceback.format_exc().strip().replace("\n", "\n    ")]
    finally:
        targets.give_back(target)
    return kind, number, failures, directory, time.monotonic() - started


def keep_module_failure(kind, number, failures, directory, seed, binary, kinds_setting):
    lines = [f"case {number} ({kind}) of seed {seed}", "", "failed checks:"]
    lines += [f"  - {f}" for f in failures]
    lines += ["", "how to reproduce: REPRO.txt in this directory (written by the target), and:"]
    env = f"FUZZ_KINDS={shlex.quote(kinds_setting)} " if kinds_setting else ""
    lines.append(f"  {env}python3 scripts/fuzz.py --binary {shlex.quote(binary)} --seed {shlex.quote(str(seed))} "
                 f"--case {number} --out DIR")
    with open(os.path.join(directory, "FAILURE.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def module_signature(kind, failure):
    """A failure's kind for the summary: its first line, numbers and paths blanked."""
    text = failure.split("\n")[0]
    text = re.sub(r"b?'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"\S*/\S*", "PATH", text)
    return f"{kind}: " + re.sub(r"\d+", "N", text)[:120]


class Stop(Exception):
    """SIGTERM (a `timeout` around the run, a CI job cancelled): end as after Ctrl-C."""


def on_sigterm(signum, frame):
    raise Stop()


def main():
    # WARC output is dated with the run (its warcinfo record): two runs compared byte for byte,
    # by any target, must share the date.
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1714564800")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--out", default=os.path.join(ROOT, "fuzz-out"))
    parser.add_argument("--seed", default=os.environ.get("FUZZ_SEED"))
    parser.add_argument("--case", type=int, action="append", help="run only this case number (repeatable)")
    parser.add_argument("--timeout", type=float, default=float(os.environ.get("FUZZ_TIMEOUT", 20)))
    parser.add_argument("--memory-mb", type=int, default=int(os.environ.get("FUZZ_MEMORY_MB", 2048)))
    parser.add_argument("--workers", type=int, default=int(os.environ.get("FUZZ_WORKERS", 1)))
    parser.add_argument("--corpus", default=os.environ.get("FUZZ_CORPUS"),
                        help="colon-separated directories of extra seed pages (default: ../shared/data page "
                             "directories when present; 'none' for none)")
    parser.add_argument("--kinds", default=os.environ.get("FUZZ_KINDS"),
                        help="comma-separated kinds to run (default: all): " + ", ".join(KINDS + MODULES))
    args = parser.parse_args()

    seed = args.seed if args.seed is not None else str(random.SystemRandom().randrange(1 << 32))
    binary = os.path.abspath(args.binary)
    out_root = os.path.abspath(args.out)
    workers = max(1, args.workers)
    kinds = [k.strip() for k in (args.kinds or ",".join(KINDS + MODULES)).split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS + MODULES]
    if unknown or not kinds:
        print(f"fuzz: unknown kind(s) {', '.join(unknown) or '(none given)'}; the kinds are "
              f"{', '.join(KINDS + MODULES)}", file=sys.stderr)
        return 2
    builtins = [k for k in KINDS if k in kinds]
    if args.corpus is None:
        shared = os.path.join(os.path.dirname(ROOT), "shared", "data")
        dirs = [os.path.join(shared, *p, "input") for p in
                (("cleaneval", "tune"), ("cleaneval", "dev"), ("articles", "l3s-gn1"), ("articles", "dragnet"))]
    else:
        dirs = [] if args.corpus == "none" else args.corpus.split(":")
    signal.signal(signal.SIGTERM, on_sigterm)
    work = tempfile.mkdtemp(prefix="ppl-fuzz-")
    counts = dict.fromkeys(KINDS + MODULES, 0)
    signatures = {}
    failed = 0
    interrupted = False
    pools = {}
    try:
        modules, skipped = load_modules(binary, kinds)
        if not builtins and not modules:
            print("fuzz: no kind to run: " + "; ".join(f"{n}: {why}" for n, why in skipped), file=sys.stderr)
            return 2
        seeds = Seeds(binary, [d for d in dirs if os.path.isdir(d)], work) if builtins else None
        runner = Runner(binary, args.timeout, args.memory_mb)
        print(f"fuzz: seed {seed} (FUZZ_SEED={seed} repeats this run); {args.seconds:g} s budget; "
              f"timeout {args.timeout:g} s and {args.memory_mb} MiB of address space per run; "
              f"{workers} worker(s); seeds: {seeds.counts() if seeds else 'none (no mutation kind)'}", flush=True)
        print(f"fuzz: kinds: {', '.join(builtins + list(modules)) or 'none'}"
              + "".join(f"; {n} skipped ({why})" for n, why in skipped if n in kinds or args.kinds is None),
              flush=True)
        os.makedirs(out_root, exist_ok=True)
        for name, module in modules.items():
            pools[name] = Targets(module, binary, work, workers)
        deadline = time.monotonic() + args.seconds
        numbers = iter(args.case) if args.case else iter(range(1 << 62))

        def handle(done):
            nonlocal failed
            if done[0] == "module":
                _, (kind, number, failures, directory, seconds) = done
                counts[kind] += 1
                if failures:
                    failed += 1
                    keep_module_failure(kind, number, failures, directory, seed, binary, args.kinds)
                    sigs = list(dict.fromkeys(module_signature(kind, f) for f in failures))
                    for sig in sigs:
                        signatures.setdefault(sig, []).append(directory)
                    print(f"fuzz: case {number} ({kind}) FAILED: {'; '.join(f.split(chr(10))[0][:300] for f in failures)}"
                          f" -> {directory}", flush=True)
                else:
                    shutil.rmtree(directory, ignore_errors=True)
                if seconds > 30:
                    print(f"fuzz: case {number} ({kind}) took {seconds:.0f} s (a case should take seconds)", flush=True)
                return
            case, failures, results, directory = done[1]
            counts[case.kind] += 1
            if failures:
                failed += 1
                dest = keep_failure(case, failures, results, directory, out_root, runner, seed)
                sigs = list(dict.fromkeys(sig for sig, _ in failures))
                for sig in sigs:
                    signatures.setdefault(sig, []).append(dest)
                print(f"fuzz: case {case.number} ({case.kind}) FAILED: {'; '.join(sigs)} -> "
                      f"{dest}", flush=True)
            shutil.rmtree(directory, ignore_errors=True)

        def submit(pool, number):
            kind = pick_kind(number, seed, builtins, list(modules))
            if kind in modules:
                return pool.submit(lambda: ("module", run_module_case(kind, number, seed, pools[kind], out_root)))
            return pool.submit(lambda: ("builtin", run_case(make_case(number, seed, seeds, kind), runner, work)))

        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            pending = set()
            try:
                while True:
                    while len(pending) < workers and (args.case or time.monotonic() < deadline):
                        number = next(numbers, None)
                        if number is None:
                            break
                        pending.add(submit(pool, number))
                    if not pending:
                        break
                    done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                    for future in done:
                        handle(future.result())
            except (KeyboardInterrupt, Stop):
                interrupted = True
                print("fuzz: interrupted; finishing the cases under way", flush=True)
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                for future in concurrent.futures.as_completed(pending):
                    try:
                        handle(future.result())
                    except Exception as e:
                        print(f"fuzz: a case under way failed to finish: {e!r}", flush=True)
    except (KeyboardInterrupt, Stop):
        interrupted = True
        print("fuzz: interrupted", flush=True)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for targets in pools.values():
            targets.close()
        shutil.rmtree(work, ignore_errors=True)
    total = sum(counts.values())
    if signatures:
        print("fuzz: failures by kind:")
        for sig, dests in sorted(signatures.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(dests):5d}  {sig}  (e.g. {dests[0]})")
    print(f"fuzz: {total} runs ({', '.join(f'{k} {counts[k]}' for k in KINDS + MODULES)}), {failed} failures"
          + (" (interrupted)" if interrupted else ""))
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else (130 if interrupted else 0)


if __name__ == "__main__":
    sys.exit(main())
