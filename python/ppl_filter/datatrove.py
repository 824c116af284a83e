"""A datatrove extractor step: ``PplFilter`` cleans each document's HTML with ppl-filter.

It stands wherever datatrove's ``Trafilatura`` extractor does (the same base class,
``BaseExtractor``, and the same conventions: ``timeout`` per document, in seconds, the
extraction run in a sandboxed process, a document whose text comes out empty dropped), so
swapping one for the other is one line::

    from datatrove.pipeline.extractors import Trafilatura   # before
    from ppl_filter.datatrove import PplFilter              # after

    pipeline = [WarcReader("crawl/"), PplFilter(), JsonlWriter("clean/")]

A document's metadata is kept and enriched with what ppl-filter tells of the page: ``kind``
(the kind of page), ``lang`` (ISO 639-3, when sure) and ``language`` (the same language as
datatrove's ``LanguageFilter`` names it, ISO 639-1: ``en``), and the ``title`` (the headline),
``page_title`` (the raw ``<title>``), ``author``, ``date`` (ISO 8601), ``sitename`` and
``description`` the page gives (a key the document already has is left as it is; the page's
date then goes under ``date_published``, beside the crawl date a WARC reader stores as
``date``). Importing ``ppl_filter`` never imports datatrove; this module needs it.
"""

import json

from datatrove.pipeline.extractors.base import BaseExtractor, ExtractorSandbox
from datatrove.utils.logging import logger
from datatrove.utils.typeshelper import StatHints

import ppl_filter

#: What a page's JSON record adds to its document's metadata.
METADATA = ("kind", "lang", "title", "page_title", "author", "date", "sitename", "description")


class PplFilter(BaseExtractor):
    """ppl-filter extractor: keeps a page's main content, https://crates.io/crates/ppl-filter

    Args:
        timeout: the timeout for extraction, per document, in seconds.
        favour_precision: as datatrove's Trafilatura extractor takes it:
            ``favour_precision=True`` is taken for ``favor="precision"``.
        options: any option of :func:`ppl_filter.clean` by its keyword
            (``ppl_filter.OPTIONS``): ``favor`` (one of ``ppl_filter.FAVORS``: ``"precision"``
            keeps less, ``"recall"`` more), ``comments`` (keep readers' comments too),
            ``kind`` (decide every page as this kind of page), ``method``, ``bias``,
            ``threshold``, ``target_language`` (keep only the pages whose text is in this
            language: ``"de"``, ``"deu"`` or ``"German"``; the others give an empty text,
            which datatrove drops), ... ``format`` is the step's own (text, and JSON for the
            metadata).
    """

    name = "⛏ ppl-filter"
    _requires_dependencies = [("ppl_filter", "ppl-filter")]

    def __init__(self, timeout: float = 1, favour_precision: bool = False, **options):
        super().__init__(timeout)
        if "format" in options:
            raise TypeError("PplFilter() got an unexpected keyword argument 'format'")
        if favour_precision:
            options["favor"] = "precision"
        self.options = options
        # Options that name nothing are refused here, not once a document.
        ppl_filter.clean("", **self.options)

    def extract(self, text: str) -> str:
        """The clean text of the page ``text`` (HTML), as ``ppl-filter`` prints it."""
        return ppl_filter.clean(text, **self.options)

    def record(self, text: str) -> dict:
        """The JSON record ``ppl-filter --format json`` writes for the page ``text`` (``{}``
        when ``target_language`` leaves the page out; ``{"error": …}`` for a page refused,
        binary data say, which is no error of the run)."""
        try:
            written = ppl_filter.clean(text, format="json", **self.options)
        except ppl_filter.InputError as e:
            return {"error": str(e)}
        return json.loads(written) if written else {}

    def run(self, data, rank: int = 0, world_size: int = 1):
        """As ``BaseExtractor.run``: each document extracted in the sandbox within ``timeout``,
        its text replaced by the clean text and its metadata enriched; a document that times
        out, fails, is refused (``refused``: binary data) or comes out empty is dropped and
        counted."""
        with ExtractorSandbox(timeout=self.timeout, warmup_text="") as sandbox:
            for doc in data:
                self.stat_update(StatHints.total)
                with self.track_time():
                    try:
                        record = sandbox.process_document(doc.text, self.record)
                        self.stat_update("extracted")
                    except TimeoutError:
                        self.stat_update("timeout")
                        logger.warning("⏰ Timeout while cleaning record text. Skipping record.")
                        continue
                    except EOFError:
                        self.stat_update("broken_process")
                        logger.warning("Process died unexpectedly, will create new process for next document")
                        continue
                    except Exception as e:
                        self.stat_update("clean_error")
                        if not self._warned_error:
                            logger.warning(
                                f'❌ Error "{e}" while cleaning record text. Skipping record. '
                                f"This message will only appear once."
                            )
                            self._warned_error = True
                        continue

                if "error" in record:
                    # A refused page (binary data, not text) is dropped and counted.
                    self.stat_update("refused")
                    self.stat_update(StatHints.dropped)
                    continue
                doc.text = record.get("text") or ""
                for key in METADATA:
                    if record.get(key) is not None:
                        # The page's own date is kept beside a date the document holds
                        # already (a WARC's crawl date), under its own key.
                        if key == "date" and "date" in doc.metadata:
                            doc.metadata.setdefault("date_published", record[key])
                        doc.metadata.setdefault(key, record[key])
                if record.get("lang"):
                    # As datatrove's own language steps name it, unless one of them did.
                    doc.metadata.setdefault("language", ppl_filter.language_code(record["lang"]))
                if doc.text:
                    self.stat_update(StatHints.forwarded)
                    self.update_doc_stats(doc)
                    yield doc
                else:
                    self.stat_update(StatHints.dropped)
