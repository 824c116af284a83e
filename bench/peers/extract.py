"""Cleans every page of a directory with the peers, page by page from the raw bytes, with their
default settings, writing OUT_DIR/TOOL/ID.txt (one block per line where the tool has blocks).

    python extract.py INPUT_DIR OUT_DIR [TOOL ...]

TOOL is any of: justext, trafilatura, readability, boilerpy3, resiliparse (default: all).
Pages are ID.html or ID.html.gz (the recent shared sets are gzipped; each is read decompressed).
A page a tool fails on gets an empty file and a line on stderr. Run it in a scratch virtualenv
with the peers installed from PyPI (for example bench/peers/.venv, which bench/run.sh makes for
resiliparse, plus `pip install justext trafilatura readability-lxml boilerpy3`); none of these
packages is a dependency of ppl-filter.
"""
import gzip
import os
import sys
import time


def justext_text(html):
    import justext
    paragraphs = justext.justext(html, justext.get_stoplist("English"))
    return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


def trafilatura_text(html):
    import trafilatura
    return trafilatura.extract(html) or ""


BLOCK_TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "pre", "blockquote", "div", "dd", "dt"}


def block_lines(tree):
    """The text of an lxml tree, one line per innermost block element."""
    lines = []
    for el in tree.iter():
        if el.tag in BLOCK_TAGS and not any(child.tag in BLOCK_TAGS for child in el.iterdescendants()):
            text = " ".join(el.text_content().split())
            if text:
                lines.append(text)
    return "\n".join(lines) if lines else " ".join(tree.text_content().split())


def readability_text(html):
    import lxml.html
    from readability import Document
    return block_lines(lxml.html.fromstring(Document(html).summary(html_partial=True)))


def boilerpy3_text(html):
    import lxml.html
    from boilerpy3 import extractors
    # boilerpy3's own parser chokes on many raw pages: give it the page re-serialised by lxml.
    page = lxml.html.tostring(lxml.html.fromstring(html), encoding="unicode")
    return extractors.ArticleExtractor().get_content(page)


def resiliparse_text(html):
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding
    from resiliparse.parse.html import HTMLTree
    text = bytes_to_str(html, detect_encoding(html))
    return extract_plain_text(HTMLTree.parse(text), main_content=True)


TOOLS = {
    "justext": justext_text,
    "trafilatura": trafilatura_text,
    "readability": readability_text,
    "boilerpy3": boilerpy3_text,
    "resiliparse": resiliparse_text,
}


def main():
    input_dir, out_dir, *tools = sys.argv[1:]
    names = sorted(n for n in os.listdir(input_dir) if n.endswith((".html", ".html.gz")))
    for tool in tools or list(TOOLS):
        extract = TOOLS[tool]
        os.makedirs(os.path.join(out_dir, tool), exist_ok=True)
        start = time.time()
        failed = 0
        for name in names:
            with (gzip.open if name.endswith(".gz") else open)(os.path.join(input_dir, name), "rb") as f:
                html = f.read()
            try:
                text = extract(html)
            except Exception as e:  # a peer's failure on one page is that page's empty output
                print(f"{tool}: {name}: {type(e).__name__}: {e}", file=sys.stderr)
                text, failed = "", failed + 1
            stem = name.removesuffix(".gz").removesuffix(".html")
            with open(os.path.join(out_dir, tool, stem + ".txt"), "w", encoding="utf-8") as f:
                f.write(text)
        print(f"{tool}: {len(names)} pages in {time.time() - start:.1f} s, {failed} failed", file=sys.stderr)


if __name__ == "__main__":
    main()
