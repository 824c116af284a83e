#!/usr/bin/env python3
"""Fuzz target "pipes" of scripts/fuzz.py: inputs that are streams, not files (standard library only).

Each case takes a seed input (a fixture page, fixtures/warc/small.warc(.gz), a fixture JSONL file
or fixtures/binary.bin), sometimes damaged with fuzz.py's byte mutations and sometimes
gzip-compressed, and runs ppl-filter on it twice with the same flags (-j1/-j2, --format
plain/json/markdown, sometimes --input naming the seed's kind, sometimes -q):

  * on a regular file (the reference), named without an extension so only the bytes tell its kind;
  * delivered as a stream, in one of these ways: `-` on standard input from a pipe, `/dev/stdin`
    from a pipe, a named FIFO written by a thread, bash process substitution `<(cat)`. The
    writer trickles the bytes in chunks of random size with tiny sleeps.

Both runs take `--one-document` (a stream is otherwise cut into its pages, where a file is one).
Checks: no hang (timeout), no panic or signal, exit status 0, 1 or 2, every stderr line a
`ppl-filter: ...` one-liner, and the stream run equal to the reference: stdout byte for byte,
the exit status, and stderr, once the input's name (the file's path, `<stdin>`, `/dev/stdin`,
the FIFO's path, `/dev/fd/N`) is replaced by a placeholder in both.

Sometimes the same stream is named twice (`- -`, `/dev/stdin /dev/stdin`, `- /dev/stdin`, the
FIFO's path twice, `/dev/fd/3 /dev/fd/3`): then the outputs legitimately differ, and the checks
are no hang, no panic, exit status 0..2, one-line stderr, and a line naming the second.

Run alone: python3 scripts/fuzz_pipes.py --binary target/release/ppl-filter --seconds 60 [--seed S]
"""

import argparse
import errno
import fcntl
import gzip
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz  # noqa: E402  (the byte mutations; fuzz.py imports this module only when running)

NAME = "pipes"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 10.0          # seconds per run of the binary
MEMORY = 2048 << 20     # address space per run
MAX_BYTES = 2 << 20     # damaged inputs are cut here (the writer trickles them)
PLACEHOLDER = b"@INPUT@"
PANIC = re.compile(rb"panicked at ([^\s:]+:\d+)")
WAYS = ("stdin", "dev-stdin", "fifo", "procsub")


def available(binary):
    if not shutil.which("bash"):
        return False, "bash (process substitution) not found"
    if not hasattr(os, "mkfifo"):
        return False, "no named FIFOs on this system"
    return True, ""


class _Splices:
    """What fuzz.mutate_bytes needs of fuzz.Seeds: any seed's bytes, for splicing."""

    def __init__(self, blobs):
        self.blobs = blobs

    def any_bytes(self, rng):
        return rng.choice(self.blobs)


def _limit_prefix():
    if shutil.which("prlimit"):
        return ["prlimit", f"--as={MEMORY}", "--"]
    return ["bash", "-c", f'ulimit -v {MEMORY >> 10} && exec "$@"', "ulimit"]


