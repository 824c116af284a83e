#!/usr/bin/env python3
"""Fuzz target "outputs" of scripts/fuzz.py: output plans under --output-dir (standard library only).

Each case builds a small random tree (1 to 8 entries: fixture pages as .html, .htm, .txt or
.html.gz, a WARC or JSONL file, a binary blob named .png, an empty file, a FIFO, a symbolic link
to a file, a hard link, a dangling link, a hidden page, in nested directories), picks an output
directory (outside the tree, fresh or holding files, some of them hard or symbolic links to
inputs under an output's name; the tree itself; a directory inside it, existing or not; a path
through `..`; a symbolic link into the tree), inputs (the tree, some of its files, both, a
missing file; FIFOs are never named, they would wait for a writer) and flags (--format json or
plain, -g globs, --hidden, -j1/-j2, -q), and runs `ppl-filter -o OUT INPUTS` under a timeout.

Checks, with every file, link and directory snapshotted before:
  * no hang, panic or signal; exit status 0, 1 or 2; every stderr line a `ppl-filter: ...` one-liner;
  * no input file changed, ever (a file named, reached through a named link, or under a named
    directory), and nothing changed outside the output directory;
  * exit 2 with a refusal ("nothing written"): nothing created or changed anywhere;
  * otherwise: no `.partial` file left; every file written maps to an input (its mirrored name,
    with .txt, .jsonl or its own extension); none for an input that is missing, binary, a FIFO or
    a dangling link (with --format json, a file of records with an "error" field and no "text"
    is allowed: the guide says such an input gives one); binary files and FIFOs found while walking are not mentioned on stderr;
    and running the same command again gives the same exit status, the same stderr and the same
    files byte for byte (WARC dates and record ids aside), so no output was cleaned as an input.

Run alone: python3 scripts/fuzz_outputs.py --binary target/release/ppl-filter --seconds 60 [--seed S]
"""

import gzip
import json
import os
import re
import shlex
import shutil
import stat
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz  # noqa: E402
import fuzz_pipes  # noqa: E402  (running the binary, the checks of one run, main())

NAME = "outputs"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ["", "", "sub", "sub/deep", "other"]
REFUSAL = "nothing written"


def available(binary):
    if not hasattr(os, "mkfifo") or not hasattr(os, "symlink"):
        return False, "no FIFOs or symbolic links on this system"
    return True, ""


