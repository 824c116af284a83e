#!/usr/bin/env python3
"""Fuzz target for the fetcher (`ppl-filter -u URL`, `-i FILE`), driven by scripts/fuzz.py or
run alone; `--measure` prints the figures of its bounds instead.

A small HTTP server listens on 127.0.0.1 and, for cross-host redirects, on 127.0.0.2 (another
port of 127.0.0.1 where that address cannot be bound). Each case makes a site on it whose
answers are mutated: status lines (HTTP/1.0, odd codes, junk, interim 1xx answers), headers
(Content-Length that lies or repeats, Content-Encoding gzip, deflate, br, junk or several,
charsets, Location loops and redirects to the other host, many or long headers), chunked
framing (sizes with leading zeros, upper case, extensions, a cut inside a chunk, no last chunk,
sizes glued to the data), bodies (a gzip bomb of about 1 GB of whitespace, binary junk,
compressed data cut short, HTML), robots.txt (large, wildcard-heavy, binary, 5xx, missing,
slow, gzipped, redirected), and delivery (all at once, in a slow trickle, stalled past
--fetch-timeout, closed early). ppl-filter then fetches one or a few URLs of it with
`--fetch-delay 0` and a small `--fetch-timeout` (sometimes `--no-robots`, a small
`--max-filesize`, `--format json`). Only 127.0.0.0/8 is ever spoken to.

A case fails when the run
  * panics, dies of a signal, or does not end within RUN_TIMEOUT,
  * holds more than MAX_RSS_BYTES at its peak (its rusage's maxrss),
  * writes a stderr line that is not one `ppl-filter: ...` line,
  * exits with a status other than 0, 1 or 2,
  * exits with 0 although the server cut a page it sent (short of its Content-Length, a chunked
    body without its last chunk, compressed data cut, stalled past the deadline, a page
    larger than --max-filesize once decoded),
  * says a site's robots.txt disallows a URL when that robots.txt was missing, failing or
    too slow to be read.

    python3 scripts/fuzz_fetch.py --binary target/release/ppl-filter --seconds 300 --seed 1
    python3 scripts/fuzz_fetch.py --binary target/release/ppl-filter --measure
"""

import argparse
import gzip
import io
import os
import random
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib

NAME = "fetch"

# The fetch timeout given to ppl-filter (seconds) and how long a stalled answer sleeps.
FETCH_TIMEOUT = 1.5
STALL_SECONDS = FETCH_TIMEOUT + 1.0
# One run ends within this (a few URLs, each with its robots.txt and redirects).
RUN_TIMEOUT = 90.0
# A run's peak resident memory never passes this.
MAX_RSS_BYTES = 256 << 20
# What a line on stderr must look like.
STDERR_LINE = re.compile(r"^ppl-filter: [^\n]+$")

PAGES = [
    b"<html><head><title>Storm</title></head><body><article><p>The storm reached the coast on "
    b"Friday morning and cut the power to thousands of homes, officials said.</p></article>"
    b"</body></html>",
    b"<p>Short.</p>",
    b"<html><body>" + b"<p>A sentence that is long enough to be kept by the filter.</p>" * 200
    + b"</body></html>",
    "<html><head><meta charset='iso-8859-1'></head><body><p>Caf\u00e9 cr\u00e8me</p></body>"
    "</html>".encode("latin-1"),
    b"",
]


