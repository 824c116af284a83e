#!/usr/bin/env python3
"""Fuzz target for `ppl-filter serve` (the web demo), driven by scripts/fuzz.py or run alone.

One server is started on 127.0.0.1 (a free port) with small bounds, and beside it a sentinel:
a listener on 127.0.0.1 (and ::1 when there is one) that no URL given to the server may ever
reach. Each case sends the server one hostile request: random or malformed JSON (wrong types,
deep nesting, lone surrogates, NUL bytes, trailing garbage, invalid UTF-8), huge or weird
fields, `"blocks": true` on pathological HTML, URLs of other schemes and of loopback, private
and embedded-IPv4 addresses in every spelling (all pointing at the sentinel's port), very long
URLs and paths, wrong methods and paths, malformed HTTP, and bodies that stop short of their
Content-Length. Some cases ("slow") first open several connections that hold the server a
byte at a time (a body trickled, a head trickled, a chunked body trickled, or nothing sent at
all), from one, four or eight loopback addresses (127.0.0.10-17: the server counts each as a
client of its own), then send an ordinary request, which must get its proper answer all the
same; some of them then wait past --body-timeout and --idle-timeout for the tricklers to be
answered 408 or closed. The tricklers are closed at the end of their case. Only loopback addresses are ever
spoken to: the URLs hold no host name but `localhost`, and no address the server would fetch.

A case fails when
  * the server has died, or wrote anything on stderr (a panic, a log line),
  * the answer is not a well-formed HTTP response, or does not come within the timeout,
  * its status is 500 (or another 5xx than 502 and 503), or not one the request may get (an
    ordinary request sent while tricklers hold connections may not get 503),
  * a trickled body is not answered 408 (or a trickled head closed) once its time is up,
  * a 4xx or 5xx from the application is not one line of JSON `{"error": "..."}`,
  * a 200 from /clean is not `{"text", "problems"[, "blocks", "blocks_truncated"]}` with at
    most --max-blocks blocks, or an answer is longer than --max-answer-bytes,
  * the server's resident memory passes MAX_RSS_BYTES,
  * the sentinel received a connection.

    python3 scripts/fuzz_serve.py --binary target/release/ppl-filter --seconds 60 --seed 1
"""

import argparse
import json
import os
import random
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time

NAME = "serve"

# The bounds the server is started with (small, so that a case reaches them quickly).
MAX_BLOCKS = 300
MAX_ANSWER_BYTES = 4 << 20
MAX_BODY_BYTES = 2 << 20
SERVE_FLAGS = [
    "--threads", "2",
    "--max-blocks", str(MAX_BLOCKS),
    "--max-answer-bytes", str(MAX_ANSWER_BYTES),
    "--max-body-bytes", str(MAX_BODY_BYTES),
    "--fetch-timeout", "3",
    "--body-timeout", "2",
    "--idle-timeout", "2",
]
# What --body-timeout and --idle-timeout are set to.
BODY_TIMEOUT = 2.0
IDLE_TIMEOUT = 2.0
# The most connections a slow case holds from one address (below the server's 32 a client, with
# room for the ordinary request and a stalled connection of an earlier case not yet closed).
MAX_TRICKLERS = 24
# A trickler sends a byte this often.
TRICKLE_EVERY = 0.25
# The server's resident memory never passes this.
MAX_RSS_BYTES = 512 << 20
# No answer within this is a hang.
ANSWER_TIMEOUT = 30.0
# A request cut short is given this long before it is dropped.
STALL_SECONDS = 0.3


