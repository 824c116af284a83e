#!/usr/bin/env python3
"""Fuzz target "splitter" of scripts/fuzz.py: the stream splitter against "each page as a file"
(standard library only).

Each case takes 2 to 5 real pages (the shared sets' inputs when ../shared is there, else the
fixture pages), cuts some of them (not the last) at a random byte of their body, before its end
tag, as a crawler's size cap does, sometimes puts a separator (a newline, a NUL or form-feed
run) after a whole page, sometimes gzips the whole, and runs
`ppl-filter -f json -jN -` on the stream, trickled in random chunks, and `ppl-filter -f json
-jN` on the same pages (the cut ones as cut) as files.

What a stream cannot tell is left out (docs/GUIDE's "pages in one stream"): every page after the
first begins plainly, with `<!DOCTYPE html`; a page is cut only after its `<body>` begins; and
none closes a `<body>` it never opened or goes on after its first `</html>` with more than
comments and a head's elements (a page that may begin inside the one before, after a cut, and
does either is taken for one pasted into it).

Checks: no hang, no panic or signal, exit status 0, 1 or 2, every stderr line a
`ppl-filter: ...` one-liner; the stream gives one record per page, each the same as its file's
(every field but `source`); and every page cut off is reported, under its page's name.

Run alone: python3 scripts/fuzz_splitter.py --binary target/release/ppl-filter --seconds 60 [--seed S]
"""

import gzip
import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz  # noqa: E402
import fuzz_pipes  # noqa: E402  (the trickling writer, the memory limit, the stderr checks)

NAME = "splitter"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 60.0            # seconds per run of the binary (a stream of up to five real pages)
MAX_PAGE_BYTES = 2 << 20  # larger pages are not picked
# CleanEval's pages begin with their wrapper, not a doctype: they are not picked.
SETS = ("articles/l3s-gn1", "articles/dragnet", "wcxb-dev", "fundus", "structure")
PLAIN_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<!doctype\s+html", re.I)
END_TAG = re.compile(rb"</(?:body|html)", re.I)
BODY = re.compile(rb"<body[\s>]", re.I)
BODY_END = re.compile(rb"</body", re.I)
HTML_END = re.compile(rb"</html\s*>", re.I)
HEAD_ELEMENT = re.compile(rb"<(script|style|noscript|link|meta)\b", re.I)


def _ends_plainly(data, at):
    """Whether only white space, comments and a head's elements follow `at` (a page's first
    </html>): the page ends there plainly."""
    while True:
        while at < len(data) and data[at:at + 1].isspace():
            at += 1
        if at == len(data):
            return True
        if data.startswith(b"<!--", at):
            close = data.find(b"-->", at + 4)
            end = close + 3
        else:
            element = HEAD_ELEMENT.match(data, at)
            if not element:
                return False
            name = element.group(1).lower()
            if name in (b"link", b"meta"):
                close = data.find(b">", at)
                end = close + 1
            else:
                close = data.lower().find(b"</" + name, at)
                end = data.find(b">", close) + 1 if close >= 0 else 0
        if close < 0 or end <= at:
            return False
        at = end


def _page_bytes(path):
    data = fuzz.read(path)
    return gzip.decompress(data) if path.endswith(".gz") else data