class Target:
    def __init__(self, binary, work):
        self.binary = binary
        fixtures = os.path.join(ROOT, "fixtures")
        self.pages = [fuzz.read(p) for p in fuzz.listing(os.path.join(fixtures, "pages"), (".html",))]
        self.blob = fuzz.read(os.path.join(fixtures, "binary.bin"))
        self.warcs = [fuzz.read(os.path.join(fixtures, "warc", n)) for n in ("small.warc", "small.warc.gz")]
        self.jsonl = fuzz.read(os.path.join(fixtures, "jsonl", "pages.jsonl"))

    def close(self):
        pass

    def case(self, rng, number, case_dir):
        top = os.path.join(case_dir, "t")   # everything the run may touch; the run's directory
        os.makedirs(os.path.join(top, "tree"))
        log = []
        entries = self._tree(rng, top, log)
        out, pre = self._output_dir(rng, top, entries, log)
        args = self._inputs(rng, entries, log)
        flags = [rng.choice(["-j1", "-j2"])]
        if rng.random() < 0.5:
            flags.append("-q")
        roll = rng.random()
        if roll < 0.3:
            flags += ["--format", "json"]
        elif roll < 0.4:
            flags += ["--format", "plain"]
        for _ in range(rng.choice([0, 0, 0, 1, 2])):
            flags += ["-g", rng.choice(["*.html", "!*.htm", "*.txt", "sub/**", "!sub", "*.png", "*.warc*", "*.gz"])]
        if rng.random() < 0.2:
            flags.append("--hidden")
        command = [self.binary] + flags + ["-o", out] + args
        shown = "ppl-filter " + " ".join(shlex.quote(c) for c in command[1:])
        log.append(f"output directory {out}" + (f" holding {', '.join(pre)}" if pre else ""))

        before = snapshot(top)
        first = fuzz_pipes._run(command, top)
        after = snapshot(top)
        failures = [f"first run: {f}" for f in fuzz_pipes._check_one(first, "the run")]
        second = None
        if first[0] is not None:
            failures += self._check(top, out, args, flags, entries, before, after, first)
            refused = first[0] == 2 and REFUSAL in first[2].decode("utf-8", "replace")
            if not failures and not refused:
                second = fuzz_pipes._run(command, top)
                again = snapshot(top)
                failures += [f"second run: {f}" for f in fuzz_pipes._check_one(second, "the run")]
                if not failures:
                    if second[0] != first[0]:
                        failures.append(f"second run: exit {second[0]}, the first exited {first[0]}")
                    if second[2] != first[2]:
                        failures.append(f"second run: stderr {second[2][:300]!r}, the first wrote {first[2][:300]!r}")
                    changed = sorted(p for p in set(after) | set(again)
                                     if normalized(p, after.get(p)) != normalized(p, again.get(p)))
                    if changed:
                        failures.append(f"second run: other files than the first run's: {', '.join(changed[:8])}")
        if failures:
            keep(case_dir, number, log, shown, first, second, before, self.binary)
        return failures

    # -----------------------------------------------------------------------------------------

    def _tree(self, rng, top, log):
        """Builds t/tree; returns [(path relative to t, what)]."""
        mode = rng.choice(["html"] * 6 + ["warc", "jsonl"])
        kinds = {"html": ["page"] * 6 + ["blob", "empty", "fifo", "link", "hard", "dangling", "hidden", "record"],
                 "warc": ["warc"] * 4 + ["blob", "fifo", "link", "hard", "dangling"],
                 "jsonl": ["jsonl"] * 4 + ["blob", "fifo", "link", "hard", "dangling"]}[mode]
        entries = []
        for i in range(rng.randint(1, 8)):
            what = rng.choice(kinds)
            stem = rng.choice(["page", "index", "a"]) if rng.random() < 0.15 else f"f{i}"
            d = os.path.join("tree", rng.choice(DIRS))
            os.makedirs(os.path.join(top, d), exist_ok=True)
            files = [e for e in entries if e[1] in ("page", "warc", "jsonl", "blob", "empty", "hidden")]
            if what in ("link", "hard") and not files:
                what = "page" if mode == "html" else mode
            if what == "page":
                name = stem + rng.choice([".html", ".html", ".htm", ".txt", ".html.gz"])
                data = rng.choice(self.pages)
                if name.endswith(".gz"):
                    data = gzip.compress(data, mtime=0)
            elif what == "record" or what in ("warc", "jsonl"):
                if what == "record":
                    what = rng.choice(["warc", "jsonl"])
                if what == "warc":
                    data = rng.choice(self.warcs)
                    name = stem + (".warc.gz" if data[:2] == b"\x1f\x8b" else ".warc")
                else:
                    name, data = stem + ".jsonl", self.jsonl
            elif what == "blob":
                name, data = rng.choice(["logo", "img", stem]) + ".png", self.blob
            elif what == "empty":
                name, data = stem + ".html", b""
            elif what == "hidden":
                name, data = "." + stem + ".html", rng.choice(self.pages)
            else:
                name, data = stem + rng.choice([".html", ".txt"]), None
            path = os.path.join(d, name)
            full = os.path.join(top, path)
            if os.path.lexists(full):
                continue
            if data is not None:
                with open(full, "wb") as f:
                    f.write(data)
            elif what == "fifo":
                os.mkfifo(full)
            elif what == "dangling":
                os.symlink("nowhere.html", full)
            else:
                target = os.path.join(top, rng.choice(files)[0])
                if what == "hard":
                    os.link(target, full)
                else:
                    os.symlink(os.path.relpath(target, os.path.dirname(full)), full)
            entries.append((path, what))
            log.append(f"{path}: {what}")
        return entries

    def _output_dir(self, rng, top, entries, log):
        """An output directory (relative to t), sometimes made beforehand with files in it."""
        choice = rng.choice(["out", "out", "out-with-files", "tree", "tree/sub", "tree/new", "tree/sub/../out2",
                             "tree/../out3", "link", "link-sub"])
        pre = []
        if choice == "out-with-files":
            out = "out"
            os.makedirs(os.path.join(top, out))
            inputs = [e for e in entries if e[1] in ("page", "warc", "jsonl", "empty")]
            for _ in range(rng.randint(1, 3)):
                kind = rng.choice(["junk", "name", "hard", "symlink"] if inputs else ["junk"])
                if kind == "junk":
                    name = rng.choice(["stale.txt", "notes.md", "sub/old.txt"])
                else:
                    path, _ = rng.choice(inputs)
                    base = os.path.basename(path)
                    name = rng.choice([mirror(base, "txt"), mirror(base, "jsonl"), base])
                full = os.path.join(top, out, name)
                if os.path.lexists(full):
                    continue
                os.makedirs(os.path.dirname(full), exist_ok=True)
                if kind in ("junk", "name"):
                    with open(full, "wb") as f:
                        f.write(b"left from before\n")
                elif kind == "hard":
                    os.link(os.path.join(top, path), full)
                else:
                    os.symlink(os.path.join(top, path), full)
                pre.append(f"{name} ({kind}{'' if kind in ('junk', 'name') else ' to ' + path})")
            return out, pre
        if choice == "link":
            os.symlink("tree", os.path.join(top, "link"))
            return "link", pre
        if choice == "link-sub":
            os.symlink(os.path.join("tree", "sub"), os.path.join(top, "link"))
            return "link", pre
        return choice, pre

    def _inputs(self, rng, entries, log):
        files = [p for p, what in entries if what != "fifo"]
        roll = rng.random()
        args = []
        if roll < 0.4 or not files:
            args = ["tree"]
        elif roll < 0.75:
            args = rng.sample(files, rng.randint(1, min(3, len(files))))
        else:
            args = ["tree"] + rng.sample(files, 1)
            rng.shuffle(args)
        if rng.random() < 0.25:
            args.insert(rng.randint(0, len(args)), rng.choice(["tree/missing.html", "nowhere/x.html"]))
        if rng.random() < 0.1 and any(p.startswith("tree/sub/") for p, _ in entries):
            args.append("tree/sub")   # a subdirectory as well as (maybe) its parent
        return args

    # -----------------------------------------------------------------------------------------

    def _cleanable(self, path):
        """A regular file (through links) that is not the binary blob."""
        return os.path.isfile(path) and fuzz.read(path) != self.blob

    def _check(self, top, out, args, flags, entries, before, after, result):
        status, _, stderr, _ = result
        text = stderr.decode("utf-8", "replace")
        failures = []
        real_top = os.path.realpath(top)

        def rel(path):
            return os.path.relpath(os.path.realpath(os.path.join(top, path)), real_top)

        what = {p: w for p, w in entries}

        def resolve(path):
            """`path` with its links followed, in the snapshot taken before the run (None: missing)."""
            path = os.path.normpath(path)
            for _ in range(20):
                entry = before.get(path)
                if entry is None or entry[0] != "link":
                    return path if entry is not None else None
                path = os.path.normpath(os.path.join(os.path.dirname(path), entry[1]))
            return None

        def cleanable(path):
            r = resolve(path)
            return r is not None and before[r][0] == "file" and before[r][1] != self.blob

        # Inputs (classified as things were before the run): regular files named (through links
        # too) and every file under a named directory.
        protected, allowed, bad, good = set(), set(), set(), set()
        walked_quiet = []
        for arg in args:
            r_arg = resolve(arg)
            if r_arg is not None and before[r_arg] == ("dir",):
                for k, entry in before.items():
                    if not k.startswith(r_arg + os.sep) or entry == ("dir",):
                        continue
                    r = k[len(r_arg) + 1:]
                    names_of = outputs_of(r)
                    allowed |= names_of
                    target = resolve(k)
                    if target is not None and before[target][0] == "file":
                        protected.add(target)
                    if cleanable(k):
                        good |= names_of
                    else:
                        bad |= names_of
                        if what.get(k) in ("blob", "fifo"):
                            walked_quiet.append(os.path.join(arg, r))
            else:
                names_of = outputs_of(os.path.basename(arg))
                allowed |= names_of
                if r_arg is not None and before[r_arg][0] == "file":
                    protected.add(r_arg)
                if cleanable(arg):
                    good |= names_of
                else:
                    bad |= names_of
        walked_quiet = [p for p in walked_quiet if p not in args]

        for p in sorted(protected):
            if before.get(p) != after.get(p):
                failures.append(f"the input {p} was changed")
        if status == 2 and REFUSAL in text:
            changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
            if changed:
                failures.append(f"refused (\"{REFUSAL}\") but changed {', '.join(changed[:8])}")
            return failures
        real_out = os.path.relpath(os.path.realpath(os.path.join(top, out)), real_top)
        parts = out.split(os.sep)
        on_the_way = {rel(os.path.join(*parts[:i])) for i in range(1, len(parts) + 1)}
        partial = sorted(p for p in after if ".partial" in os.path.basename(p))
        if partial:
            failures.append(f"left a .partial file: {', '.join(partial)}")
        for p in sorted(set(before) | set(after)):
            if before.get(p) == after.get(p):
                continue
            inside = p == real_out or p.startswith(real_out + os.sep)
            if not inside:
                if after.get(p) == ("dir",) and p in on_the_way:
                    continue   # a directory made on the way to the output directory (as mkdir -p)
                failures.append(f"{p} changed, outside the output directory {out}")
                continue
            if after.get(p) in (None, ("dir",)):
                if after.get(p) is None:
                    failures.append(f"{p} was removed")
                continue
            name = os.path.relpath(p, real_out)
            if name not in allowed:
                failures.append(f"{p} written, but no input maps to the name {name}")
            elif name in bad and name not in good and not only_errors(after[p]):
                failures.append(f"{p} written for an input that is missing, binary, a FIFO or a dangling link")
        for p in walked_quiet:
            for line in text.split("\n"):
                if p in line:
                    failures.append(f"{p}, a binary file or FIFO found while walking, is mentioned: {line[:200]!r}")
                    break
        return failures


