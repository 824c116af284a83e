"""The datatrove extractor: a real datatrove pipeline (a WARC reader, ``PplFilter``, a JSONL
writer, two tasks) over WARC files of the fixture pages gives each page the text and the
metadata the command line gives it. Skipped when datatrove is not installed
(``scripts/check-python.sh`` installs it)."""

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

datatrove = pytest.importorskip("datatrove")
warcio = pytest.importorskip("warcio")

from datatrove.executor import LocalPipelineExecutor  # noqa: E402
from datatrove.pipeline.readers import WarcReader  # noqa: E402
from datatrove.pipeline.writers import JsonlWriter  # noqa: E402
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

import ppl_filter  # noqa: E402
from ppl_filter.datatrove import PplFilter  # noqa: E402

from test_ppl_filter import BIN, ROOT  # noqa: E402

FIXTURES = ROOT / "fixtures" / "pages"
PAGES = sorted(FIXTURES.glob("*.html")) + sorted((FIXTURES / "languages").glob("*.html"))


def write_warc(path: Path, pages):
    """A gzipped WARC of one HTML response a page, at https://example.test/NAME."""
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        for page in pages:
            body = page.read_bytes()
            http = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1"
            )
            record = writer.create_warc_record(
                f"https://example.test/{page.name}",
                "response",
                payload=io.BytesIO(body),
                http_headers=http,
                warc_headers_dict={"WARC-Identified-Payload-Type": "text/html"},
            )
            writer.write_record(record)


def test_the_extractor_is_a_datatrove_extractor_and_importing_ppl_filter_needs_no_datatrove():
    from datatrove.pipeline.extractors.base import BaseExtractor

    assert issubclass(PplFilter, BaseExtractor)
    assert PplFilter(timeout=3).timeout == 3
    code = "import sys, ppl_filter; sys.exit('datatrove' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
    with pytest.raises(ppl_filter.OptionError):
        PplFilter(favor="nonsense")


def test_a_pipeline_gives_each_page_the_text_and_metadata_of_the_command_line(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    # Two files, so that each of the two tasks has one.
    utf8 = [p for p in PAGES if p.name not in ("latin1.html", "utf16.html", "bad-utf8.html")]
    # A page that gives its own date, which the crawl date must not hide.
    dated = tmp_path / "dated.html"
    dated.write_bytes(
        (FIXTURES / "news.html").read_bytes().replace(
            b"<head>",
            b'<head><meta property="article:published_time" content="2024-05-03T10:00:00Z">',
            1,
        )
    )
    utf8.append(dated)
    write_warc(crawl / "a.warc.gz", utf8[: len(utf8) // 2])
    write_warc(crawl / "b.warc.gz", utf8[len(utf8) // 2 :])
    out = tmp_path / "out"
    LocalPipelineExecutor(
        pipeline=[
            WarcReader(str(crawl), glob_pattern="*.warc.gz"),
            PplFilter(timeout=30),
            JsonlWriter(str(out)),
        ],
        tasks=2,
        logging_dir=str(tmp_path / "logs"),
    ).run()
    documents = {}
    for part in sorted(out.glob("*.jsonl.gz")):
        with gzip.open(part, "rt", encoding="utf-8") as lines:
            for line in lines:
                document = json.loads(line)
                documents[document["metadata"]["url"]] = document
    cli = subprocess.run(
        [str(BIN), "-q", "--format", "json", str(crawl / "a.warc.gz"), str(crawl / "b.warc.gz")],
        capture_output=True,
        check=True,
    )
    records = [json.loads(line) for line in cli.stdout.decode().splitlines()]
    kept = [r for r in records if r["text"]]
    assert len(kept) >= 6
    assert sorted(documents) == sorted(r["url"] for r in kept)
    for record in kept:
        document = documents[record["url"]]
        assert document["text"] == record["text"], record["url"]
        metadata = document["metadata"]
        assert metadata["kind"] == record["kind"]
        assert metadata.get("lang") == record["lang"]
        # The language as datatrove's LanguageFilter names it, beside ours.
        two_letter = record["lang"] and ppl_filter.language_code(record["lang"])
        assert metadata.get("language") == two_letter
        assert metadata.get("title") == record["title"]
        # What the reader set is kept (the crawl date), and the page's own date beside it.
        assert metadata["url"] == record["url"] and "date" in metadata
        assert metadata.get("date_published") == record["date"]
    languages = {document["metadata"].get("language") for document in documents.values()}
    assert {"en", "de", "fr", "ja"} <= languages, languages
    assert documents["https://example.test/dated.html"]["metadata"]["date_published"] == (
        "2024-05-03T10:00:00Z"
    )


def test_a_refused_document_is_dropped_and_counted_and_the_run_goes_on():
    from datatrove.data import Document

    step = PplFilter(timeout=30)
    docs = [
        Document(text="\x00\x01\x02 binary " * 50, id="binary"),
        Document(text=(FIXTURES / "news.html").read_text(encoding="utf-8"), id="news"),
    ]
    kept = list(step.run(iter(docs)))
    assert [doc.id for doc in kept] == ["news"]
    assert step.stats["refused"].total == 1
    assert step.stats["forwarded"].total == 1


def test_the_example_pipeline_writes_a_document_a_page(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    pages = [FIXTURES / name for name in ("news.html", "entities.html", "cleaneval-wrapper.html")]
    write_warc(crawl / "pages.warc.gz", pages)
    out = tmp_path / "clean"
    example = ROOT / "examples" / "datatrove_pipeline.py"
    subprocess.run([sys.executable, str(example), str(crawl), str(out)], check=True, capture_output=True)
    documents = []
    for part in out.glob("*.jsonl.gz"):
        with gzip.open(part, "rt", encoding="utf-8") as lines:
            documents.extend(json.loads(line) for line in lines)
    assert sorted(d["metadata"]["url"] for d in documents) == sorted(
        f"https://example.test/{page.name}" for page in pages
    )


def test_the_extractor_takes_every_option_by_its_keyword():
    page = (FIXTURES / "news.html").read_text()
    for options in [{"bias": -3.0}, {"threshold": 1e9, "method": "perplexity"}, {"kind": "forum"}]:
        assert PplFilter(**options).extract(page) == ppl_filter.clean(page, **options)
    assert PplFilter(favour_precision=True).options == {"favor": "precision"}
    with pytest.raises(TypeError, match="format"):
        PplFilter(format="json")