class Target:
    def __init__(self, binary, work):
        self.binary, self.work = binary, work
        fixtures = os.path.join(ROOT, "fixtures")
        self.seeds = []   # (name, bytes, kind)
        for path in fuzz.listing(os.path.join(fixtures, "pages"), (".html",)):
            self.seeds.append((os.path.relpath(path, fixtures), fuzz.read(path), "html"))
        for name in ("small.warc", "small.warc.gz"):
            self.seeds.append((f"warc/{name}", fuzz.read(os.path.join(fixtures, "warc", name)), "warc"))
        for path in fuzz.listing(os.path.join(fixtures, "jsonl"), (".jsonl",)):
            self.seeds.append((os.path.relpath(path, fixtures), fuzz.read(path), "jsonl"))
        self.seeds.append(("empty.html", fuzz.read(os.path.join(fixtures, "empty.html")), "html"))
        self.seeds.append(("binary.bin", fuzz.read(os.path.join(fixtures, "binary.bin")), "html"))
        self.splices = _Splices([s[1] for s in self.seeds])

    def close(self):
        pass

    # -----------------------------------------------------------------------------------------

    def case(self, rng, number, case_dir):
        log = []
        name, data, kind = rng.choice(self.seeds)
        log.append(f"seed fixtures/{name} ({len(data)} bytes)")
        if rng.random() < 0.4:
            if data[:2] == b"\x1f\x8b" and rng.random() < 0.7:
                data = gzip.decompress(fuzz.read_gz_prefix(data))
                log.append("seed decompressed")
            tokens = {"html": fuzz.HTML_TOKENS, "warc": fuzz.WARC_TOKENS, "jsonl": fuzz.JSONL_TOKENS}[kind]
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                fuzz.mutate_bytes(rng, b, self.splices, tokens, log)
            data = bytes(b[:MAX_BYTES])
        if data[:2] != b"\x1f\x8b" and rng.random() < 0.2:
            data = gzip.compress(data, mtime=0)
            log.append("gzip-compressed")
        reference = os.path.join(case_dir, "input")
        with open(reference, "wb") as f:
            f.write(data)

        # A stream is cut into its pages where a file is one: read as one document, it must
        # give what the file gives (the cutting has its own tests, tests/streaming.rs).
        flags = [rng.choice(["-j1", "-j2"]), "--one-document"]
        fmt = rng.choice([None, None, "json", "plain", "markdown", "html"])
        if fmt:
            flags += ["--format", fmt]
        if rng.random() < 0.2:
            flags += ["--input", kind]
        if rng.random() < 0.5:
            flags.append("-q")
        way = rng.choice(WAYS)
        twice = rng.random() < 0.15
        chunks = _chunking(random.Random(rng.random()), len(data))
        log.append(f"delivered by {way}{' named twice' if twice else ''}, in {len(chunks)} chunks")

        ref = _run([self.binary] + flags + [reference], case_dir)
        got, names, shown = self._deliver(rng, way, twice, flags, data, chunks, case_dir)
        failures = []
        failures += _check_one(ref, "reference run (regular file)")
        failures += _check_one(got, f"run on {way}")
        if not failures and twice:
            second = "<stdin>" if names[-1] == "-" else names[-1]
            lines = got[2].decode("utf-8", "replace").split("\n")
            if not any(line.startswith("ppl-filter: ") and second in line for line in lines):
                failures.append(f"{shown}: the second naming of the stream ({second}) is not reported on stderr")
        elif not failures:
            r_out, r_err = (x.replace(reference.encode(), PLACEHOLDER) for x in (ref[1], ref[2]))
            g_out, g_err = (_placeholder(x, names) for x in (got[1], got[2]))
            if ref[0] != got[0]:
                failures.append(f"exit status {got[0]} on {way}, {ref[0]} on the regular file")
            if r_out != g_out:
                failures.append(f"stdout differs: {len(g_out)} bytes on {way}, {len(r_out)} on the regular file "
                                f"(first difference at byte {fuzz.first_difference(r_out, g_out)})")
            if r_err != g_err:
                failures.append(f"stderr differs (input names replaced): {g_err[:300]!r} on {way}, "
                                f"{r_err[:300]!r} on the regular file")
        if failures:
            _keep(case_dir, number, log, flags, way, twice, names, shown, ref, got, self.binary)
        return failures

    def _deliver(self, rng, way, twice, flags, data, chunks, case_dir):
        """Runs the binary on `data` delivered `way`; ((status, out, err, s), names, shell line)."""
        b, q = self.binary, shlex.quote
        fl = " ".join(q(f) for f in flags)
        if way in ("stdin", "dev-stdin"):
            first = "-" if way == "stdin" else "/dev/stdin"
            names = [first]
            if twice:
                names.append(rng.choice([first, first, "-" if first != "-" else "/dev/stdin"]))
            shown = f"cat input | ppl-filter {fl} {' '.join(names)}"
            r, w = os.pipe()
            result = _run([b] + flags + names, case_dir, stdin=r, feed=(w, data, chunks))
            return result, names, shown
        if way == "fifo":
            fifo = os.path.join(case_dir, "fifo")
            os.mkfifo(fifo)
            names = [fifo] * (2 if twice else 1)
            shown = f"mkfifo fifo; cat input > fifo & ppl-filter {fl} {' '.join(['fifo'] * len(names))}"
            result = _run([b] + flags + names, case_dir, fifo=(fifo, data, chunks))
            return result, names, shown
        # Process substitution: bash's standard input (our pipe) feeds `cat` in <(cat).
        if twice:
            script = 'exec 3< <(cat); exec "$@" /dev/fd/3 /dev/fd/3 </dev/null'
            names = ["/dev/fd/3", "/dev/fd/3"]
            shown = f"cat input | bash -c 'exec 3< <(cat); exec ppl-filter {fl} /dev/fd/3 /dev/fd/3 </dev/null'"
        else:
            script = 'exec "$@" <(cat) </dev/null'
            names = [re.compile(rb"/dev/fd/\d+")]
            shown = f"ppl-filter {fl} <(cat input)"
        r, w = os.pipe()
        result = _run(["bash", "-c", script, "bash", b] + flags, case_dir, stdin=r, feed=(w, data, chunks))
        return result, names, shown


