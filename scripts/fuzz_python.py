#!/usr/bin/env python3
"""Fuzz target "python" of scripts/fuzz.py: hostile arguments to the ppl_filter package.

Each case writes one short Python script that calls one public function of the package
(`clean`, `clean_many`, `blocks`, `perplexity`, `Model.load`, `Classifier.load`) with random
arguments, some of them hostile: negative, huge, float, str and None integers; wrong types;
lone surrogates, NUL bytes and huge strings; bytes that are not UTF-8; empty, nested and huge
lists; generators (one that raises midway); objects whose `__str__`, `__index__`, `__float__`,
`__iter__` or `__fspath__` raises; bad paths (missing, empty, a directory, `/dev/zero`, a NUL,
a lone surrogate) and truncated or garbage model and classifier files. The script runs in its
own interpreter (`$PPL_FILTER_PYTHON`, default `python/.venv/bin/python` of this repository,
which `scripts/check-python.sh` makes) under a timeout and an address-space limit.

A case fails when
  * the interpreter dies of a signal, exits with a status other than the script's own (0),
    does not finish within the timeout, or writes anything on stderr (a panic's message);
  * the call raises anything but a `ppl_filter.Error`, a `TypeError` or a `ValueError` that
    is not a `UnicodeError` (an `OverflowError`, a `UnicodeEncodeError`, a `SystemError`,
    pyo3's `PanicException`, a `MemoryError` all fail), except the hostile objects' own
    exception passed through unchanged;
  * a `ppl_filter.Error` has an empty or multi-line message, or, when exactly one argument is
    bad, an `OptionError` or `InputError` message does not name that argument or page;
  * a call whose arguments are all valid raises (an `InputError` is allowed for a page that
    may be refused as binary data), a call with a bad value returns, or a call returns
    something other than what is documented (`str`; a `list` of one `str` per page; a `list`
    of `Block`; a `float`; a `Model`; a `Classifier`).

Run alone: scripts/fuzz_python.py --seconds 60 --seed 1 [--out DIR] [--case N].
"""

import argparse
import json
import os
import random
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

NAME = "python"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Seconds one case's interpreter may run (a typical case takes well under one).
TIMEOUT = 20
# Address space of one case's interpreter (the package, a model, a few 10 MB pages).
MEMORY_BYTES = 3 << 30
# Marks the line on which the case script reports its outcome.
RESULT = "PPL-FUZZ-RESULT "

# The hostile objects and the checks, run inside the case's interpreter before its call.
PRELUDE = r'''
import json, math, os, pathlib, sys
import ppl_filter


class Boom(Exception):
    """Raised by the hostile objects below; a call may let it through unchanged."""


class BadStr:
    def __str__(self):
        raise Boom("__str__")

    __repr__ = __str__


class StrSub(str):
    def __str__(self):
        raise Boom("__str__ of a str subclass")


class BytesSub(bytes):
    pass


class BadIndex:
    def __index__(self):
        raise Boom("__index__")


class HugeIndex:
    def __index__(self):
        return 10 ** 30


class BadFloat:
    def __float__(self):
        raise Boom("__float__")


class BadPath:
    def __fspath__(self):
        raise Boom("__fspath__")


class BadIter:
    def __iter__(self):
        raise Boom("__iter__")


def boom_after(items):
    for item in items:
        yield item
    raise Boom("generator")


def qualname(cls):
    return cls.__module__ + "." + cls.__qualname__


def allowed(error):
    if isinstance(error, (ppl_filter.Error, Boom)):
        return True
    if isinstance(error, UnicodeError):
        return False
    return isinstance(error, (TypeError, ValueError))


RETURNS = {
    "str": lambda r: isinstance(r, str),
    "float": lambda r: isinstance(r, float),
    "list_str": lambda r: isinstance(r, list) and all(isinstance(t, str) for t in r),
    "list_block": lambda r: isinstance(r, list) and all(isinstance(b, ppl_filter.Block) for b in r),
    "model": lambda r: isinstance(r, ppl_filter.Model),
    "classifier": lambda r: isinstance(r, ppl_filter.Classifier),
}


def check(call, expect):
    """Runs the call; the list of what is wrong with its outcome."""
    problems = []
    try:
        result = call()
    except BaseException as error:  # pyo3's PanicException is a BaseException
        name = qualname(type(error))
        message = str(error)
        outcome = "raised %s: %s" % (name, message[:300])
        if not allowed(error):
            problems.append("raised %s (%s)" % (name, message[:300]))
        elif expect["tag"] == "ok":
            problems.append("valid arguments, yet raised %s (%s)" % (name, message[:300]))
        elif expect["tag"] == "refusable" and not isinstance(error, ppl_filter.InputError):
            problems.append("only an InputError may refuse this page, raised %s (%s)"
                            % (name, message[:300]))
        if isinstance(error, ppl_filter.Error):
            if not message.strip() or "\n" in message:
                problems.append("%s message is not one line: %r" % (name, message[:300]))
            names = expect["names"]
            if (names and isinstance(error, (ppl_filter.OptionError, ppl_filter.InputError))
                    and not any(n in message for n in names)):
                problems.append("%s names none of %s: %r" % (name, names, message[:300]))
    else:
        outcome = "returned %s" % type(result).__name__
        if expect["tag"] == "error":
            problems.append("a bad value was accepted: returned %s" % type(result).__name__)
        if not RETURNS[expect["returns"]](result):
            problems.append("returned %r, not %s" % (type(result), expect["returns"]))
        elif expect["count"] is not None and len(result) != expect["count"]:
            problems.append("returned %d texts for %d pages" % (len(result), expect["count"]))
    return outcome, problems


def report(call, expect):
    outcome, problems = check(call, expect)
    sys.stdout.write("\n" + RESULT + json.dumps({"outcome": outcome, "problems": problems}) + "\n")
    sys.stdout.flush()
'''


