#!/usr/bin/env python3
"""Whether slow clients lock others out of `ppl-filter serve`, and what unfinished bodies hold.

Two attacks on a server started here (default settings, loopback), each printing one figure:

1. *Trickling heads*: 8 client addresses (127.0.0.11-18) x 32 connections each (every
   client's whole share, 256 connections: the server's whole table) send a request head a
   byte every half second and open a new connection as soon as one is closed. Meanwhile
   another client (127.0.0.99) sends `GET /` on a new connection once a second: the share of
   its requests answered is printed (the goal: at least 90 %).
2. *Stalled bodies*: 8 addresses x 32 connections each announce an 8 MiB - 1 byte body, send
   all of it but the last byte and stall. The server's peak resident memory is printed (the
   goal: at most 512 MB), with how many bodies were refused (503) as the memory ran out.

    python3 bench/serve-lockout.py [--binary target/release/ppl-filter] [--seconds 40]
"""

import argparse
import os
import socket
import subprocess
import threading
import time

ADDRESSES = [f"127.0.0.{n}" for n in range(11, 19)]
PER_ADDRESS = 32
VICTIM = "127.0.0.99"
BODY = (8 << 20) - 1


def start(binary):
    server = subprocess.Popen(
        [binary, "serve", "--bind", "127.0.0.1:0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()
    port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
    threading.Thread(target=server.stderr.read, daemon=True).start()
    return server, port


def connect(source, port, timeout=5.0):
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def trickle(source, port, stop):
    """One connection after another, each sending its head a byte every half second."""
    head = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 200
    while not stop.is_set():
        try:
            s = connect(source, port)
            for byte in head:
                if stop.is_set():
                    break
                s.sendall(bytes([byte]))
                time.sleep(0.5)
        except OSError:
            time.sleep(0.05)
        finally:
            try:
                s.close()
            except (OSError, UnboundLocalError):
                pass


def answered(port):
    try:
        s = connect(VICTIM, port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        data = s.recv(64)
        s.close()
        return data.startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def trickling_heads(binary, seconds):
    server, port = start(binary)
    stop = threading.Event()
    threads = [threading.Thread(target=trickle, args=(a, port, stop), daemon=True)
               for a in ADDRESSES for _ in range(PER_ADDRESS)]
    for t in threads:
        t.start()
    time.sleep(3)
    tries = ok = 0
    end = time.time() + seconds
    while time.time() < end:
        tries += 1
        ok += answered(port)
        time.sleep(1)
    stop.set()
    server.terminate()
    server.wait()
    print(f"trickling heads: {len(threads)} connections from {len(ADDRESSES)} addresses; "
          f"another client answered {ok} of {tries} ({100 * ok / max(tries, 1):.0f} %)")


def stall(source, port, refused, held):
    head = (f"POST /clean HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {BODY}\r\n\r\n").encode()
    chunk = b"x" * (1 << 16)
    try:
        s = connect(source, port, timeout=30)
        s.sendall(head)
        left = BODY - 1
        while left > 0:
            n = s.send(chunk[:left])
            left -= n
        held.append(s)
    except OSError:
        refused.append(source)
        return
    try:
        data = s.recv(64)
        if data.startswith(b"HTTP/1.1 503"):
            refused.append(source)
    except OSError:
        pass


def stalled_bodies(binary):
    server, port = start(binary)
    refused, held = [], []
    threads = [threading.Thread(target=stall, args=(a, port, refused, held), daemon=True)
               for a in ADDRESSES for _ in range(PER_ADDRESS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    time.sleep(1)
    peak = peak_rss_mb(server.pid)
    server.terminate()
    server.wait()
    print(f"stalled bodies: {len(threads)} bodies of {BODY} bytes from {len(ADDRESSES)} "
          f"addresses; {len(refused)} refused or closed; server peak RSS {peak:.0f} MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join("target", "release", "ppl-filter"))
    parser.add_argument("--seconds", type=int, default=40)
    args = parser.parse_args()
    trickling_heads(args.binary, args.seconds)
    stalled_bodies(args.binary)


if __name__ == "__main__":
    main()