def available(binary):
    """The target needs a `serve` subcommand (the `serve` feature)."""
    try:
        out = subprocess.run([binary, "serve", "--help"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"cannot run {binary}: {e}"
    if out.returncode != 0:
        return False, "ppl-filter has no serve subcommand (built without the serve feature)"
    return True, ""


class Sentinel:
    """Listeners on 127.0.0.1 (and ::1) that count the connections they get."""

    def __init__(self):
        self.connections = []
        self.sockets = []
        self.port = None
        for family, host in [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")]:
            try:
                s = socket.socket(family, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((host, self.port or 0))
                s.listen(64)
            except OSError:
                continue
            if self.port is None:
                self.port = s.getsockname()[1]
            self.sockets.append(s)
            threading.Thread(target=self._accept, args=(s,), daemon=True).start()
        if self.port is None:
            raise RuntimeError("cannot listen on 127.0.0.1")

    def _accept(self, listener):
        while True:
            try:
                conn, peer = listener.accept()
            except OSError:
                return
            self.connections.append(peer)
            conn.close()

    def close(self):
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass


class Target:
    """One server, spoken to by one case at a time."""

    def __init__(self, binary, work):
        self.binary = binary
        self.work = work
        self.sentinel = Sentinel()
        self.stderr_lines = []
        self.proc = subprocess.Popen(
            [binary, "serve", "--bind", "127.0.0.1:0"] + SERVE_FLAGS,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        first = self.proc.stderr.readline().decode("utf-8", "replace").strip()
        prefix = "ppl-filter: serving on http://127.0.0.1:"
        if not first.startswith(prefix):
            self.proc.kill()
            raise RuntimeError(f"ppl-filter serve did not start: {first!r}")
        self.port = int(first[len(prefix):].rstrip("/"))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            if len(self.stderr_lines) < 1000:
                self.stderr_lines.append(line.decode("utf-8", "replace").rstrip("\n"))

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.sentinel.close()

    def rss(self):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return None

    def case(self, rng, number, case_dir):
        kind, request, expect = generate(rng, self.sentinel.port)
        stderr_before = len(self.stderr_lines)
        connections_before = len(self.sentinel.connections)
        failures = []
        answer = None
        tricklers = Tricklers(self.port, expect["tricklers"],
                              expect["addresses"]) if "tricklers" in expect else None
        try:
            if tricklers is not None:
                time.sleep(expect["hold"])
            answer = exchange(self.port, request, expect)
        except Exception as e:  # a hang, a reset before any answer, a malformed answer
            failures.append(f"{kind}: {type(e).__name__}: {e}")
        finally:
            if tricklers is not None:
                failures += tricklers.finish(expect["wait_out"])
        if answer is not None:
            failures += check(kind, expect, *answer)
        # A panic's lines may come a moment after the answer.
        time.sleep(0.02)
        if self.proc.poll() is not None:
            failures.append(f"the server died (exit status {self.proc.returncode})")
        new_stderr = self.stderr_lines[stderr_before:]
        if new_stderr:
            failures.append("the server wrote on stderr: " + " | ".join(new_stderr[:5])[:2000])
        if len(self.sentinel.connections) > connections_before:
            failures.append(f"a local address was fetched: {self.sentinel.connections[-1]}")
        rss = self.rss()
        if rss is not None and rss > MAX_RSS_BYTES:
            failures.append(f"the server holds {rss >> 20} MiB (more than {MAX_RSS_BYTES >> 20})")
        if failures:
            write_repro(case_dir, self.binary, kind, request, answer, failures)
        return failures


class Tricklers:
    """Connections that hold the server a byte at a time, each as its mode says: "body" (the
    head of a POST, then its body a byte at a time), "chunked" (the same, chunked), "head" (a
    head a byte at a time) or "idle" (nothing sent), the n-th from the n-th of `addresses`
    (round robin). A thread trickles until `finish`."""

    def __init__(self, port, modes, addresses):
        self.modes = modes
        self.opened = time.monotonic()
        self.sockets = []
        self.stop = threading.Event()
        for n, mode in enumerate(modes):
            source = (addresses[n % len(addresses)], 0)
            s = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_TIMEOUT,
                                         source_address=source)
            if mode == "body":
                s.sendall(http("POST", "/clean", b'{"html": "', length=100000))
            elif mode == "chunked":
                s.sendall(b"POST /perplexity HTTP/1.1\r\nHost: localhost\r\n"
                          b"Transfer-Encoding: chunked\r\n\r\n")
            self.sockets.append(s)
        self.thread = threading.Thread(target=self._trickle, daemon=True)
        self.thread.start()

    def _trickle(self):
        head = b"POST /clean HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 10000
        sent = 0
        # Bounded: stopped by `finish`, and by ANSWER_TIMEOUT whatever happens.
        while not self.stop.wait(TRICKLE_EVERY):
            if time.monotonic() - self.opened > ANSWER_TIMEOUT:
                return
            for mode, s in zip(self.modes, self.sockets):
                byte = {"body": b"a", "chunked": b"1\r\na\r\n", "head": head[sent:sent + 1],
                        "idle": b""}[mode]
                try:
                    s.sendall(byte)
                except OSError:
                    pass  # answered and closed
            sent += 1

    def finish(self, wait_out):
        """Stops trickling and closes the connections; with `wait_out`, first waits until
        their time is up and says which were not answered 408 (bodies) or closed (heads, idle
        connections)."""
        failures = []
        if wait_out:
            # Past both deadlines, with a margin for a busy machine.
            until = self.opened + max(BODY_TIMEOUT, IDLE_TIMEOUT) + 1.5
            time.sleep(max(0.0, until - time.monotonic()))
        self.stop.set()
        self.thread.join()
        for mode, s in zip(self.modes, self.sockets):
            if wait_out:
                failures += self._timed_out(mode, s)
            s.close()
        return failures[:3]

    @staticmethod
    def _timed_out(mode, s):
        """Whether `s` was answered 408 (a body) or closed (anything else) by now."""
        s.settimeout(5.0)
        data = b""
        try:
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            return [f"slow: a trickled {mode} connection still open after its time was up "
                    f"({len(data)} bytes answered)"]
        except OSError:
            pass  # reset: closed
        if mode in ("body", "chunked"):
            if not data.startswith(b"HTTP/1.1 408 "):
                return [f"slow: a trickled {mode} was answered {data[:60]!r}, not 408"]
            try:
                status, headers, body = parse(data)
                if list(json.loads(body)) != ["error"]:
                    return [f"slow: a 408 whose body is not {{\"error\": ...}}: {body[:200]!r}"]
            except (ValueError, TypeError) as e:
                return [f"slow: a bad 408: {e}: {data[:200]!r}"]
        elif data:
            return [f"slow: a trickled {mode} connection was answered {data[:60]!r}"]
        return []


# ---------------------------------------------------------------------------------------------
# Requests


def http(method, path, body, headers=None, length=None):
    """A raw HTTP/1.1 request (Content-Length `length`, the body's own by default)."""
    head = [f"{method} {path} HTTP/1.1", "Host: localhost", "Connection: close"]
    if body is not None:
        head.append("Content-Type: application/json")
        head.append(f"Content-Length: {len(body) if length is None else length}")
    head += headers or []
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + (body or b"")


def pathological_html(rng):
    n = rng.choice([1, 10, 1000, 20000, 100000])
    pieces = [
        lambda: "<p>a</p>" * n,
        lambda: "<div>" * n + "x" + "</div>" * rng.choice([0, n]),
        lambda: "<ul>" + "<li>item" * n,
        lambda: "<p>" + "a. " * n + "</p>",
        lambda: "<p " + "x" * (n * 8) + "=1>t</p>",
        lambda: "<p>" + "w" * (n * 8) + "</p>",
        lambda: "<p>" + "\u6f22\u5b57" * n + "</p>",
        lambda: "<p>\x00a\x00</p>" * n,
        lambda: "<table>" + "<tr><td>c</td>" * n,
        lambda: "<script>" + "<p>x</p>" * n,
        lambda: "<a href=/>" * n,
        lambda: "<h1>" + "&amp;&#0;&#x110000;&bogus;" * n + "</h1>",
        lambda: "<!--" + "-" * n,
        lambda: "<title>" + "t " * n + "</title><p>Body text here.</p>",
        lambda: "".join(rng.choice(["<p>", "</p>", "<br>", "a", " ", "<li>", "<pre>", "\n"])
                        for _ in range(min(n, 20000))),
    ]
    return rng.choice(pieces)()


def hostile_urls(port):
    """URLs the server must refuse without fetching, each with what it must answer: "scheme"
    (400, another scheme), "refused" (400, a loopback, private or otherwise non-public
    address, in one of its many spellings, on the sentinel's port) or "bad" (400 or 502, a
    URL that cannot be asked for). No host name but `localhost`: nothing is resolved elsewhere."""
    p = port
    scheme = ["file:///etc/passwd", "FILE:///etc/passwd", "gopher://127.0.0.1:%d/_x" % p,
              "ftp://127.0.0.1:%d/" % p, "data:text/html,<p>x</p>", "javascript:alert(1)",
              "dict://127.0.0.1:%d/" % p, "ldap://127.0.0.1:%d/" % p, "//127.0.0.1:%d/" % p,
              "127.0.0.1:%d" % p, "", " ", "httpx://127.0.0.1/"]
    refused = [
        "http://127.0.0.1:%d/" % p, "http://localhost:%d/" % p, "http://LOCALHOST:%d/" % p,
        "http://[::1]:%d/" % p, "http://127.1:%d/" % p, "http://0x7f000001:%d/" % p,
        "http://2130706433:%d/" % p, "http://0177.0.0.1:%d/" % p, "http://0:%d/" % p,
        "http://0.0.0.0:%d/" % p, "http://[::]:%d/" % p, "http://127.0.0.1.:%d/" % p,
        "http://[::ffff:127.0.0.1]:%d/" % p, "http://[::ffff:7f00:1]:%d/" % p,
        "http://[0:0:0:0:0:ffff:7f00:1]:%d/" % p, "http://[::127.0.0.1]:%d/" % p,
        "http://[64:ff9b::7f00:1]:%d/" % p, "http://[64:ff9b:1::7f00:1]:%d/" % p,
        "http://[::ffff:0:7f00:1]:%d/" % p, "http://[2002:7f00:1::1]:%d/" % p,
        "http://[2001:0:7f00:1::]:%d/" % p,
        "http://[fc00::1]:%d/" % p, "http://[fe80::1]:%d/" % p, "http://10.0.0.1:%d/" % p,
        "http://192.168.1.1:%d/" % p, "http://172.16.0.1:%d/" % p,
        "http://169.254.169.254/latest/meta-data/", "http://100.64.0.1:%d/" % p,
        "http://[::ffff:a9fe:a9fe]/", "http://224.0.0.1:%d/" % p, "http://255.255.255.255:%d/" % p,
        "http://user:pw@127.0.0.1:%d/" % p, "http://example.invalid@127.0.0.1:%d/" % p,
        "http://127.0.0.1:%d#@localhost/" % p, "http://127.0.0.1:%d/%s" % (p, "a" * 100000),
        "http://localhost:%d/?%s" % (p, "q" * 5000), "https://127.0.0.1:%d/" % p,
        "HtTp://[::1]:%d/" % p,
    ]
    bad = ["http:", "http://", "https://[::1", "http://[fe80::1%%25lo]:%d/" % p,
           "http://127.0.0.1:99999/", "http://\u0000127.0.0.1/", "http://127.0.0.1\t:%d/" % p,
           "http://[::1]:%d\r\n/" % p, "http://[::1]]/", "http://[:::1]/"]
    return ([(u, "scheme") for u in scheme] + [(u, "refused") for u in refused]
            + [(u, "bad") for u in bad])


def random_json(rng, depth=0):
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1e308, -1e308, 2 ** 64, 0.5, 1e-320, 3])
    if kind in (3, 4):
        return rng.choice(["", "x", "\u0000", "\ud7ff\ue000", "a" * rng.choice([1, 1000, 100000]),
                           "<p>hi</p>", "text", "json", "mark", "combined", "perplexity"])
    if kind == 5:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["html", "text", "url", "method", "format", "threshold", "favor", "comments",
            "blocks", "sentence", "sentences", "colour", ""]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(5))}


