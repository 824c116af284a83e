#!/usr/bin/env python3
"""bench/threads.py — how a process's CPU time is shared among its threads.

Runs COMMAND (its output thrown away), samples /proc/PID/task/*/stat every 10 ms, and prints
one JSON object: the wall time in seconds, the process's CPU ticks (user + system) and each
thread's name and ticks as last seen, busiest first. A thread's share of the process's CPU
time says how far the process could scale: a thread holding 46 % caps it at about 2.2 cores
whatever the core count (Amdahl), on a machine of any size.

Usage: bench/threads.py [--stdin FILE] COMMAND [ARG...]
"""
import json
import os
import subprocess
import sys
import time


def sample(pid, last):
    """Each live thread's name and CPU ticks, into `last` (by thread id)."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        last[tid] = (name, int(fields[11]) + int(fields[12]))


def main():
    args = sys.argv[1:]
    stdin = None
    if args[:1] == ["--stdin"] and len(args) > 1:
        stdin = open(args[1], "rb")
        args = args[2:]
    if not args:
        sys.exit("usage: bench/threads.py [--stdin FILE] COMMAND [ARG...]")
    started = time.monotonic()
    process = subprocess.Popen(
        args, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    last = {}
    while process.poll() is None:
        sample(process.pid, last)
        time.sleep(0.01)
    wall = time.monotonic() - started
    threads = sorted(last.values(), key=lambda t: -t[1])
    print(json.dumps({
        "status": process.returncode,
        "wall_s": round(wall, 3),
        "ticks": sum(t for _, t in threads),
        "threads": [{"name": n, "ticks": t} for n, t in threads],
    }))


if __name__ == "__main__":
    main()
