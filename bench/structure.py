#!/usr/bin/env python3
"""bench/structure.py: how well an extractor keeps a page's structure, on shared/data/structure.

Each page has input/NAME.html and expected/NAME.md (a front matter, ```json or `---`, dropped; then
the main content in Markdown). Its output is OUTPUT_DIR/NAME.md, else NAME.html, else NAME.txt (read
as Markdown); a missing one counts as empty. Text is compared normalised: [text](url) -> text,
backticks and * ** _ at word edges dropped, backslash escapes undone, lowercase, spaces collapsed.

  tables    each expected GitHub table: F1 of the multisets of non-empty cells against the best output
            table (GitHub, or HTML <table> in .html or inside .md), and whether that table has the same
            rows (header included) x columns (longest row)
  code      each expected fenced block: the best difflib ratio against the output's fenced blocks
            (<pre> in .html), trailing white space stripped; and the share with a ratio >= 0.9
  formulas  each $$...$$ or $...$ of the expected (not \\$, not in code; as pandoc, no space inside the
            dollars, no digit after the closing one): found if in the output, white space removed
            (so a one-letter formula is found whenever the letter is there)
  headings  each ATX heading outside code: found if the output has a heading (ATX, <h1>-<h6>) of the
            same text, at any level; and the share at the same level
  items     each list item line (-, *, +, N. or N), any indentation) outside code: found if the output
            has an item (same syntax, or <li>) of the same text, or, past 60 characters, one with a
            SequenceMatcher ratio >= 0.9
  text      the page's bag-of-words F1 (lowercased \\w+ tokens) against the expected Markdown's text

Scores are micro means over the instances of all pages (each table, block, formula, heading and
item weighs the same); the text F1 is a mean over pages.

    python3 bench/structure.py OUTPUT_DIR [--data DIR] [--pages LIST] [--per-page] [--json]
    python3 bench/structure.py --run ppl-filter [--out DIR] [--] [ARGS...]
    python3 bench/structure.py --run trafilatura|resiliparse [--out DIR]

--data: default ../shared/data/structure beside the repository. --pages FILE: only the names in
FILE (one a line), for folds. --run ppl-filter: DIR/NAME.md from `$PPL_FILTER -q -f markdown ARGS
INPUT` (default target/release/ppl-filter). --run trafilatura (Markdown, tables and formatting on,
links, images, metadata off) and --run resiliparse (extract_plain_text, main_content=True, NAME.txt)
run inside bench/.venv-structure, a virtualenv made and filled by pip on first use and not
committed (.venv* is ignored); the scorer itself needs only the standard library. DIR: default a
new temporary folder.
"""
import argparse
import difflib
import html
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from html.parser import HTMLParser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "bench", ".venv-structure")
PEERS = {"trafilatura": (["trafilatura==2.0.0", "lxml_html_clean"], ["trafilatura", "lxml_html_clean"]),
         "resiliparse": (["resiliparse"],)}
MEASURES = [("tables.cells_f1", "tables: cells F1"), ("tables.shape", "tables: rows x cols right"),
            ("code.ratio", "code blocks: best ratio"), ("code.ge90", "code blocks: ratio >= 0.9"),
            ("formulas.found", "formulas: found"), ("headings.found", "headings: found"),
            ("headings.level", "headings: same level"), ("items.found", "list items: found"),
            ("text.f1", "page text: bag-of-words F1")]

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
HEADING = re.compile(r"^\s*(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$")
ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(\S.*)$")
RULE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")
QUOTE = re.compile(r"^\s*(?:>\s?)+")
DELIM = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
LINK = re.compile(r"!?\[([^\]]*)\]\((?:[^()\"]|\"[^\"]*\"|\([^()]*\))*\)")
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
URL_TARGET = re.compile(r"\]\((?:https?:|mailto:|www\.|/|#)[^)]*\)")
DISPLAY = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$", re.S)
INLINE = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<=\S)\$(?!\d)")


def norm(text):
    """A cell's, heading's or item's text as compared."""
    text = LINK.sub(r"\1", text).replace("`", "")
    text = re.sub(r"(?<![\w\\])[*_]+|(?<!\\)[*_]+(?!\w)", "", text)
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def words(text):
    return Counter(w for w in (t.strip("_") for t in re.findall(r"\w+", text.lower())) if w)