def generate(rng, port):
    """One hostile request: (kind, raw bytes, what may come back)."""
    kind = rng.choice(["blocks", "clean", "url", "json", "raw-json", "perplexity", "method",
                       "stall", "malformed", "long-path", "slow"])
    # What may come back: statuses, whether the answer must be JSON, whether one is expected.
    expect = {"statuses": {200, 400, 413}, "json": True, "answer": True, "path": "/clean",
              "blocks": False}
    if kind in ("blocks", "clean"):
        request = {"html": pathological_html(rng)}
        if rng.random() < 0.2:
            request = {"text": request["html"]}
        for key, values in [("format", ["text", "markdown", "html", "cleaneval", "mark", "scores", "json"]),
                            ("method", ["combined", "perplexity"]),
                            ("favor", ["precision", "recall", None])]:
            if rng.random() < 0.4:
                request[key] = rng.choice(values)
        if rng.random() < 0.2:
            request["threshold"] = rng.choice([0.0, 1.0, 500.0, 1e30, -5.0])
        if kind == "blocks" or rng.random() < 0.3:
            request["blocks"] = True
            expect["blocks"] = True
        body = json.dumps(request).encode()
        if len(body) > MAX_BODY_BYTES:
            body = body[:MAX_BODY_BYTES]
        raw = http("POST", "/clean", body)
    elif kind == "url":
        url, refusal = rng.choice(hostile_urls(port))
        request = {"url": url}
        if rng.random() < 0.3:
            request["blocks"] = True
        raw = http("POST", "/clean", json.dumps(request).encode())
        # Refused (400), or a URL that cannot even be asked for (502): never fetched.
        expect["statuses"] = {400, 502} if refusal == "bad" else {400}
        expect["error"] = {"scheme": "only http and https URLs are fetched",
                           "refused": "non-public address"}.get(refusal)
    elif kind == "json":
        path = rng.choice(["/clean", "/perplexity"])
        raw = http("POST", path, json.dumps(random_json(rng)).encode())
        expect["path"] = path
    elif kind == "raw-json":
        body = rng.choice([
            b"", b"{", b"{}", b"[]", b"null", b'{"html": "\\ud800"}', b'{"html": "a"} trailing',
            b'{"html": "a", "html": "b"}', b"\xff\xfe{\x00", b'{"text": "\xc3\x28"}',
            b"[" * 10000 + b"]" * 10000, b'{"html": ' + b"[" * 200 + b"]" * 200 + b"}",
            b'{"sentences": [' + b'"",' * 50000 + b'""]}', b'{"threshold": 1e999, "html": "x"}',
            b'{"html": "' + b"\\u0000" * 100000 + b'"}', b'{"blocks": "yes", "html": "x"}',
            b'{"url": ' + json.dumps(rng.choice(hostile_urls(port))[0]).encode() + b', "html": "x"}',
        ])
        path = rng.choice(["/clean", "/perplexity"])
        raw = http("POST", path, body)
        expect["path"] = path
    elif kind == "perplexity":
        request = rng.choice([
            {"sentence": "a" * rng.choice([0, 10, 500000])},
            {"sentences": [""] * rng.choice([0, 1, 100000])},
            {"sentences": ["The cat sat on the mat."] * rng.choice([1, 10000])},
            {"sentence": "\u6f22" * 100000},
        ])
        raw = http("POST", "/perplexity", json.dumps(request).encode())
        expect["path"] = "/perplexity"
    elif kind == "method":
        method, path = rng.choice([("GET", "/clean"), ("PUT", "/clean"), ("DELETE", "/perplexity"),
                                   ("PATCH", "/"), ("POST", "/"), ("GET", "/nowhere"),
                                   ("GET", "/../../etc/passwd"), ("POST", "/clean/"),
                                   ("OPTIONS", "/clean"), ("GET", "/?x=" + "y" * 2000),
                                   ("HEAD", "/"), ("GET", "/")])
        body = b'{"html": "<p>x</p>"}' if method in ("POST", "PUT", "PATCH") else None
        raw = http(method, path, body)
        expect["statuses"] = {200, 404, 405}
        expect["path"] = path
        expect["json"] = path != "/" or method not in ("GET", "HEAD")
        expect["head"] = method == "HEAD"
    elif kind == "stall":
        # A body that stops short of its Content-Length: the answer need not come.
        body = b'{"html": "<p>' + b"a" * rng.randrange(1000) + b"</p>"
        raw = http("POST", rng.choice(["/clean", "/perplexity"]), body,
                   length=len(body) + rng.choice([1, 100, 10 ** 6, 10 ** 15]))
        expect["answer"] = False
        expect["statuses"] = {400, 413}
    elif kind == "malformed":
        raw = rng.choice([
            b"GARBAGE\r\n\r\n", b"POST /clean HTTP/9.9\r\n\r\n", b"\x00\x01\x02\r\n\r\n",
            b"POST /clean HTTP/1.1\r\nContent-Length: -1\r\n\r\n{}",
            b"POST /clean HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
            b"POST /clean HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
            b"POST /clean HTTP/1.1\r\nHost: x\r\n" + b"X-A: " + b"b" * 200000 + b"\r\n\r\n",
            b"POST /clean HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            b"5\r\n{\"htm\r\n3\r\nl\":\r\n5\r\n\"x\"}\n\r\n0\r\n\r\n",
        ])
        # hyper answers what it cannot parse itself, with no JSON.
        expect["json"] = False
        expect["answer"] = False
        expect["statuses"] = {200, 400, 413, 431}
    elif kind == "slow":
        # Connections held a byte at a time, then an ordinary request, which is answered as
        # ever: never 503, never held up.
        addresses = [f"127.0.0.{10 + a}" for a in range(rng.choice([1, 4, 8]))]
        expect["addresses"] = addresses
        n = rng.choice([1, 4, 8, 9, 16, MAX_TRICKLERS]) * len(addresses)
        modes = rng.choice([["body"], ["head"], ["chunked"], ["idle"],
                            ["body", "head", "chunked", "idle"]])
        expect["tricklers"] = [rng.choice(modes) for _ in range(n)]
        expect["hold"] = rng.choice([0.0, 0.5, 1.0])
        expect["wait_out"] = rng.random() < 0.3
        expect["busy_ok"] = False
        path, body, statuses = rng.choice([
            ("/clean", {"html": "<p>The town council voted on Tuesday to approve a plan that "
                                "will restore the banks of the river.</p>"}, {200}),
            ("/clean", {"text": "Hello there.", "blocks": True}, {200}),
            ("/perplexity", {"sentence": "The cat sat on the mat."}, {200}),
            ("/clean", {"url": "file:///etc/passwd"}, {400}),
        ])
        raw = http("POST", path, json.dumps(body).encode())
        expect["path"] = path
        expect["statuses"] = statuses
        expect["blocks"] = body.get("blocks", False)
    else:  # long-path
        path = "/" + rng.choice(["a", "%00", "%2e%2e/", "\u00e9".encode().decode("latin-1")]) * \
            rng.choice([10, 1000, 20000])
        raw = http("GET", path, None)
        expect["statuses"] = {404, 414, 431, 400}
        expect["json"] = False
        expect["answer"] = False
    return kind, raw, expect


# ---------------------------------------------------------------------------------------------
# Answers


def exchange(port, raw, expect):
    """Sends `raw`, returns (status, headers, body) or None when no answer came and none was
    needed."""
    timeout = STALL_SECONDS if not expect["answer"] else ANSWER_TIMEOUT
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_TIMEOUT) as s:
        s.settimeout(timeout)
        try:
            s.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered (and closed) before the whole request was taken
        data = b""
        limit = MAX_ANSWER_BYTES + (1 << 16)
        try:
            while len(data) <= limit:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            if expect["answer"]:
                raise TimeoutError(f"no whole answer within {timeout} s ({len(data)} bytes)")
        except ConnectionResetError:
            if expect["answer"] and not data:
                raise
    if not data:
        if expect["answer"]:
            raise ConnectionError("the connection closed with no answer")
        return None
    return parse(data, expect.get("head", False))