def _chunking(rng, size):
    """[(chunk size, sleep seconds)] covering `size` bytes: random sizes, a few tiny sleeps."""
    chunks, done, sleeps = [], 0, 0
    while done < size:
        k = rng.choice([rng.randint(1, 16), rng.randint(1, 512), rng.randint(512, 65536), size])
        k = min(k, size - done)
        pause = 0.0
        if sleeps < 40 and rng.random() < 0.15:
            pause = rng.choice([0.0005, 0.002, 0.01])
            sleeps += 1
        if len(chunks) > 2000:   # bound the writes of a big input
            k = size - done
        chunks.append((k, pause))
        done += k
    return chunks


def _write_all(fd, data, chunks, stop):
    at = 0
    try:
        for k, pause in chunks:
            if stop.is_set():
                return
            view = memoryview(data)[at:at + k]
            while view:
                n = os.write(fd, view)
                view = view[n:]
            at += k
            if pause:
                time.sleep(pause)
    except OSError:   # EPIPE: the reader is gone (done, failed or killed)
        pass
    finally:
        os.close(fd)


def _feed_fifo(path, data, chunks, stop, proc):
    """Opens the FIFO for writing once a reader has it open (or gives up), then trickles."""
    while not stop.is_set() and proc.poll() is None:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno in (errno.ENXIO, errno.EINTR):
                time.sleep(0.002)
                continue
            return
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        _write_all(fd, data, chunks, stop)
        return


def _run(command, cwd, stdin=None, feed=None, fifo=None, timeout=TIMEOUT):
    """(exit status or None after `timeout` seconds, stdout, stderr, seconds)."""
    env = dict(os.environ, RUST_BACKTRACE="1", LC_ALL="C")
    started = time.monotonic()
    stop = threading.Event()
    writer = None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(_limit_prefix() + command, cwd=cwd, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                                stdout=out, stderr=err, env=env, start_new_session=True)
        if stdin is not None:
            os.close(stdin)
        if feed:
            writer = threading.Thread(target=_write_all, args=(*feed, stop), daemon=True)
        elif fifo:
            writer = threading.Thread(target=_feed_fifo, args=(*fifo, stop, proc), daemon=True)
        if writer:
            writer.start()
        try:
            status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            status = None
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        stop.set()
        if writer:
            writer.join(5)
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read(), seconds


