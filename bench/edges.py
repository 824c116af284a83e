#!/usr/bin/env python3
"""The network edges' reproducers: each attack on `-u`, `-i`, `serve` and the text paths, run
against the binary on 127.0.0.1, with its time, exit status, stderr and peak memory.

    python3 bench/edges.py [--binary target/release/ppl-filter] [--big]

Prints one row a case and its target, and exits 1 when a target is missed. Every input is
made in a temporary directory (the gzip bomb is about 1 MB, made in a few seconds) and every
server is one this script starts on 127.0.0.1, stopped at the end. Peak memory is GNU time's
(`/usr/bin/time`). `--big` adds the slow cases (a 200 MB title, a 10 MB robots.txt).
"""

import argparse
import gzip
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = (b"<html><head><title>A page</title></head><body><article>"
        b"<p>The storm reached the coast on Friday morning and cut the power to thousands of "
        b"homes, officials said on Saturday.</p></article></body></html>")


def run(args, stdin=None, timeout=600):
    """Runs the binary; returns (rc, stdout, stderr, seconds, peak RSS in MiB). The peak is
    GNU time's (this process's own getrusage of a child counts the memory this script held
    when it started the child, as Linux counts a child's peak from before its exec)."""
    peak = tempfile.NamedTemporaryFile(prefix="ppl-edges-rss-")
    args = ["/usr/bin/time", "-f", "%M", "-o", peak.name] + list(args)
    started = time.monotonic()
    proc = subprocess.Popen(args, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = [], []
    readers = [threading.Thread(target=lambda: out.append(proc.stdout.read())),
               threading.Thread(target=lambda: err.append(proc.stderr.read()))]
    for r in readers:
        r.start()
    if stdin is not None:
        try:
            proc.stdin.write(stdin)
        except BrokenPipeError:
            pass
        proc.stdin.close()
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    seconds = time.monotonic() - started
    for r in readers:
        r.join()
    rc = os.waitstatus_to_exitcode(status)
    lines = open(peak.name).read().split()
    rss = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
    return rc, out[0], err[0].decode("utf-8", "replace"), seconds, rss


class Site:
    """A site on 127.0.0.1 serving `routes` (path -> (status, headers, body)); anything else
    404."""

    def __init__(self, routes):
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                status, headers, body = site.routes.get(self.path, (404, {}, b"no such page"))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.routes = routes
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def whitespace_gzip(size):
    """`size` bytes of spaces, gzip-compressed, made a block at a time."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b" " * (1 << 20)
    parts = [compressor.compress(block) for _ in range(size >> 20)]
    parts.append(compressor.flush())
    return b"".join(parts)


def wildcard_robots(rules):
    letters = "abcdefghijklmnopqrstuvwxyz"
    lines = ["User-agent: *"]
    for i in range(rules):
        word = "".join(letters[(i + k * 7) % 26] for k in range(7))
        lines.append("Disallow: /*" + "*".join(word) + "$")
    return ("\n".join(lines) + "\nAllow: /page.html\n").encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/release/ppl-filter"))
    parser.add_argument("--big", action="store_true", help="add the slow cases")
    options = parser.parse_args()
    binary = options.binary
    rows = []

    def row(case, figure, target, ok):
        rows.append((case, figure, target, ok))
        print("%-52s %-52s %-30s %s" % (case, figure, target, "ok" if ok else "MISSED"), flush=True)

    fetch = [binary, "--fetch-delay", "0", "--fetch-timeout", "30"]
    tmp = tempfile.mkdtemp(prefix="ppl-edges-")

    # 1. A <title> with no `<` in it.
    for mb, limit in [(8, 2.0), (64, 16.0)] + ([(200, 50.0)] if options.big else []):
        page = b"<html><head><title>" + b"word " * (mb * 1_000_000 // 5) + b"</title></head><body><p>x</p></body></html>"
        rc, _, err, seconds, rss = run([binary, "-q"], page)
        row("%d MB <title>" % mb, "%.2f s, rc %d, %.0f MiB" % (seconds, rc, rss),
            "<= %.0f s" % limit, seconds <= limit and rc in (0, 1))

    # 2. A plain-text file of 846 KB with blank lines between paragraphs.
    paragraph = ("The river rose slowly through the night, and by morning the fields along its "
                 "banks were under water. Farmers moved their animals to higher ground. ") * 3
    text = ""
    while len(text) < 846_000:
        text += paragraph.strip() + "\n\n"
    path = os.path.join(tmp, "notes.txt")
    with open(path, "w") as f:
        f.write(text)
    rc, out, err, seconds, rss = run([binary, path])
    kept = len(out)
    said = rc == 1 and bool(err.strip())
    row("846 KB plain-text file", "%d of %d bytes out, rc %d%s" % (kept, len(text), rc, ", cut said" if said else ""),
        "not cut in silence", kept >= 0.9 * len(text) or said)

    # 3. A 1 GB gzip of whitespace served without a header.
    bomb = whitespace_gzip(1 << 30)
    site = Site({"/robots.txt": (404, {}, b""), "/bomb.html": (200, {"Content-Type": "text/html"}, bomb),
                 "/bomb-gz.html": (200, {"Content-Type": "text/html", "Content-Encoding": "gzip"}, bomb),
                 "/page.html": (200, {"Content-Type": "text/html"}, PAGE),
                 "/page2.html": (200, {"Content-Type": "text/html"}, PAGE),
                 "/page3.html": (200, {"Content-Type": "text/html"}, PAGE)})
    for name in ["bomb.html", "bomb-gz.html"]:
        rc, out, err, seconds, rss = run(fetch + ["-u", site.base + "/" + name])
        row("1 GB gzip of spaces (%d KB), %s" % (len(bomb) // 1000, name),
            "%.1f s, rc %d, %.0f MiB, %s" % (seconds, rc, rss, "cut said" if "cut" in err else "nothing said"),
            "<= 30 s, rc 1, cut said", seconds <= 30 and rc == 1 and "cut" in err)

    # 4. `-u … | head -c 1`.
    shell = "%s -u %s/page.html -u %s/page2.html -u %s/page3.html | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}" % (
        " ".join(fetch), site.base, site.base, site.base)
    proc = subprocess.run(["bash", "-c", shell], capture_output=True)
    row("-u … | head -c 1", "rc %d, %d bytes on stderr" % (proc.returncode, len(proc.stderr)),
        "rc 0, nothing on stderr", proc.returncode == 0 and not proc.stderr)

    # 5. Three URLs: a page, a 404, an unreachable host.
    urls = [site.base + "/page.html", site.base + "/gone.html", "http://127.0.0.1:%d/page.html" % free_port()]
    rc, out, err, seconds, rss = run(fetch + ["-f", "json"] + [a for u in urls for a in ("-u", u)])
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    disallowed = sum("disallow" in r.get("error", "") for r in records)
    row("three URLs (ok, 404, unreachable), -f json", "%d records, %d called disallowed, rc %d" % (len(records), disallowed, rc),
        "3 records, none disallowed", len(records) == 3 and disallowed == 0)
    site.close()

    # 6. robots.txt of wildcard rules.
    sizes = [10_000] + ([330_000] if options.big else [])
    for rules in sizes:
        robots = wildcard_robots(rules)
        site = Site({"/robots.txt": (200, {"Content-Type": "text/plain"}, robots),
                     "/page.html": (200, {"Content-Type": "text/html"}, PAGE)})
        rc, out, err, seconds, rss = run(fetch + ["-u", site.base + "/page.html"])
        row("robots.txt of %d wildcard rules (%.1f MB)" % (rules, len(robots) / 1e6),
            "%.0f MiB peak, %.1f s, rc %d" % (rss, seconds, rc), "<= 100 MB", rss <= 100 and rc in (0, 1))
        site.close()

    # 7. `serve` with 8 connections trickling a body.
    port = free_port()
    server = subprocess.Popen([binary, "serve", "--bind", "127.0.0.1", "--port", str(port), "--threads", "2"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        tricklers = []
        for _ in range(8):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /clean HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100000\r\n\r\n{")
            tricklers.append(s)
        time.sleep(0.5)
        body = json.dumps({"html": PAGE.decode()}).encode()
        started = time.monotonic()
        status = "no answer"
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.settimeout(30)
            s.sendall(b"POST /clean HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            answer = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
            status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
        except OSError as e:
            status = "failed: %s" % e
        seconds = time.monotonic() - started
        row("serve: 8 connections trickling a body", "%s in %.2f s" % (status, seconds),
            "normal POST /clean gets 200", " 200 " in status + " ")
        for s in tricklers:
            s.close()
    finally:
        server.terminate()
        server.wait(timeout=10)

    missed = [r for r in rows if not r[3]]
    print("%d of %d targets held" % (len(rows) - len(missed), len(rows)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