def only_errors(entry):
    """A --format json file whose every line is a record with an "error" field and no "text"
    (GUIDE.md: an input that is not cleaned gives such a record, so every input has its line)."""
    lines = entry[1].split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    try:
        records = [json.loads(line) for line in lines]
    except ValueError:
        return False
    return bool(records) and all(isinstance(r, dict) and "error" in r and "text" not in r for r in records)


def mirror(name, extension):
    """ppl_filter::source::output_name: `.gz` dropped, the extension replaced (None: unchanged)."""
    if extension is None:
        return name
    if name.endswith(".gz") and os.path.splitext(os.path.basename(name))[0]:
        name = name[:-3]
    stem, ext = os.path.splitext(name)
    return (stem if ext else name) + "." + extension


def outputs_of(relative):
    return {mirror(relative, e) for e in ("txt", "jsonl", None)}


def snapshot(top):
    """{path relative to top: ("file", bytes) | ("link", target) | ("dir",) | ("other", mode)}."""
    found = {}
    for d, dirs, names in os.walk(top):
        for n in dirs + names:
            full = os.path.join(d, n)
            r = os.path.relpath(full, top)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                found[r] = ("link", os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                found[r] = ("dir",)
            elif stat.S_ISREG(st.st_mode):
                found[r] = ("file", fuzz.read(full))
            else:
                found[r] = ("other", stat.S_IFMT(st.st_mode))
    return found


WARC_VOLATILE = re.compile(rb"^(WARC-Date|WARC-Record-ID): [^\r\n]*", re.M)


def normalized(path, entry):
    """A snapshot entry with WARC output's dates and record ids blanked (they may name the run)."""
    if not entry or entry[0] != "file" or not re.search(r"\.warc(\.gz)?$", path):
        return entry
    data = entry[1]
    if data[:2] == b"\x1f\x8b":
        try:
            data = gunzip_members(data)
        except (OSError, zlib.error, EOFError):
            return entry
    return ("file", WARC_VOLATILE.sub(rb"\1: -", data))


def gunzip_members(data):
    out = []
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out.append(d.decompress(data))
        if not d.eof:
            break
        data = d.unused_data
    return b"".join(out)


def keep(case_dir, number, log, shown, first, second, before, binary):
    for label, result in (("first", first), ("second", second)):
        if result is None:
            continue
        with open(os.path.join(case_dir, f"stderr-{label}.txt"), "wb") as f:
            f.write(result[2][:200_000])
    lines = [f"outputs case {number}", "", "the tree as built (t/ now holds it as the runs left it):"]
    for p, entry in sorted(before.items()):
        desc = {"file": lambda e: f"file, {len(e[1])} bytes", "link": lambda e: f"link to {e[1]}",
                "dir": lambda e: "directory", "other": lambda e: "FIFO"}[entry[0]](entry)
        lines.append(f"  {p}: {desc}")
    lines += ["", "steps:"] + [f"  - {m}" for m in log]
    lines += ["", f"binary: {binary}", "command (run in t/, twice when the first run was not refused):", f"  cd t && {shown}",
              f"  first run: {fuzz.describe_status(first[0])}, {first[3]:.2f} s"]
    if second:
        lines.append(f"  second run: {fuzz.describe_status(second[0])}, {second[3]:.2f} s")
    lines += ["", "rerun the whole case: python3 scripts/fuzz_outputs.py --binary BINARY --seed SEED --case N"]
    with open(os.path.join(case_dir, "REPRO.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1714564800")
    sys.exit(fuzz_pipes.main(sys.modules[__name__]))