def _check_one(result, what):
    status, _, stderr, seconds = result
    if status is None:
        return [f"{what}: did not finish within {TIMEOUT:g} s (hang)"]
    panic = PANIC.search(stderr)
    if status == 101 or panic:
        return [f"{what}: panicked (exit {status}) at {panic.group(1).decode(errors='replace') if panic else '?'}"]
    if status < 0 or status >= 128:
        return [f"{what}: killed by signal {-status if status < 0 else status - 128}"]
    if status not in (0, 1, 2):
        return [f"{what}: exit status {status}"]
    lines = stderr.decode("utf-8", "replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    for line in lines:
        if not line.startswith("ppl-filter: "):
            return [f"{what}: stderr line not of the form 'ppl-filter: ...': {line[:200]!r}"]
    if status in (1, 2) and not stderr:
        return [f"{what}: exit {status} with nothing on stderr"]
    return []


def _placeholder(data, names):
    for name in names:
        if isinstance(name, re.Pattern):
            data = name.sub(PLACEHOLDER, data)
        elif name == "-":
            data = data.replace(b"<stdin>", PLACEHOLDER)
        else:
            data = data.replace(name.encode(), PLACEHOLDER)
    return data


def _keep(case_dir, number, log, flags, way, twice, names, shown, ref, got, binary):
    for label, (status, out, err, seconds) in (("reference", ref), (way, got)):
        with open(os.path.join(case_dir, f"stdout-{label}"), "wb") as f:
            f.write(out[:5_000_000])
        with open(os.path.join(case_dir, f"stderr-{label}.txt"), "wb") as f:
            f.write(err[:200_000])
    lines = [f"pipes case {number}", "", "input: ./input (the bytes delivered)", "steps:"]
    lines += [f"  - {m}" for m in log]
    lines += ["", f"binary: {binary}", "reproduce (in this directory; the fuzzer trickled the bytes in random chunks):",
              f"  ppl-filter {' '.join(shlex.quote(f) for f in flags)} input     # reference: "
              f"{fuzz.describe_status(ref[0])}, {ref[3]:.2f} s",
              f"  {shown}     # {fuzz.describe_status(got[0])}, {got[3]:.2f} s",
              "", "rerun the whole case: python3 scripts/fuzz_pipes.py --binary BINARY --seed SEED --case N"]
    with open(os.path.join(case_dir, "REPRO.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main(module=sys.modules[__name__]):
    parser = argparse.ArgumentParser(description=module.__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.environ.get("PPL_FILTER"), required=not os.environ.get("PPL_FILTER"))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", default=os.environ.get("FUZZ_SEED"))
    parser.add_argument("--case", type=int, action="append", help="run only this case number (repeatable)")
    parser.add_argument("--out", default=os.path.join(ROOT, "fuzz-out"), help="where failing cases are kept")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else str(random.SystemRandom().randrange(1 << 32))
    binary = os.path.abspath(args.binary)
    ok, why = module.available(binary) if hasattr(module, "available") else (True, "")
    if not ok:
        print(f"{module.NAME}: skipped: {why}")
        return 0
    print(f"{module.NAME}: seed {seed}; {args.seconds:g} s", flush=True)
    work = tempfile.mkdtemp(prefix=f"ppl-fuzz-{module.NAME}-")
    target = module.Target(binary, work)
    passed = failed = 0
    try:
        deadline = time.monotonic() + args.seconds
        numbers = iter(args.case) if args.case else iter(range(1 << 62))
        for number in numbers:
            if not args.case and time.monotonic() >= deadline:
                break
            case_dir = os.path.join(os.path.abspath(args.out), f"{number:06d}-{module.NAME}")
            shutil.rmtree(case_dir, ignore_errors=True)
            os.makedirs(case_dir)
            failures = target.case(random.Random(f"{seed}/{number}"), number, case_dir)
            if failures:
                failed += 1
                print(f"{module.NAME}: case {number} FAILED: {'; '.join(failures)} -> {case_dir}", flush=True)
            else:
                passed += 1
                shutil.rmtree(case_dir, ignore_errors=True)
    except KeyboardInterrupt:
        print(f"{module.NAME}: interrupted", flush=True)
    finally:
        target.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1714564800")
    sys.exit(main())