def parse(data, head_only=False):
    """(status, headers, body) of an answer; to a HEAD, the body is empty whatever its
    Content-Length says."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        raise ValueError(f"an answer without an end of head: {data[:200]!r}")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or parts[0] != "HTTP/1.1" or not parts[1].isdigit():
        raise ValueError(f"bad status line {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"bad header line {line!r}")
        headers[name.strip().lower()] = value.strip()
    if head_only:
        body = b""
    elif "content-length" in headers:
        length = int(headers["content-length"])
        if len(body) < length:
            raise ValueError(f"a body of {len(body)} bytes, {length} announced")
        body = body[:length]
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        body = dechunk(body)
    return int(parts[1]), headers, body


def dechunk(body):
    out = b""
    while True:
        size_line, sep, rest = body.partition(b"\r\n")
        if not sep:
            raise ValueError("a chunked answer cut short")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return out
        out += rest[:size]
        body = rest[size + 2:]


def check(kind, expect, status, headers, body):
    failures = []
    if status == 500 or (status >= 500 and status not in (502, 503)):
        failures.append(f"{kind}: status {status}")
    elif status not in expect["statuses"] | ({503} if expect.get("busy_ok", True) else set()):
        failures.append(f"{kind}: status {status}, expected one of {sorted(expect['statuses'])}")
    if len(body) > MAX_ANSWER_BYTES:
        failures.append(f"{kind}: an answer of {len(body)} bytes (--max-answer-bytes "
                        f"{MAX_ANSWER_BYTES})")
    if not expect["json"] or (status == 200 and expect["path"] == "/"):
        return failures
    if status >= 400 or status == 503:
        try:
            answer = json.loads(body)
            message = answer["error"]
            if not isinstance(message, str) or "\n" in message or not message:
                failures.append(f"{kind}: error message not one line: {message!r}"[:500])
            if expect.get("error") and expect["error"] not in message:
                failures.append(f"{kind}: {message!r} does not say {expect['error']!r}"[:500])
            if list(answer) != ["error"]:
                failures.append(f"{kind}: an error with other fields: {list(answer)}")
        except (ValueError, KeyError, TypeError) as e:
            failures.append(f"{kind}: a {status} whose body is not {{\"error\": ...}}: {e}: "
                            f"{body[:200]!r}")
        if "json" not in headers.get("content-type", ""):
            failures.append(f"{kind}: a {status} with Content-Type {headers.get('content-type')}")
        return failures
    if status == 200 and expect["path"] == "/clean":
        try:
            answer = json.loads(body)
        except ValueError as e:
            return failures + [f"{kind}: a 200 that is not JSON: {e}"]
        keys = ["text", "problems"] + (["blocks", "blocks_truncated"] if "blocks" in answer else [])
        if list(answer) != keys:
            failures.append(f"{kind}: answer fields {list(answer)}")
        if not isinstance(answer.get("text"), str):
            failures.append(f"{kind}: text is not a string")
        if "blocks" in answer:
            blocks = answer["blocks"]
            if not isinstance(blocks, list) or len(blocks) > MAX_BLOCKS:
                failures.append(f"{kind}: {len(blocks)} blocks (--max-blocks {MAX_BLOCKS})")
            if not isinstance(answer.get("blocks_truncated"), bool):
                failures.append(f"{kind}: blocks_truncated is {answer.get('blocks_truncated')!r}")
            if len(blocks) == MAX_BLOCKS and answer.get("blocks_truncated") is not True:
                # A list exactly at the bound may be whole: said either way, never wrong.
                pass
        elif expect["blocks"]:
            failures.append(f"{kind}: blocks asked for, none answered")
    return failures


def write_repro(case_dir, binary, kind, request, answer, failures):
    with open(os.path.join(case_dir, "request.bin"), "wb") as f:
        f.write(request)
    if answer is not None:
        status, headers, body = answer
        with open(os.path.join(case_dir, "answer.bin"), "wb") as f:
            f.write(body[:1 << 20])
    send = ("import socket,sys; s=socket.create_connection(('127.0.0.1', int(sys.argv[1]))); "
            "s.sendall(open('request.bin','rb').read()); s.settimeout(30); "
            "print(s.recv(1<<16)[:2000])")
    with open(os.path.join(case_dir, "REPRO.txt"), "w") as f:
        f.write(f"kind: {kind}\n")
        for failure in failures:
            f.write(f"FAILED: {failure}\n")
        f.write("\n# in this directory:\n")
        f.write(f"{shlex.quote(os.path.abspath(binary))} serve --bind 127.0.0.1:8099 "
                f"{' '.join(SERVE_FLAGS)} &\n")
        f.write(f"python3 -c {shlex.quote(send)} 8099\n")
        f.write("# (URLs in the request name the sentinel's port, which nothing else uses.)\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="target/release/ppl-filter")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--seed", default=str(random.randrange(1 << 30)))
    parser.add_argument("--out", default=None, help="where failing cases are kept")
    args = parser.parse_args()
    ok, why = available(args.binary)
    if not ok:
        print(f"skipped: {why}")
        return 0
    out = args.out or tempfile.mkdtemp(prefix="fuzz-serve-")
    target = Target(args.binary, out)
    passed = failed = 0
    deadline = time.monotonic() + args.seconds
    try:
        number = 0
        while time.monotonic() < deadline:
            rng = random.Random(f"{args.seed}/{number}")
            case_dir = os.path.join(out, f"{number}-serve")
            os.makedirs(case_dir, exist_ok=True)
            failures = target.case(rng, number, case_dir)
            if failures:
                failed += 1
                print(f"case {number} (seed {args.seed}) FAILED: {failures}", file=sys.stderr)
            else:
                passed += 1
                os.rmdir(case_dir)
            number += 1
    finally:
        target.close()
    print(f"{passed} passed, {failed} failed (seed {args.seed}, failures under {out})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