def f1(expected, got):
    """F1 of two multisets (Counters); 1 when both are empty."""
    total = sum(expected.values()) + sum(got.values())
    return 2 * sum((expected & got).values()) / total if total else 1.0


def code_text(lines):
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def strip_front_matter(text):
    lines = text.split("\n")
    closer = {"```json": "```", "---": "---"}.get(lines[0].strip())
    for i in range(1, len(lines) if closer else 0):
        if lines[i].strip() == closer:
            return "\n".join(lines[i + 1:])
    return text


# ---------------------------------------------------------------- Markdown

def split_code(text):
    """(prose, blocks): the lines, fenced code lines as None; the fenced blocks' texts."""
    prose, blocks, fence, body, indent = [], [], None, [], 0
    for line in text.split("\n"):
        if fence is None:
            m = FENCE.match(line)
            opens = m and not (m.group(2)[0] == "`" and "`" in m.group(3))
            if opens:
                fence, indent, body = m.group(2), len(m.group(1)), []
            prose.append(None if opens else line)
            continue
        prose.append(None)
        mark = line.strip()
        if mark and set(mark) == {fence[0]} and len(mark) >= len(fence):
            blocks.append(code_text(body))
            fence = None
        else:
            body.append(line[min(len(line) - len(line.lstrip(" ")), indent):])
    if fence is not None:
        blocks.append(code_text(body))
    return prose, blocks


def cells(line):
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", row)]


def md_tables(prose):
    """GitHub tables: a row with a pipe, a delimiter row with a pipe, then the rows with pipes."""
    tables, i = [], 0
    while i + 1 < len(prose):
        head, delim = prose[i], prose[i + 1]
        if head and delim and "|" in head and "|" in delim and DELIM.match(delim):
            rows, i = [cells(head)], i + 2
            while i < len(prose) and prose[i] and prose[i].strip() and "|" in prose[i]:
                rows.append(cells(prose[i]))
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


def md_headings_items(prose):
    headings, items = [], []
    for line in (QUOTE.sub("", line) for line in prose if line is not None):
        heading, item = HEADING.match(line), ITEM.match(line)
        if heading and heading.group(2):
            headings.append((len(heading.group(1)), norm(heading.group(2))))
        elif item and not RULE.match(line):
            items.append(norm(item.group(1)))
    return headings, items


def formulas(prose):
    """The TeX (white space removed) of the $$...$$ and $...$ formulas outside code."""
    text = "\n".join("" if line is None else line for line in prose)
    text = URL_TARGET.sub("]", CODE_SPAN.sub(" ", text))
    found = [m.group(1) for m in DISPLAY.finditer(text)]
    found += [m.group(1) for m in INLINE.finditer(DISPLAY.sub(" ", text))]
    return [tex for tex in (re.sub(r"\s+", "", f) for f in found) if tex]


def parse_markdown(text):
    prose, blocks = split_code(text)
    headings, items = md_headings_items(prose)
    tables = md_tables(prose)
    for fragment in re.findall(r"<table\b.*?</table>", text, re.S | re.I):
        tables += parse_html(fragment)["tables"]
    words_text = LINK.sub(r"\1", "\n".join(line for line in prose if line is not None))
    words_text = re.sub(r"</?[a-zA-Z][^>\n]*>", " ", words_text) + "\n" + "\n".join(blocks)
    return {"tables": tables, "code": blocks, "headings": headings, "items": items,
            "text": words_text, "flat": re.sub(r"\s+", "", text), "prose": prose}


# ---------------------------------------------------------------- HTML