def python_path():
    """The interpreter with ppl_filter installed: $PPL_FILTER_PYTHON or the repo's venv."""
    return os.environ.get("PPL_FILTER_PYTHON") or os.path.join(ROOT, "python", ".venv", "bin", "python")


def available(binary=None):
    """(True, "") when the interpreter exists and imports ppl_filter, else (False, why)."""
    python = python_path()
    if not os.access(python, os.X_OK):
        return False, "no Python at %s (run scripts/check-python.sh or set PPL_FILTER_PYTHON)" % python
    try:
        run = subprocess.run([python, "-c", "import ppl_filter"], capture_output=True,
                             timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, "%s cannot run: %s" % (python, error)
    if run.returncode != 0:
        last = (run.stderr.decode("utf-8", "replace").strip().splitlines() or ["?"])[-1]
        return False, "%s cannot import ppl_filter: %s" % (python, last)
    return True, ""


def limit_memory():
    """In the case's interpreter, before it starts: bounded address space, no core files."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Arg:
    """One argument: its Python source, and what a call given it must do.

    tag: "ok" (valid), "error" (the call must raise), "refusable" (a page that the call may
    refuse with an InputError), "any" (either outcome). names: words one of which an
    OptionError or InputError about this argument must hold.
    """

    def __init__(self, source, tag="ok", names=()):
        self.source = source
        self.tag = tag
        self.names = list(names)


# ---------------------------------------------------------------------------------------------
# Values


SURROGATES = ["\ud800", "\udbff", "\udc80", "\udfff"]
WORDS = ("the council voted on tuesday to restore old footpath by river and its mayor said "
         "that work would start in spring").split()


def prose(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


class Values:
    """Valid and hostile values for each kind of argument; files shared by every case."""

    def __init__(self, binary, work):
        self.pages = sorted(
            os.path.join(ROOT, "fixtures", "pages", name)
            for name in os.listdir(os.path.join(ROOT, "fixtures", "pages"))
            if name.endswith(".html")
        )
        self.binary_page = os.path.join(ROOT, "fixtures", "binary.bin")
        self.classifier = os.path.join(ROOT, "model", "en-classifier.bin")
        self.model = None
        if binary and os.access(binary, os.X_OK):
            made = subprocess.run([binary, "--generate", "model"], capture_output=True,
                                  timeout=60, check=False)
            if made.returncode == 0 and made.stdout:
                self.model = os.path.join(work, "en.model")
                with open(self.model, "wb") as f:
                    f.write(made.stdout)
        self.bad_files = []
        for name, content in self.damaged(work).items():
            path = os.path.join(work, name)
            with open(path, "wb") as f:
                f.write(content)
            self.bad_files.append(path)
        self.directory = work

    def damaged(self, work):
        """Model and classifier files that cannot be used, by name."""
        files = {"empty.bin": b"", "garbage.bin": bytes(range(256)) * 64,
                 "text.bin": b"hello world\n" * 100}
        with open(self.classifier, "rb") as f:
            classifier = f.read()
        for cut in (10, 100, len(classifier) // 2, len(classifier) - 1):
            files["classifier-%d.bin" % cut] = classifier[:cut]
        files["classifier-flipped.bin"] = classifier[:500] + b"\xff" * 64 + classifier[564:]
        if self.model:
            with open(self.model, "rb") as f:
                model = f.read()
            for cut in (8, 24, 25, len(model) // 3, len(model) - 1):
                files["model-%d.model" % cut] = model[:cut]
            files["model-longer.model"] = model + b"\0" * 100
            files["model-flipped.model"] = model[:40] + b"\xff" * 16 + model[56:]
        return files

    # --- pages ---

    def page(self, rng, lossy):
        """A page for clean/blocks/clean_many. lossy: errors="ignore" (a surrogate is read)."""
        roll = rng.random()
        fixture = repr(rng.choice(self.pages))
        if roll < 0.18:
            return Arg("open(%s, 'rb').read()" % fixture, "refusable")
        if roll < 0.30:
            return Arg("open(%s, 'rb').read().decode('utf-8', 'replace')" % fixture, "refusable")
        if roll < 0.42:
            text = "<p>%s</p>" % prose(rng, rng.randint(1, 40))
            cut = rng.randint(0, len(text))
            text = text[:cut] + rng.choice(SURROGATES) + text[cut:]
            if lossy:
                return Arg(repr(text), "refusable")
            return Arg(repr(text), "error", ["<page>", "document"])
        if roll < 0.50:
            text = "<p>%s</p>" % prose(rng, rng.randint(1, 20))
            cut = rng.randint(0, len(text))
            text = text[:cut] + "\x00" * rng.randint(1, 5) + text[cut:]
            source = repr(text) if rng.random() < 0.5 else repr(text.encode("utf-8"))
            return Arg(source, "refusable")
        if roll < 0.58:
            data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 2000)))
            return Arg(repr(data), "refusable")
        if roll < 0.66:
            return Arg(rng.choice(self.huge_pages()), "refusable")
        if roll < 0.72:
            return Arg(rng.choice(["''", "b''", "' '", "'\\n'", "'<'", "b'\\xef\\xbb\\xbf'"]),
                       "refusable")
        if roll < 0.76:
            return Arg("open(%r, 'rb').read()" % self.binary_page, "refusable")
        if roll < 0.82:
            return Arg(rng.choice([
                "StrSub('<p>%s</p>')" % prose(rng, 12),
                "BytesSub(b'<p>%s</p>')" % prose(rng, 12),
                "'<p>' + '\\U0010ffff\\u0301\\u202e' * 500 + '</p>'",
                "b'\\xff\\xfe' + '<p>%s</p>'.encode('utf-16-le')" % prose(rng, 8),
            ]), "refusable")
        return Arg(rng.choice([
            "bytearray(b'<p>x</p>')", "memoryview(b'<p>x</p>')", "5", "None", "1.5",
            "[b'<p>x</p>']", "BadStr()", "pathlib.Path(%s)" % fixture, "{'html': '<p>x</p>'}",
        ]), "error")

    @staticmethod
    def huge_pages():
        return [
            "'<p>' + 'word ' * 2000000 + '</p>'",
            "b'<p>' + 'caf\\u00e9 '.encode() * 1000000 + b'</p>'",
            "'<div>' * 100000",
            "'<li>' * 70000",
            "'<a href=\"' + 'x' * 9000000 + '\">link</a><p>After the link.</p>'",
            "'<p>' + '\\u4e2d\\u6587' * 1000000",
            "'<!--' * 200000",
            "'&amp;' * 1000000",
            "'<table>' + '<tr><td>cell</td>' * 200000",
        ]

    def pages_iterable(self, rng, lossy):
        """An iterable of pages for clean_many, its tag and the number of pages (if known)."""
        roll = rng.random()
        if roll < 0.55:
            items = [self.page(rng, lossy) for _ in range(rng.choice([0, 1, 1, 2, 3, 5]))]
            items = [a for a in items if a.source not in self.huge_pages()] or items[:1]
            inner = ", ".join(a.source for a in items)
            wrap = rng.choice(["[%s]", "(%s,)", "iter([%s])", "(p for p in [%s])"])
            source = wrap % inner if items else wrap.replace("%s,", "").replace("%s", "")
            tag = worst([a.tag for a in items]) if items else "ok"
            names = [n for a in items for n in a.names]
            return Arg(source, tag, names), len(items)
        if roll < 0.62:
            page = "b'<p>%s</p>'" % prose(rng, 10)
            count = rng.choice([1023, 1024, 1025, 2100])
            return Arg("[%s] * %d" % (page, count)), count
        if roll < 0.68:
            text = "<p>%s</p>" % prose(rng, 5)
            return Arg(repr(text)), len(text)  # a str is an iterable of one-character pages
        if roll < 0.74:
            return Arg("{b'<p>%s</p>': 1}" % prose(rng, 5)), 1
        if roll < 0.82:
            return Arg("boom_after([b'<p>x</p>'] * %d)" % rng.choice([0, 1, 1500]), "error"), None
        return Arg(rng.choice([
            "BadIter()", "None", "5", "[[b'<p>x</p>']]", "b'<p>x</p>'", "[None]",
            "[b'<p>x</p>', 5]", "iter([bytearray(b'x')])",
        ]), "error"), None

    # --- options ---

    @staticmethod
    def word(rng, name, valid, none_ok=True):
        """A str option (method, format, favor, errors): valid, or not. `None` is the default
        for every option but errors (none_ok=False)."""
        if valid:
            sources = [repr(word) for word in valid] + (["None"] if none_ok else [])
            return Arg(rng.choice(sources))
        choice = rng.choice([("None", "error")] * (not none_ok) + [
            ("''", "error"), ("'\\ud800'", "error"), (repr(valid[0] + "\udfff"), "error"),
            (repr(valid[0] + "\x00"), "error"), (repr(valid[0].upper()), "error"),
            ("'x' * 1000000", "error"), ("b%r" % valid[0], "error"),
            ("5", "error"), ("BadStr()", "error"), ("StrSub(%r)" % valid[0], "ok"),
            ("[%r]" % valid[0], "error"),
        ])
        return Arg(choice[0], choice[1], [name])

    @staticmethod
    def threads(rng, valid):
        if valid:
            return Arg(rng.choice(["None", "1", "2", "3", "256", "True"]))
        source = rng.choice([
            "-1", "0", "257", "2 ** 64", "2 ** 63", "-2 ** 63 - 1", "10 ** 30", "-(10 ** 30)",
            "10 ** 5000", "HugeIndex()", "BadIndex()", "2.0", "'4'", "b'4'", "[]", "1j",
            "float('nan')", "False",
        ])
        return Arg(source, "error", ["threads"])

    @staticmethod
    def threshold(rng, valid):
        if valid:
            return Arg(rng.choice(["None", "500", "1e6", "3.5", "%.3f" % rng.uniform(1, 1e5)]))
        source = rng.choice([
            "-1", "0", "0.0", "float('nan')", "float('inf')", "-float('inf')", "1e300",
            "-1e300", "1e-300", "10 ** 400", "-(10 ** 400)", "'5'", "b'5'", "[]", "1j",
            "BadFloat()", "BadStr()",
        ])
        return Arg(source, "error", ["threshold"])

    @staticmethod
    def url(rng, valid):
        if valid:
            return Arg(rng.choice(["None", "'https://example.com/news'", "''", "'\\x00\\n\"'",
                                   "'x' * 100000", "StrSub('https://example.com/')"]))
        source = rng.choice(["'\\ud800'", "'https://example.com/\\udfff'", "5", "b'http://x/'",
                             "BadStr()", "['https://example.com/']"])
        return Arg(source, "error", ["url"])

    @staticmethod
    def comments(rng, valid):
        if valid:
            # None is the option's default, as for every option the library's request reads.
            return Arg(rng.choice(["False", "True", "None"]))
        return Arg(rng.choice(["1", "0", "'yes'", "[]"]), "error", ["comments"])

    def model_arg(self, rng, valid):
        if valid:
            return Arg(rng.choice(["None", "MODEL"] if self.model else ["None"]))
        return Arg(rng.choice(["%r" % (self.model or "/no/such.model"), "5", "CLASSIFIER",
                               "'en'"]), "error", ["model"])

    def classifier_arg(self, rng, valid):
        if valid:
            return Arg(rng.choice(["None", "CLASSIFIER"]))
        return Arg(rng.choice(["%r" % self.classifier, "5", "MODEL" if self.model else "1.5"]),
                   "error", ["classifier"])

    def sentence(self, rng, valid):
        if valid:
            return Arg(rng.choice([repr(prose(rng, rng.randint(1, 30))), "''", "' '",
                                   "'word ' * 200000", "'\\x00'", "'\\U0010ffff' * 100",
                                   "StrSub('The cat sat on the mat.')"]))
        text = prose(rng, rng.randint(1, 10))
        cut = rng.randint(0, len(text))
        choice = rng.choice([
            (repr(text[:cut] + rng.choice(SURROGATES) + text[cut:]), "error", ["<sentence>"]),
            ("b'The cat sat.'", "error", ()), ("None", "error", ()), ("5", "error", ()),
            ("BadStr()", "error", ()), ("['The cat sat.']", "error", ()),
        ])
        return Arg(*choice)

    def path(self, rng, valid, kind):
        """A path for Model.load (kind "model") or Classifier.load (kind "classifier")."""
        good = self.model if kind == "model" else self.classifier
        if valid and good:
            return Arg(rng.choice(["%r" % good, "pathlib.Path(%r)" % good]))
        choices = [
            ("'/no/such/file'", "error", ()), ("''", "error", ()),
            ("'\\ud800'", "error", ["path"]), ("%r + '\\udc80'" % self.directory, "error", ["path"]),
            ("'a\\x00b'", "error", ()), ("%r" % self.directory, "error", ()),
            ("'/dev/null'", "error", ()), ("'/dev/zero'", "error", ()),
            ("'x' * 5000", "error", ()), ("5", "error", ()), ("None", "error", ()),
            ("BadPath()", "error", ()), ("[%r]" % (good or "/x"), "error", ()),
            ("os.fsencode(%r)" % (good or "/x"), "any", ()),
            ("%r" % (self.classifier if kind == "model" else (self.model or "/x")), "error", ()),
        ]
        choices += [("%r" % p, "error", ()) for p in self.bad_files]
        return Arg(*rng.choice(choices))


def worst(tags):
    """The strictest expectation of several arguments' tags."""
    for tag in ("error", "any", "refusable"):
        if tag in tags:
            return tag
    return "ok"


# ---------------------------------------------------------------------------------------------
# Cases


# How often each argument is the bad one (others: 2): the ones converted by the package itself
# most, arguments only PyO3 checks (a bool, a class) least.
BAD_WEIGHTS = {"pages": 5, "threads": 5, "threshold": 4, "comments": 1, "model": 1,
               "classifier": 1}
FUNCTIONS = ("clean", "clean_many", "blocks", "perplexity", "Model.load", "Classifier.load")
FUNCTION_WEIGHTS = (25, 25, 15, 12, 12, 11)


def make_call(values, rng):
    """(source of the call, expectations) for one random call."""
    function = rng.choices(FUNCTIONS, FUNCTION_WEIGHTS)[0]
    # How many arguments are bad: most cases one, some none, a few two.
    bad_count = rng.choices([0, 1, 2], [30, 55, 15])[0]
    if function in ("Model.load", "Classifier.load"):
        kind = "model" if function == "Model.load" else "classifier"
        path = values.path(rng, bad_count == 0, kind)
        returns = kind
        return "ppl_filter.%s(%s)" % (function, path.source), expectation([path], returns, None)
    if function == "perplexity":
        bad = set(rng.sample(["sentence", "model"], min(bad_count, 2)))
        args = [values.sentence(rng, "sentence" not in bad)]
        model = values.model_arg(rng, "model" not in bad)
        keyword = rng.random() < 0.5
        if model.source != "None" or rng.random() < 0.5:
            args.append(Arg(("model=" if keyword else "") + model.source, model.tag, model.names))
        source = "ppl_filter.perplexity(%s)" % ", ".join(a.source for a in args)
        return source, expectation(args, "float", None)

    options = ["method", "threshold", "favor", "comments", "model", "classifier"]
    if function in ("clean", "clean_many"):
        options.append("format")
    if function == "clean":
        options.append("url")
    if function == "clean_many":
        options += ["threads", "errors"]
    bad = set()
    while len(bad) < bad_count:
        candidates = ["pages"] + options
        weights = [BAD_WEIGHTS.get(c, 2) for c in candidates]
        bad.add(rng.choices(candidates, weights)[0])
    # The errors= given (None: left out, or a bad value), and whether it reads what it can.
    errors = None
    if function == "clean_many" and "errors" not in bad:
        errors = rng.choice([None, "strict", "ignore"])
    lossy = errors == "ignore"
    count = None
    if function == "clean_many":
        pages, count = values.pages_iterable(rng, lossy)
        if "pages" not in bad and pages.tag == "error":
            pages, count = Arg("[]"), 0
    else:
        pages = values.page(rng, lossy)
        if "pages" not in bad and pages.tag == "error":
            pages = Arg("b'<p>%s</p>'" % prose(rng, 10), "refusable")
    if "pages" in bad and pages.tag != "error":
        pages = Arg(rng.choice(["None", "5", "[None]" if function == "clean_many" else "[b'x']",
                                "BadStr()"]), "error")
        count = None
    if lossy and pages.tag == "refusable":
        pages.tag = "ok"  # errors="ignore": a refused page gives its text (maybe "")
    args = [pages]
    method = None
    for name in options:
        valid = name not in bad
        if valid and name != "errors" and rng.random() < 0.45:
            continue  # omitted: the default
        if name == "method":
            arg = Values.word(rng, "method", ["combined", "perplexity"] if valid else ["combined"])
            method = arg.source
        elif name == "format":
            arg = Values.word(rng, "format", ["text", "markdown", "html", "cleaneval", "mark", "scores",
                                              "json"] if valid else ["text"])
        elif name == "favor":
            # The default leaning is None or left out.
            arg = Values.word(rng, "favor", ["precision", "recall"] if valid else ["recall"])
        elif name == "errors":
            if valid and errors is None:
                continue
            arg = Arg(repr(errors)) if valid else Values.word(rng, "errors", ["strict"], False)
        elif name == "threads":
            arg = Values.threads(rng, valid)
        elif name == "threshold":
            arg = Values.threshold(rng, valid)
        elif name == "url":
            arg = Values.url(rng, valid)
        elif name == "comments":
            arg = Values.comments(rng, valid)
        elif name == "model":
            arg = values.model_arg(rng, valid)
        else:
            arg = values.classifier_arg(rng, valid)
        args.append(Arg("%s=%s" % (name, arg.source), arg.tag, arg.names))
    if method == "'perplexity'":
        # The perplexity method takes no favor, comments or classifier: leave valid ones out.
        args = [a for a in args if a.tag != "ok" or not a.source.startswith(
            ("favor=", "comments=", "classifier="))]
    returns = {"clean": "str", "clean_many": "list_str", "blocks": "list_block"}[function]
    source = "ppl_filter.%s(%s)" % (function, ", ".join(a.source for a in args))
    return source, expectation(args, returns, count)


def expectation(args, returns, count):
    """What the call must do, from its arguments' tags."""
    tag = worst([a.tag for a in args])
    bad = [a for a in args if a.tag == "error"]
    # Only a single bad argument is sure to be the one a message is about (a page is refused
    # only after the options are checked).
    names = bad[0].names if len(bad) == 1 else []
    return {"tag": tag, "returns": returns, "count": None if tag == "error" else count,
            "names": names}


def script(source, expect):
    """The case's whole script."""
    lines = ["RESULT = %r" % RESULT, PRELUDE]
    if "MODEL" in source:
        lines.append("MODEL = ppl_filter.Model.load(%r)" % MODEL_PATH[0])
    if "CLASSIFIER" in source:
        lines.append("CLASSIFIER = ppl_filter.Classifier.load(%r)"
                     % os.path.join(ROOT, "model", "en-classifier.bin"))
    lines.append("EXPECT = %r" % (expect,))
    lines.append("report(lambda: %s, EXPECT)" % source)
    return "\n".join(lines) + "\n"


# Where MODEL is read from (set by Target).
MODEL_PATH = [None]


class Target:
    """The "python" fuzz target: one interpreter per case, on one random call."""

    def __init__(self, binary, work):
        self.python = python_path()
        self.work = work
        os.makedirs(work, exist_ok=True)
        self.values = Values(binary, work)
        self.last = None  # (call, outcome) of the last case, for --show
        MODEL_PATH[0] = self.values.model

    def case(self, rng, number, case_dir):
        source, expect = make_call(self.values, rng)
        text = script(source, expect)
        path = os.path.join(self.work, "case-%d.py" % number)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
        failures = []
        started = time.monotonic()
        try:
            run = subprocess.run([self.python, path], capture_output=True, timeout=TIMEOUT,
                                 preexec_fn=limit_memory, env=env, cwd=self.work, check=False)
            stdout, stderr, code = run.stdout, run.stderr, run.returncode
        except subprocess.TimeoutExpired as expired:
            stdout, stderr, code = expired.stdout or b"", expired.stderr or b"", None
            failures.append("no answer within %d s (a hang)" % TIMEOUT)
        seconds = time.monotonic() - started
        result = None
        for line in stdout.decode("utf-8", "replace").splitlines():
            if line.startswith(RESULT):
                result = json.loads(line[len(RESULT):])
        if code is not None and code < 0:
            failures.append("killed by signal %s" % signal.Signals(-code).name)
        elif code not in (0, None):
            failures.append("exit status %d" % code)
        said = stderr.decode("utf-8", "replace").strip()
        if said:
            panic = [line for line in said.splitlines() if "panicked at" in line]
            failures.append("stderr: %s" % (said[:300] if not panic else "a panic, %s" % panic[0]))
        if result is None and code is not None:
            failures.append("the script reported no outcome")
        elif result is not None:
            failures += result["problems"]
        os.remove(path)
        self.last = (source, result["outcome"] if result else "no outcome")
        if failures:
            self.keep(case_dir, text, source, failures, stdout, stderr, seconds)
        return failures

    def keep(self, case_dir, text, source, failures, stdout, stderr, seconds):
        os.makedirs(case_dir, exist_ok=True)
        # The model and damaged files the case reads, beside it (the work dir goes at the end).
        for name in os.listdir(self.work):
            path = os.path.join(self.work, name)
            if os.path.isfile(path) and path in text:
                shutil.copyfile(path, os.path.join(case_dir, name))
        text = text.replace(self.work, os.path.abspath(case_dir))
        with open(os.path.join(case_dir, "case.py"), "w", encoding="utf-8") as f:
            f.write(text)
        for name, data in (("stdout", stdout), ("stderr", stderr)):
            with open(os.path.join(case_dir, name), "wb") as f:
                f.write(data[-100000:])
        with open(os.path.join(case_dir, "REPRO.txt"), "w", encoding="utf-8") as f:
            f.write("call: %s\n" % source[:2000])
            f.write("ran %.2f s; failures:\n" % seconds)
            for failure in failures:
                f.write("  - %s\n" % failure)
            f.write("\nreproduce (with the case's limits):\n  cd %s && prlimit --as=%d --core=0 %s case.py\n"
                    % (shlex.quote(os.path.abspath(case_dir)), MEMORY_BYTES,
                       shlex.quote(self.python)))

    def close(self):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "ppl-filter"))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", default=str(random.randrange(1 << 30)))
    parser.add_argument("--case", type=int, help="run only this case of the seed")
    parser.add_argument("--out", help="where failing cases are kept (default: a temp dir)")
    parser.add_argument("--show", action="store_true", help="print every call and its outcome")
    args = parser.parse_args()
    ok, why = available(args.binary)
    if not ok:
        print("skipped: %s" % why)
        return 0
    out = args.out or tempfile.mkdtemp(prefix="fuzz-python-")
    work = tempfile.mkdtemp(prefix="fuzz-python-work-")
    target = Target(args.binary, work)
    passed = failed = 0
    numbers = [args.case] if args.case is not None else None
    deadline = time.monotonic() + args.seconds
    number = 0
    try:
        while True:
            if numbers is not None:
                if not numbers:
                    break
                number = numbers.pop()
            elif time.monotonic() >= deadline:
                break
            rng = random.Random("%s/%d" % (args.seed, number))
            case_dir = os.path.join(out, "%d-python" % number)
            failures = target.case(rng, number, case_dir)
            if args.show and target.last:
                print("%d: %s\n    -> %s" % (number, target.last[0][:300], target.last[1][:200]))
            if failures:
                failed += 1
                print("case %d FAILED (%s): %s" % (number, case_dir, "; ".join(failures)[:400]))
            else:
                passed += 1
            number += 1
    finally:
        target.close()
        shutil.rmtree(work, ignore_errors=True)
    print("seed %s: %d passed, %d failed%s" % (args.seed, passed, failed,
                                                "; failures in %s" % out if failed else ""))
    if not failed and not args.out:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