class Target:
    def __init__(self, binary, work):
        self.binary, self.work = binary, work
        shared = os.path.join(ROOT, "..", "shared", "data")
        self.paths = []
        for name in SETS:
            self.paths += fuzz.listing(os.path.join(shared, name, "input"), (".html", ".htm", ".gz"))
        if not self.paths:
            self.paths = fuzz.listing(os.path.join(ROOT, "fixtures", "pages"), (".html",))
        self.plain = {}   # path -> whether the page begins and ends plainly (learned as read)

    def close(self):
        pass

    def _pick(self, rng):
        for _ in range(10_000):
            path = rng.choice(self.paths)
            if self.plain.get(path) is False:
                continue
            data = _page_bytes(path)
            end = HTML_END.search(data)
            self.plain[path] = (bool(PLAIN_START.match(data[:4096]))
                                and (end is None or _ends_plainly(data, end.end()))
                                and (BODY.search(data) is not None or BODY_END.search(data) is None))
            if len(data) <= MAX_PAGE_BYTES and self.plain[path]:
                return path, data
        raise RuntimeError("no page that begins and ends plainly to pick")

    def case(self, rng, number, case_dir):
        log, pages, stream, cuts = [], [], b"", []
        count = rng.randint(2, 5)
        for i in range(count):
            path, data = self._pick(rng)
            name = os.path.relpath(path, os.path.join(ROOT, ".."))
            body = BODY.search(data)
            if i < count - 1 and body and rng.random() < 0.35:
                ends = [m.start() for m in END_TAG.finditer(data, body.end())]
                last = ends[0] if ends else len(data)
                if last > body.end() + 1:
                    at = rng.randint(body.end() + 1, last - 1)
                    data = data[:at]
                    cuts.append(i)
                    name += f" cut at byte {at}"
            pages.append(data)
            stream += data
            log.append(f"page {i + 1}: {name} ({len(data)} bytes)")
            if i < count - 1 and i not in cuts and rng.random() < 0.2:
                separator = rng.choice([b"\n", b"\x00" * rng.randint(1, 4096), b"\x0c" * rng.randint(1, 4096)])
                stream += separator
                log.append(f"then a separator of {len(separator)} bytes {separator[:1]!r}")
        if rng.random() < 0.15:
            stream = gzip.compress(stream, mtime=0)
            log.append("the stream gzipped")
        files = []
        for i, data in enumerate(pages):
            files.append(os.path.join(case_dir, f"page-{i + 1}"))
            with open(files[-1], "wb") as f:
                f.write(data)
        with open(os.path.join(case_dir, "stream"), "wb") as f:
            f.write(stream)

        flags = ["-f", "json", rng.choice(["-j1", "-j2"])]
        chunks = fuzz_pipes._chunking(rng, len(stream))
        ref = _run([self.binary] + flags + files, case_dir)
        got = _run([self.binary] + flags + ["-"], case_dir, stream, chunks)
        failures = _check(ref, "the pages as files") + _check(got, "the stream on stdin")
        if not failures:
            failures = _compare(ref, got, count, cuts)
        if failures:
            _keep(case_dir, number, log, flags, ref, got, self.binary)
        return failures


def _run(command, cwd, data=None, chunks=None):
    """(exit status or None after the timeout, stdout, stderr, seconds); `data` is trickled
    on standard input in `chunks`."""
    if data is None:
        return fuzz_pipes._run(command, cwd, timeout=TIMEOUT)
    read_end, write_end = os.pipe()
    return fuzz_pipes._run(command, cwd, stdin=read_end, feed=(write_end, data, chunks), timeout=TIMEOUT)


def _check(result, what):
    if result[0] is None:
        return [f"{what}: did not finish within {TIMEOUT:g} s (hang)"]
    return fuzz_pipes._check_one(result, what)


def _records(stdout):
    records = []
    for line in stdout.decode("utf-8", "replace").splitlines():
        record = json.loads(line)
        record.pop("source", None)
        records.append(record)
    return records


def _compare(ref, got, count, cuts):
    failures = []
    want, have = _records(ref[1]), _records(got[1])
    if len(have) != count or len(want) != count:
        return [f"{len(have)} records from the stream, {len(want)} from the files, {count} pages"]
    for i, (a, b) in enumerate(zip(want, have)):
        if a != b:
            fields = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            failures.append(f"page {i + 1}: the stream's record differs from the file's in {', '.join(fields)}")
    lines = got[2].decode("utf-8", "replace").splitlines()
    for i in cuts:
        head = "ppl-filter: <stdin>: " + (f"page {i + 1}: " if i else "")
        said = [line for line in lines if line.startswith(head) and (i or not line[len(head):].startswith("page "))]
        if not any("cut off" in line or "ends before" in line for line in said):
            failures.append(f"page {i + 1} was cut off and its cut is not reported")
    return failures


def _keep(case_dir, number, log, flags, ref, got, binary):
    for label, (status, out, err, seconds) in (("files", ref), ("stream", got)):
        with open(os.path.join(case_dir, f"stdout-{label}"), "wb") as f:
            f.write(out[:5_000_000])
        with open(os.path.join(case_dir, f"stderr-{label}.txt"), "wb") as f:
            f.write(err[:200_000])
    shown = " ".join(shlex.quote(f) for f in flags)
    lines = [f"splitter case {number}", "", "steps:"] + [f"  - {m}" for m in log]
    lines += ["", f"binary: {binary}", "reproduce (in this directory):",
              f"  ppl-filter {shown} page-*     # {fuzz.describe_status(ref[0])}, {ref[3]:.2f} s",
              f"  ppl-filter {shown} - < stream     # {fuzz.describe_status(got[0])}, {got[3]:.2f} s",
              "", "rerun the whole case: python3 scripts/fuzz_splitter.py --binary BINARY --seed SEED --case N"]
    with open(os.path.join(case_dir, "REPRO.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1714564800")
    sys.exit(fuzz_pipes.main(sys.modules[__name__]))