class HtmlDoc(HTMLParser):
    """Tables (<tr>, <td>/<th>), <pre>, <h1>-<h6>, <li> (its text before any sublist) and text.

    An open capture is [tag, text parts, depth (of tables for cells, of lists for items), live]."""
    BLOCKS = {"p", "div", "br", "li", "tr", "td", "th", "ul", "ol", "table", "pre", "blockquote",
              "section", "article", "header", "footer", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6"}
    HIDDEN = {"script", "style", "template"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.pre, self.headings, self.items, self.text = [], [], [], [], []
        self.open, self.stack, self.lists, self.skip = [], [], 0, 0

    def cell_here(self, capture):
        return capture[0] in ("td", "th") and capture[2] == len(self.stack)

    def handle_starttag(self, tag, attrs):
        self.skip += tag in self.HIDDEN
        if tag in self.BLOCKS:
            self.handle_data("\n")
        if tag == "table":
            self.stack.append([])
        elif tag in ("tr", "td", "th") and self.stack:
            self.finish(self.cell_here)
            if tag == "tr":
                self.stack[-1].append([])
            else:
                self.open.append([tag, [], len(self.stack), True])
        elif tag in ("ul", "ol"):
            self.lists += 1
            for capture in self.open:
                capture[3] = capture[3] and capture[0] != "li"
        elif tag == "li":
            self.finish(lambda c: c[0] == "li" and c[2] == self.lists)
            self.open.append([tag, [], self.lists, True])
        elif tag == "pre" or re.fullmatch(r"h[1-6]", tag):
            self.open.append([tag, [], 0, True])

    def handle_endtag(self, tag):
        if tag in self.HIDDEN:
            self.skip = max(0, self.skip - 1)
        if tag in self.BLOCKS:
            self.handle_data("\n")
        if tag == "table" and self.stack:
            self.finish(self.cell_here)
            rows = [row for row in self.stack.pop() if row]
            if rows:
                self.tables.append(rows)
        elif tag in ("ul", "ol"):
            self.finish(lambda c: c[0] == "li" and c[2] == self.lists)
            self.lists = max(0, self.lists - 1)
        elif any(c[0] == tag for c in self.open):
            self.finish(lambda c: c[0] == tag)

    def finish(self, match):
        """Ends the innermost open capture that matches, and those opened inside it."""
        at = next((i for i in range(len(self.open) - 1, -1, -1) if match(self.open[i])), None)
        while at is not None and len(self.open) > at:
            tag, parts = self.open.pop()[:2]
            text = "".join(parts)
            if tag in ("td", "th") and self.stack:
                if not self.stack[-1]:
                    self.stack[-1].append([])
                self.stack[-1][-1].append(text.strip())
            elif tag == "li":
                self.items.append(norm(text))
            elif tag == "pre":
                self.pre.append(code_text(text.split("\n")))
            elif tag[0] == "h":
                self.headings.append((int(tag[1]), norm(text)))

    def handle_data(self, data):
        if not self.skip:
            self.text.append(data)
            for capture in self.open:
                if capture[3]:
                    capture[1].append(data)


def parse_html(text):
    doc = HtmlDoc()
    doc.feed(text)
    doc.close()
    while doc.open:
        doc.finish(lambda c: True)
    return {"tables": doc.tables, "code": doc.pre, "headings": doc.headings, "items": doc.items,
            "text": "".join(doc.text), "flat": re.sub(r"\s+", "", html.unescape(text))}


def read_output(out_dir, name):
    for ext in (".md", ".html", ".txt"):
        path = os.path.join(out_dir, name + ext)
        if os.path.exists(path):
            text = open(path, encoding="utf-8", errors="replace").read()
            return parse_html(text) if ext == ".html" else parse_markdown(strip_front_matter(text))
    return parse_markdown("")


def read_expected(data, name):
    text = open(os.path.join(data, "expected", name + ".md"), encoding="utf-8").read()
    expected = parse_markdown(strip_front_matter(text))
    expected["formulas"] = formulas(expected["prose"])
    return expected


# ---------------------------------------------------------------- scoring

def best_ratio(target, candidates, floor=0.0):
    """The best SequenceMatcher ratio of target against candidates (0 if none)."""
    best = 0.0
    for candidate in candidates:
        matcher = difflib.SequenceMatcher(None, target, candidate, autojunk=False)
        for bound in (matcher.real_quick_ratio, matcher.quick_ratio, matcher.ratio):
            value = bound()
            if value < floor or value <= best:
                break
        else:
            best = value
    return best


def cells_shape(table):
    """A table's multiset of normalised non-empty cells, and its rows x columns."""
    cells = Counter(c for c in (norm(cell) for row in table for cell in row) if c)
    return cells, (len(table), max((len(row) for row in table), default=0))


def score_tables(expected, output):
    """Per expected table: the cells F1 of the best output table, and 1 if its shape is the same."""
    out, f1s, shapes = [cells_shape(t) for t in output], [], []
    for want, shape in map(cells_shape, expected):
        best = max(((f1(want, got), size) for got, size in out), key=lambda s: s[0], default=(0.0, None))
        f1s.append(best[0])
        shapes.append(float(best[1] == shape))
    return f1s, shapes


def score_page(exp, out):
    f1s, shapes = score_tables(exp["tables"], out["tables"])
    ratios = [best_ratio(block, out["code"]) for block in exp["code"]]
    titles, items = {text for _, text in out["headings"]}, set(out["items"])

    def item_found(item):
        return item in items or (len(item) > 60 and best_ratio(item, out["items"], 0.9) >= 0.9)

    return {"tables.cells_f1": f1s, "tables.shape": shapes,
            "code.ratio": ratios, "code.ge90": [float(r >= 0.9) for r in ratios],
            "formulas.found": [float(tex in out["flat"]) for tex in exp["formulas"]],
            "headings.found": [float(text in titles) for _, text in exp["headings"]],
            "headings.level": [float(h in out["headings"]) for h in exp["headings"]],
            "items.found": [float(item_found(item)) for item in exp["items"]],
            "text.f1": [f1(words(exp["text"]), words(out["text"]))]}


def mean(values):
    return sum(values) / len(values) if values else None


def fmt(values):
    return "-" if not values else "%.3f" % mean(values)


def report(out_dir, per_page, as_json, with_pages, extra):
    totals = {key: [v for page in per_page.values() for v in page[key]] for key, _ in MEASURES}
    if as_json:
        figures = {"output": out_dir, "pages": len(per_page), **extra,
                   "mean": "micro: over all the instances of all pages (text.f1: over pages)",
                   "measures": {key: {"label": label, "instances": len(totals[key]),
                                      "score": mean(totals[key])} for key, label in MEASURES}}
        if with_pages:
            figures["per_page"] = {name: {key: {"instances": len(v), "score": mean(v)} for key, v in page.items()}
                                   for name, page in per_page.items()}
        return print(json.dumps(figures, indent=2))
    print("structure: %d pages, output %s" % (len(per_page), out_dir))
    print("scores: micro means over all the instances of all pages (page text F1: over pages)\n")
    print("%-30s %9s  %s" % ("measure", "instances", "score"))
    for key, label in MEASURES:
        print("%-30s %9d  %s" % (label, len(totals[key]), fmt(totals[key])))
    if with_pages:
        heads = ["tab.f1", "tab.shape", "code", "code>=.9", "formulas", "headings", "head.level", "items", "text"]
        print("\nper page, score/instances:\n" + " ".join("%-11s" % h for h in heads) + " page")
        for name, page in per_page.items():
            row = ("%s/%d" % (fmt(page[k]), len(page[k])) if page[k] else "-" for k, _ in MEASURES)
            print(" ".join("%-11s" % c for c in row) + " " + name)


# ---------------------------------------------------------------- producing outputs

def run_ppl_filter(data, out_dir, names, args):
    binary = os.environ.get("PPL_FILTER", "target/release/ppl-filter")
    binary = binary if os.path.isabs(binary) else os.path.join(ROOT, binary)
    for name in names:
        page = os.path.join(data, "input", name + ".html")
        done = subprocess.run([binary, "-q", "-f", "markdown", *args, page], capture_output=True)
        if done.returncode:
            print("ppl-filter failed on %s: %s" % (name, done.stderr.decode(errors="replace").strip()),
                  file=sys.stderr)
        with open(os.path.join(out_dir, name + ".md"), "wb") as f:
            f.write(done.stdout)


def venv_python(tool):
    """bench/.venv-structure's python, with tool installed (the virtualenv is made on first use)."""
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    module = "resiliparse.extract.html2text" if tool == "resiliparse" else tool
    if subprocess.run([python, "-c", "import " + module], capture_output=True).returncode:
        if not any(subprocess.run([python, "-m", "pip", "install", "-q", *packages]).returncode == 0
                   for packages in PEERS[tool]):
            sys.exit("could not install %s into %s" % (tool, VENV))
    return python


def extract_pages(tool, data, out_dir, names):
    """(Run inside the virtualenv.) Extracts each page with trafilatura or resiliparse."""
    from importlib.metadata import version
    if tool == "trafilatura":
        import inspect
        import trafilatura
        wanted = dict(output_format="markdown", include_tables=True, include_formatting=True,
                      include_links=False, include_images=False, with_metadata=False)
        params = inspect.signature(trafilatura.extract).parameters
        options = {k: v for k, v in wanted.items() if k in params}
        extract, ext = (lambda page: trafilatura.extract(page, **options)), ".md"
    else:
        from resiliparse.extract.html2text import extract_plain_text
        extract, ext = (lambda page: extract_plain_text(page, main_content=True)), ".txt"
    print("%s %s" % (tool, version(tool)), file=sys.stderr)
    for name in names:
        page = open(os.path.join(data, "input", name + ".html"), "rb").read().decode("utf-8", "replace")
        with open(os.path.join(out_dir, name + ext), "w", encoding="utf-8") as f:
            f.write(extract(page) or "")


def produce(tool, data, out_dir, names, args):
    """Writes the outputs of tool into out_dir; returns the seconds the extraction took."""
    python = None if tool == "ppl-filter" else venv_python(tool)
    start = time.monotonic()
    if python:
        subprocess.run([python, os.path.abspath(__file__), "--_extract", tool, "--data", data,
                        "--out", out_dir], input="\n".join(names), text=True, check=True)
    else:
        run_ppl_filter(data, out_dir, names, args)
    return time.monotonic() - start


# ---------------------------------------------------------------- command line

def parser(running):
    p = argparse.ArgumentParser(description=__doc__, allow_abbrev=False,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    if not running:
        p.add_argument("output_dir", nargs="?", help="folder of NAME.md / NAME.html / NAME.txt")
    p.add_argument("--data", default=os.path.join(os.path.dirname(ROOT), "shared", "data", "structure"))
    p.add_argument("--pages", help="score only the page names listed in this file")
    p.add_argument("--per-page", action="store_true", help="add a line per page")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--run", choices=["ppl-filter", "trafilatura", "resiliparse"],
                   help="produce the outputs first (arguments left over go to ppl-filter)")
    p.add_argument("--out", help="with --run: the folder for the outputs (default: a temporary one)")
    p.add_argument("--_extract", help=argparse.SUPPRESS)
    return p


def page_names(data, pages_file):
    names = sorted(f[:-5] for f in os.listdir(os.path.join(data, "input")) if f.endswith(".html"))
    if not pages_file:
        return names
    wanted = {line.strip() for line in open(pages_file) if line.strip()}
    if wanted - set(names):
        sys.exit("not in %s: %s" % (data, ", ".join(sorted(wanted - set(names)))))
    return [name for name in names if name in wanted]


def main(argv):
    running = any(a.split("=")[0] in ("--run", "--_extract") for a in argv)
    args, rest = parser(running).parse_known_args(argv)
    rest = rest[1:] if rest[:1] == ["--"] else rest
    if args._extract:
        return extract_pages(args._extract, args.data, args.out, sys.stdin.read().split())
    if rest and args.run != "ppl-filter":
        parser(running).error("unrecognised arguments: " + " ".join(rest))
    names, extra, out_dir = page_names(args.data, args.pages), {}, args.out or getattr(args, "output_dir", None)
    if not (args.run or out_dir):
        parser(running).error("give OUTPUT_DIR or --run")
    if args.run:
        out_dir = out_dir or tempfile.mkdtemp(prefix="structure-%s-" % args.run)
        os.makedirs(out_dir, exist_ok=True)
        seconds = produce(args.run, args.data, out_dir, names, rest)
        extra = {"run": args.run, "run_args": rest, "extract_seconds": round(seconds, 2)}
        print("%s: %d pages in %.1f s into %s" % (args.run, len(names), seconds, out_dir), file=sys.stderr)
    per_page = {name: score_page(read_expected(args.data, name), read_output(out_dir, name)) for name in names}
    report(out_dir, per_page, args.json, args.per_page, extra)


if __name__ == "__main__":
    main(sys.argv[1:])