def available(binary):
    """The target needs `-u` (the `fetch` feature)."""
    try:
        out = subprocess.run([binary, "--help"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"cannot run {binary}: {e}"
    if b"--fetch-timeout" not in out.stdout:
        return False, "ppl-filter has no -u (built without the fetch feature)"
    return True, ""


# ---------------------------------------------------------------------------------------------
# Bodies made once

_BOMB = None


def gzip_bomb():
    """About 1 GB of whitespace, gzipped (about 1 MB), made once and kept in memory."""
    global _BOMB
    if _BOMB is None:
        out = io.BytesIO()
        block = b" " * (1 << 20)
        with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0) as gz:
            for _ in range(1000):
                gz.write(block)
        _BOMB = out.getvalue()
    return _BOMB


def deflate(data, raw=False):
    c = zlib.compressobj(6, zlib.DEFLATED, -15 if raw else 15)
    return c.compress(data) + c.flush()


def brotli_stored(data):
    """`data` as a brotli stream of uncompressed meta-blocks (RFC 7932, 9.2), which any decoder
    reads: the standard library has no brotli encoder."""
    bits = []

    def put(value, n):
        for i in range(n):
            bits.append((value >> i) & 1)

    put(0, 1)                     # WBITS 16
    for start in range(0, len(data), 1 << 16):
        piece = data[start:start + (1 << 16)]
        put(0, 1)                 # ISLAST = 0
        put(0, 2)                 # MNIBBLES = 4
        put(len(piece) - 1, 16)   # MLEN - 1
        put(1, 1)                 # ISUNCOMPRESSED
        while len(bits) % 8:
            bits.append(0)
        bits.extend(b for byte in piece for b in ((byte >> i) & 1 for i in range(8)))
    put(1, 1)                     # ISLAST
    put(1, 1)                     # ISLASTEMPTY
    while len(bits) % 8:
        bits.append(0)
    return bytes(sum(bits[i + j] << j for j in range(8)) for i in range(0, len(bits), 8))


# ---------------------------------------------------------------------------------------------
# The server


class Server:
    """Listeners on 127.0.0.1 and 127.0.0.2 (or a second port of 127.0.0.1) answering each
    request with the answer the current site has for its host and path."""

    def __init__(self):
        self.site = {}
        self.lock = threading.Lock()
        self.closed = False
        self.sockets = []
        self.hosts = []
        for address in ["127.0.0.1", "127.0.0.2"]:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((address, 0))
            except OSError:
                s.close()
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.bind(("127.0.0.1", 0))
            s.listen(64)
            self.sockets.append(s)
            self.hosts.append("%s:%d" % s.getsockname())
            threading.Thread(target=self._accept, args=(s, len(self.hosts) - 1),
                             daemon=True).start()

    def set_site(self, site):
        with self.lock:
            self.site = site

    def _accept(self, listener, host):
        while not self.closed:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn, host), daemon=True).start()

    def _serve(self, conn, host):
        try:
            conn.settimeout(10)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                data = conn.recv(4096)
                if not data:
                    return
                head += data
            path = head.split(b" ")[1].decode("latin-1") if head.count(b" ") >= 2 else "/"
            with self.lock:
                answer = self.site.get((host, path)) or self.site.get((None, path))
            if answer is None:
                answer = [("send", b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")]
            for action, value in answer:
                if action == "send":
                    conn.sendall(value)
                elif action == "trickle":
                    for i in range(0, len(value), 7):
                        conn.sendall(value[i:i + 7])
                        time.sleep(0.01)
                elif action == "sleep":
                    time.sleep(value)
        except OSError:
            pass
        finally:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def close(self):
        self.closed = True
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass


# ---------------------------------------------------------------------------------------------
# Answers


def chunked(rng, body, cut):
    """`body` in chunked framing, mutated, and whether it is cut: `cut` says where, "inside" a
    chunk, or the "last" chunk missing, or None (whole)."""
    out = []
    i = 0
    while i < len(body):
        n = rng.choice([1, 7, 100, 4096, 65536, len(body)])
        piece = body[i:i + n]
        size = "%x" % len(piece)
        form = rng.random()
        if form < 0.2:
            size = "000" + size
        elif form < 0.3:
            size = size.upper()
        elif form < 0.4:
            size += rng.choice([";ext=1", "; name=\"v\"", ";;", "   "])
        out.append(size.encode() + b"\r\n" + piece + b"\r\n")
        i += len(piece)
    if not out:
        cut = None if cut == "inside" else cut
    if cut == "inside":
        last = out[-1]
        data_start = last.index(b"\r\n") + 2
        out[-1] = last[:data_start + (len(last) - 2 - data_start) // 2]
    elif cut != "last":
        out.append(b"0\r\n" + rng.choice([b"", b"X-Trailer: 1\r\n"]) + b"\r\n")
    return b"".join(out), cut is not None


def page_answer(rng, max_filesize, hosts):
    """(the answer's actions, whether it cuts the page it sends, a description)."""
    notes = []
    kind = rng.random()
    status = b"HTTP/1.1 200 OK"
    headers = []
    cut = False
    if kind < 0.12:
        # A redirect: to the other host, the same, a loop, junk, or none at all.
        target = rng.choice([
            "http://%s/page" % hosts[1], "http://%s/page" % hosts[0], "/loop", "/page",
            "http://%s/redirect" % hosts[1], "", "http://[::1]:1/x", "ftp://127.0.0.1/",
            "http://%s/%s" % (hosts[0], "x" * 3000), "//%s/page" % hosts[1], "\x01\x02",
        ])
        code = rng.choice([301, 302, 303, 307, 308, 300, 399])
        notes.append(f"redirect {code} to {target[:60]!r}")
        head = f"HTTP/1.1 {code} Moved\r\nLocation: {target}\r\nContent-Length: 0\r\n\r\n"
        return [("send", head.encode("latin-1", "replace"))], False, notes
    if kind < 0.2:
        status = rng.choice([
            b"HTTP/1.0 200 OK", b"HTTP/1.1 200", b"HTTP/1.1 999 Odd", b"HTTP/1.1 2000 OK",
            b"HTP/1.1 200 OK", b"", b"\x00\xff junk", b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK",
            b"HTTP/1.1 204 No Content", b"HTTP/1.1 304 Not Modified", b"HTTP/1.1 500 Oops",
            b"HTTP/1.1 404 Not Found", b"HTTP/1.1 101 Switching",
            b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" * 10 + b"HTTP/1.1 200 OK",
        ])
        notes.append(f"status {status[:40]!r}")
    ok_status = status in (b"HTTP/1.1 200 OK", b"HTTP/1.0 200 OK", b"HTTP/1.1 200") or \
        status.endswith(b"HTTP/1.1 200 OK")
    body = rng.choice(PAGES)
    what = rng.random()
    if what < 0.15:
        body = gzip_bomb()
        notes.append("gzip bomb")
    elif what < 0.25:
        body = bytes(rng.randrange(256) for _ in range(rng.choice([10, 1000, 50000])))
        notes.append("binary junk")
    # Content coding.
    coding = rng.random()
    encoded = body
    if body is not _BOMB and coding < 0.45:
        name = rng.choice(["gzip", "x-gzip", "deflate", "deflate-raw", "br", "none-gzip",
                           "gzip, gzip", "junk", "gzip, br"])
        notes.append(f"coding {name}")
        if name in ("gzip", "x-gzip", "none-gzip"):
            encoded = gzip.compress(body, mtime=0)
        elif name == "gzip, gzip":
            encoded = gzip.compress(gzip.compress(body, mtime=0), mtime=0)
        elif name == "deflate":
            encoded = deflate(body)
        elif name == "deflate-raw":
            encoded = deflate(body, raw=True)
            name = "deflate"
        elif name == "br":
            encoded = brotli_stored(body)
        elif name == "gzip, br":
            encoded = brotli_stored(gzip.compress(body, mtime=0))
        if name != "none-gzip":
            headers.append(f"Content-Encoding: {name}")
        if name not in ("junk",) and rng.random() < 0.2 and len(encoded) > 4:
            encoded = encoded[:rng.randrange(1, len(encoded) - 2)]
            notes.append("compressed data cut")
            cut = True
    elif body is _BOMB and coding < 0.5:
        headers.append("Content-Encoding: gzip")
        notes.append("said gzip")
    if body is _BOMB:
        cut = True   # 1 GB is larger than any --max-filesize given
    elif max_filesize is not None and len(body) > max_filesize and not cut:
        cut = "junk" not in " ".join(notes)
    if rng.random() < 0.3:
        charset = rng.choice(["utf-8", "iso-8859-1", "x-bogus", "utf-16", "shift_jis", "\"utf-8\"",
                              "a" * 300])
        headers.append(f"Content-Type: text/html; charset={charset}")
    for _ in range(rng.choice([0, 0, 0, 5, 200])):
        headers.append(f"X-Many-{rng.randrange(10**6)}: {'v' * rng.choice([1, 100])}")
    if rng.random() < 0.03:
        headers.append("X-Long: " + "a" * 70000)
        notes.append("long header")
    # Framing.
    framing = rng.random()
    # How many bytes of `data` the framing asks for (None: all of them).
    framed = None
    if framing < 0.35:
        how = rng.choice([None, None, "inside", "last"])
        headers.append("Transfer-Encoding: " + rng.choice(["chunked", "Chunked", "gzip, chunked"
                                                           if "Content-Encoding: gzip" in headers
                                                           else "chunked"]))
        if headers[-1].endswith("gzip, chunked"):
            headers.remove("Content-Encoding: gzip")
        data, chunks_cut = chunked(rng, encoded, how)
        if chunks_cut and status != b"HTTP/1.0 200 OK":
            cut = True
        if status == b"HTTP/1.0 200 OK":
            notes.append("chunked in HTTP/1.0: read to the close")
        notes.append(f"chunked, cut {how}")
        if rng.random() < 0.1 and encoded and status != b"HTTP/1.0 200 OK":
            # A size glued to the data before it: the chunk is longer than its size says.
            i = data.find(b"\r\n", data.index(b"\r\n") + 2)
            if i > 0:
                data = data[:i] + data[i + 2:]
                notes.append("glued size")
                cut = True
    elif framing < 0.75:
        lie = rng.random()
        n = len(encoded)
        if lie < 0.15 and n > 0:
            headers.append(f"Content-Length: {n + rng.choice([1, 100, 10**9])}")
            notes.append("Content-Length longer than the body")
            cut = True
        elif lie < 0.25 and n > 1:
            headers.append(f"Content-Length: {n // 2}")
            notes.append("Content-Length shorter than the body")
            cut = cut and body is _BOMB
            # The page ends where its Content-Length says: what comes after is not waited for.
            framed = n // 2
        elif lie < 0.3:
            headers.append(rng.choice([f"Content-Length: {n}, {n}", f"Content-Length: {n}, 7",
                                       "Content-Length: x", f"Content-Length: +{n}"]))
            notes.append(f"odd Content-Length {headers[-1]!r}")
        else:
            headers.append(f"Content-Length: {n}")
        data = encoded
    else:
        data = encoded
        notes.append("read to the close")
    head = status + b"\r\n" + "".join(h + "\r\n" for h in headers).encode("latin-1", "replace") \
        + b"Connection: close\r\n\r\n"
    framed = len(data) if framed is None else framed
    delivery = rng.random()
    if delivery < 0.08:
        actions = [("send", head), ("trickle", data[:300]), ("send", data[300:])]
        notes.append("trickled")
    elif delivery < 0.14:
        half = len(data) // 2
        actions = [("send", head + data[:half]), ("sleep", STALL_SECONDS), ("send", data[half:])]
        notes.append("stalled past the deadline")
        cut = cut or (half < framed)
    elif delivery < 0.17:
        actions = [("sleep", STALL_SECONDS)]
        notes.append("no answer")
        cut = False
    else:
        actions = [("send", head + data)]
    if not ok_status:
        cut = False
    return actions, bool(cut), notes


def robots_answer(rng):
    """(the robots.txt answer's actions, whether it can disallow, a description)."""
    kind = rng.choice(["missing", "missing", "plain", "wildcards", "huge", "binary", "5xx",
                       "slow", "gzip", "redirect", "chunked-cut", "delay"])
    rules = b"User-agent: *\nDisallow: /private\nAllow: /\n"
    ok = lambda body, extra="": [("send", (
        f"HTTP/1.1 200 OK\r\n{extra}Content-Length: {len(body)}\r\n\r\n").encode() + body)]
    if kind == "missing":
        return [("send", b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")], False, kind
    if kind == "plain":
        return ok(rules), True, kind
    if kind == "wildcards":
        body = b"User-agent: *\n" + b"".join(
            b"Disallow: /*%d*a*b*c*d*e*f*g$\n" % i for i in range(10000))
        return ok(body), True, kind
    if kind == "huge":
        body = b"User-agent: ppl-filter\n" + b"Disallow: /*x*y*z*w*v*u*t*s$\n" * ((2 << 20) // 30)
        return ok(body), True, kind
    if kind == "binary":
        body = bytes(rng.randrange(256) for _ in range(5000))
        return ok(body), True, kind
    if kind == "5xx":
        return [("send", b"HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n")], False, kind
    if kind == "slow":
        return [("sleep", STALL_SECONDS)], False, kind
    if kind == "gzip":
        return ok(gzip.compress(rules, mtime=0), "Content-Encoding: gzip\r\n"), True, kind
    if kind == "redirect":
        return [("send", b"HTTP/1.1 301 Moved\r\nLocation: /robots-real.txt\r\n"
                         b"Content-Length: 0\r\n\r\n")], True, kind
    if kind == "chunked-cut":
        return [("send", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                         b"20\r\nUser-agent: *\nDisallow: /priv")], True, kind
    return ok(b"User-agent: *\nCrawl-delay: " + rng.choice([b"0", b"0.05", b"NaN", b"-1", b"x"])
              + b"\n"), True, kind


def generate(rng, hosts):
    """(site, URLs, flags, the URLs whose page is cut, the hosts whose robots.txt cannot
    disallow, the URLs that redirect, a description)."""
    notes = []
    site = {}
    max_filesize = rng.choice([None, None, None, 100, 5000, 1 << 20])
    cannot_disallow = set()
    for host in (0, 1):
        actions, can, kind = robots_answer(rng)
        site[(host, "/robots.txt")] = actions
        site[(host, "/robots-real.txt")] = [("send", b"HTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\n"
                                                     b"User-agent: *\n")]
        notes.append(f"robots.txt of host {host}: {kind}")
        if not can:
            cannot_disallow.add(host)
    cut_urls = set()
    redirecting = set()
    urls = []
    for i in range(rng.choice([1, 1, 1, 2, 3])):
        path = rng.choice(["/page", f"/p{i}", "/private/x", "/redirect", "/loop"])
        host = rng.choice([0, 0, 1])
        if (host, path) in site:
            path += f"-{i}"
        actions, cut, page_notes = page_answer(rng, max_filesize, hosts)
        site[(host, path)] = actions
        notes.append(f"{hosts[host]}{path}: " + ", ".join(page_notes))
        url = f"http://{hosts[host]}{path}"
        urls.append(url)
        if cut and "redirect" not in " ".join(page_notes):
            cut_urls.add(url)
        if "redirect" in " ".join(page_notes):
            redirecting.add(url)
    flags = ["--fetch-delay", "0", "--fetch-timeout", str(FETCH_TIMEOUT)]
    if max_filesize is not None:
        flags += ["--max-filesize", str(max_filesize)]
    if rng.random() < 0.3:
        flags.append("--no-robots")
    if rng.random() < 0.3:
        flags += ["--format", "json"]
    return site, urls, flags, cut_urls, cannot_disallow, redirecting, notes


# ---------------------------------------------------------------------------------------------
# Runs


# GNU time measures a run's peak memory when it is there: a child's own rusage counts the
# memory of this process at the fork (Linux keeps a process's peak across its exec), which is
# large when scripts/fuzz.py, holding every kind's seeds, runs this target.
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def run(binary, args, stdin=b"", timeout=RUN_TIMEOUT):
    """(exit status or None after a timeout, stdout, stderr, peak RSS in bytes, seconds)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(prefix="fuzz-fetch-peak-") as peak:
        command = [binary] + args
        if GNU_TIME:
            command = [GNU_TIME, "-f", "%M", "-o", peak.name] + command
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=err,
                                start_new_session=True)
        try:
            proc.stdin.write(stdin)
            proc.stdin.close()
        except OSError:
            pass
        rusage = None
        status = None
        deadline = started + timeout
        while True:
            pid, raw, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(raw)
                proc.returncode = status
                break
            if time.monotonic() > deadline:
                # The whole group: GNU time and the run under it.
                os.killpg(proc.pid, signal.SIGKILL)
                _, raw, rusage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(raw)
                status = None
                break
            time.sleep(0.01)
        rss = rusage.ru_maxrss * 1024
        if GNU_TIME:
            said = open(peak.name, errors="replace").read().split("\n")
            said = [line.strip() for line in said if line.strip()]
            if said and said[-1].isdigit():
                rss = int(said[-1]) * 1024
            # GNU time exits 128 + N for a run killed by signal N: told as Popen tells it.
            if status is not None and any(line.startswith("Command terminated by signal")
                                          for line in said):
                status = -int(said[0].rsplit(" ", 1)[-1])
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read(), rss, time.monotonic() - started


class Target:
    """One server; each case sets its site and runs ppl-filter on it."""

    def __init__(self, binary, work):
        self.binary = binary
        self.work = work
        self.server = Server()
        gzip_bomb()

    def close(self):
        self.server.close()

    def case(self, rng, number, case_dir):
        hosts = self.server.hosts
        site, urls, flags, cut_urls, cannot_disallow, redirecting, notes = generate(rng, hosts)
        self.server.set_site(site)
        if len(urls) > 1 or rng.random() < 0.2:
            listing = os.path.join(case_dir, "urls.txt")
            with open(listing, "w") as f:
                f.write("# urls\n\n" + "\n".join(urls) + "\n")
            args = ["-i", listing] + flags
        else:
            args = ["-u", urls[0]] + flags
        status, out, err, rss, seconds = run(self.binary, args)
        failures = []
        text = err.decode("utf-8", "replace")
        if status is None:
            failures.append(f"no end within {RUN_TIMEOUT:.0f} s")
        elif status < 0:
            failures.append(f"killed by signal {-status}")
        elif status not in (0, 1, 2):
            failures.append(f"exit status {status}")
        if "panicked" in text:
            failures.append("a panic: " + text[:500])
        for line in text.splitlines():
            if not STDERR_LINE.match(line):
                failures.append(f"a stderr line that is not `ppl-filter: ...`: {line[:200]!r}")
                break
        if rss > MAX_RSS_BYTES:
            failures.append(f"peak memory {rss >> 20} MiB (more than {MAX_RSS_BYTES >> 20})")
        if status == 0 and cut_urls:
            failures.append(f"exit status 0 although the server cut {sorted(cut_urls)}")
        for line in text.splitlines():
            if "robots.txt disallows" not in line:
                continue
            for host in cannot_disallow:
                url = line[len("ppl-filter: "):].split(": ")[0]
                if url.startswith(f"http://{hosts[host]}/") and url not in redirecting:
                    failures.append(f"robots.txt said to disallow where it could not: {line[:300]}")
        if failures:
            write_repro(case_dir, self.binary, args, notes, failures, status, err)
        else:
            listing = os.path.join(case_dir, "urls.txt")
            if os.path.exists(listing):
                os.remove(listing)
        return failures


def write_repro(case_dir, binary, args, notes, failures, status, err):
    with open(os.path.join(case_dir, "stderr.txt"), "wb") as f:
        f.write(err[:1 << 20])
    with open(os.path.join(case_dir, "REPRO.txt"), "w") as f:
        for failure in failures:
            f.write(f"FAILED: {failure}\n")
        f.write(f"exit status: {status}\n\nthe site:\n")
        for note in notes:
            f.write(f"  {note}\n")
        f.write("\nthe run (the server lives only while the fuzzer runs; rerun the case with\n"
                "scripts/fuzz_fetch.py --seed S --case N):\n")
        f.write(f"  {shlex.quote(os.path.abspath(binary))} {' '.join(map(shlex.quote, args))}\n")


# ---------------------------------------------------------------------------------------------
# Figures


def measure(binary):
    """Prints the figures of the fetcher's bounds: a 1 GB gzip bomb (no header, gzip, br
    stored), robots.txt of 10,000 wildcard rules and of 10 MB, and the messages of an ok, a
    404 and an unreachable URL."""
    server = Server()
    try:
        bomb = gzip_bomb()
        hosts = server.hosts
        wildcards = b"User-agent: *\n" + b"".join(
            b"Disallow: /*%d*a*b*c*d*e*f*g$\n" % i for i in range(10000)) + b"Disallow: /private\n"
        ten_mb = b"User-agent: *\nDisallow: /private\n" + b"Disallow: /*x*y*z*w*v*u*t*s$\n" * (
            10_000_000 // 30)
        page = PAGES[0]
        site = {
            (0, "/bomb"): [("send", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(bomb)
                            + bomb)],
            (0, "/bomb-gzip"): [("send", b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
                                 b"Content-Length: %d\r\n\r\n" % len(bomb) + bomb)],
            (0, "/robots.txt"): [("send", b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")],
            (1, "/robots.txt"): [("send", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n"
                                  % len(wildcards) + wildcards)],
            (None, "/page"): [("send", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(page)
                               + page)],
            (None, "/private/x"): [("send", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n"
                                    % len(page) + page)],
        }
        paths = ["/bomb", "/bomb-gzip"]
        try:
            import brotli   # not in the standard library: the br bomb only where it is installed
            c = brotli.Compressor(quality=5)
            block = b" " * (1 << 20)
            br = b"".join(c.process(block) for _ in range(1000)) + c.finish()
            site[(0, "/bomb-br")] = [("send", b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n"
                                      b"Content-Length: %d\r\n\r\n" % len(br) + br)]
            paths.append("/bomb-br")
        except ImportError:
            print("(no Python brotli module: the br bomb is left out)")
        server.set_site(site)
        flags = ["--fetch-delay", "0"]
        print(f"gzip bomb: {len(bomb)} bytes for 1,000,000,000 of whitespace")
        for path in paths:
            url = f"http://{hosts[0]}{path}"
            status, out, err, rss, seconds = run(binary, ["-u", url] + flags)
            print(f"{path}: exit {status}, {seconds:.1f} s, peak {rss >> 20} MiB, "
                  f"{len(out)} bytes out; stderr: {err.decode(errors='replace').strip()[:300]}")
        for path in ["/page", "/private/x"]:
            url = f"http://{hosts[1]}{path}"
            status, out, err, rss, seconds = run(binary, ["-u", url] + flags)
            print(f"robots.txt of 10,000 wildcard rules, {path}: exit {status}, {seconds:.1f} s, "
                  f"peak {rss >> 20} MiB; stderr: {err.decode(errors='replace').strip()[:300]}")
        site[(1, "/robots.txt")] = [("send", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n"
                                     % len(ten_mb) + ten_mb)]
        server.set_site(site)
        for path in ["/page", "/private/x"]:
            url = f"http://{hosts[1]}{path}"
            status, out, err, rss, seconds = run(binary, ["-u", url] + flags)
            print(f"robots.txt of 10 MB, {path}: exit {status}, {seconds:.1f} s, peak {rss >> 20} "
                  f"MiB; stderr: {err.decode(errors='replace').strip()[:300]}")
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        unreachable = "http://127.0.0.1:%d/page" % closed.getsockname()[1]
        closed.close()
        urls = [f"http://{hosts[0]}/page", f"http://{hosts[0]}/missing", unreachable]
        status, out, err, rss, seconds = run(binary, ["-u", urls[0], "-u", urls[1], "-u", urls[2]]
                                             + flags)
        print(f"ok, 404, unreachable: exit {status}; stderr:")
        for line in err.decode(errors="replace").splitlines():
            print(f"  {line}")
    finally:
        server.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="target/release/ppl-filter")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--seed", default=str(random.randrange(1 << 30)))
    parser.add_argument("--case", type=int, default=None, help="run only this case of the seed")
    parser.add_argument("--out", default=None, help="where failing cases are kept")
    parser.add_argument("--measure", action="store_true", help="print the bounds' figures")
    args = parser.parse_args()
    ok, why = available(args.binary)
    if not ok:
        print(f"skipped: {why}")
        return 0
    if args.measure:
        measure(args.binary)
        return 0
    out = args.out or tempfile.mkdtemp(prefix="fuzz-fetch-")
    target = Target(args.binary, out)
    passed = failed = 0
    deadline = time.monotonic() + args.seconds
    try:
        number = args.case or 0
        while time.monotonic() < deadline:
            rng = random.Random(f"{args.seed}/{number}")
            case_dir = os.path.join(out, f"{number}-fetch")
            os.makedirs(case_dir, exist_ok=True)
            failures = target.case(rng, number, case_dir)
            if failures:
                failed += 1
                print(f"case {number} (seed {args.seed}) FAILED: {failures}", file=sys.stderr)
            else:
                passed += 1
                os.rmdir(case_dir)
            number += 1
            if args.case is not None:
                break
    finally:
        target.close()
    print(f"{passed} passed, {failed} failed (seed {args.seed}, failures under {out})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
