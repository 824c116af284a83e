"""Type hints of ``ppl_filter._native``, the compiled part of :mod:`ppl_filter`."""

import os
import pathlib
from typing import Dict, Iterable, List, Literal, Optional, Union, final

__all__ = [
    "Block",
    "Classifier",
    "Error",
    "FAVORS",
    "FORMATS",
    "InputError",
    "KINDS",
    "METHODS",
    "Model",
    "ModelError",
    "OPTIONS",
    "OptionError",
    "Sentence",
    "__version__",
    "blocks",
    "clean",
    "clean_many",
    "language_code",
    "perplexity",
]

__version__: str

FORMATS: List[str]
"""The output formats, as ``format`` takes them (``_Format`` below lists them)."""
METHODS: List[str]
"""The decision methods: combined, perplexity."""
FAVORS: List[str]
"""The leanings of the combined method, the default first."""
KINDS: List[str]
"""The kinds of page ``kind`` takes: auto (each page's own), article, forum, product,
collection, listing, documentation, service, other."""
OPTIONS: List[str]
"""Every option's keyword, as :func:`clean` takes them (the web API's JSON keys too)."""

# Generated: the names the options take (scripts/generate-docs.sh).
_Format = Literal["text", "markdown", "html", "xml", "cleaneval", "mark", "scores", "json"]
_Method = Literal["combined", "perplexity"]
_Favor = Literal["balanced", "precision", "recall"]
_Kind = Literal["auto", "article", "forum", "product", "collection", "listing", "documentation", "service", "other"]
# (end of generated)

_Html = Union[str, bytes]
_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

class Error(Exception):
    """The base of every error that ppl_filter raises."""

class InputError(Error, ValueError):
    """A page was refused (binary data, a parser that gave up).

    The message names the page as the command line does: ``<page>: binary data, not text:
    skipped`` (``document N`` in :func:`clean_many`). A ``str`` page holding a lone surrogate
    (``"\\ud800"``), which cannot be encoded as UTF-8, is refused too (``<sentence>`` in
    :func:`perplexity`).
    """

class ModelError(Error):
    """A model or classifier file cannot be used; the message names the file."""

class OptionError(Error, ValueError):
    """An option names no method, format or leaning, or has a value that cannot be used.

    Also an integer out of range (``threads`` is 1 to 256) and a ``str`` argument that cannot
    be encoded (a lone surrogate such as ``"\\ud800"``); the message starts with the
    argument's name: ``threads: must be 1 to 256, not -1``. An argument of the wrong type is a
    ``TypeError``.
    """

@final
class Model:
    """An n-gram language model read from a file (``ppl-filter train`` writes one)."""

    @staticmethod
    def load(path: _Path) -> "Model":
        """Reads and checks the model file; raises :class:`ModelError` naming the file.

        :class:`OptionError` for a path that cannot be encoded (a lone surrogate).
        """
    @property
    def order(self) -> int:
        """The n-gram order N."""
    @property
    def size_bytes(self) -> int:
        """The size of the model file in bytes."""
    @property
    def counts(self) -> List[int]:
        """How many n-grams are stored for each order, unigrams first."""
    @property
    def path(self) -> pathlib.Path:
        """The file the model was read from."""

@final
class Classifier:
    """A classifier of the combined method read from a file (``ppl-filter learn`` writes one)."""

    @staticmethod
    def load(path: _Path) -> "Classifier":
        """Reads and checks the classifier file; raises :class:`ModelError` naming the file.

        :class:`OptionError` for a path that cannot be encoded (a lone surrogate).
        """
    @property
    def path(self) -> pathlib.Path:
        """The file the classifier was read from."""

@final
class Sentence:
    """One sentence of a block, its perplexity and whether it is kept."""

    @property
    def text(self) -> str:
        """The sentence's text."""
    @property
    def perplexity(self) -> float:
        """Its perplexity under the language model (lower reads more like fluent prose)."""
    @property
    def kept(self) -> bool:
        """Whether the sentence is in the cleaned text."""

@final
class Block:
    """A run of text between two block-level boundaries, with its decision and evidence."""

    @property
    def text(self) -> str:
        """The block's text (entities decoded, white space collapsed)."""
    @property
    def kind(self) -> str:
        """heading, list_item, table_cell, form, preformatted or paragraph."""
    @property
    def kept(self) -> bool:
        """Whether any of its sentences is kept."""
    @property
    def link_density(self) -> float:
        """The share of the text's bytes that sat inside links."""
    @property
    def sentences(self) -> List[Sentence]:
        """Its sentences, in order."""
    @property
    def evidence(self) -> Dict[str, float]:
        """The evidence the combined method weighed, by name, in the classifier's order."""

def clean(
    html: _Html,
    *,
    url: Optional[str] = None,
    # Generated: the request's options (scripts/generate-docs.sh).
    method: Optional[_Method] = None,
    threshold: Optional[float] = None,
    max_link_density: Optional[float] = None,
    bias: Optional[float] = None,
    comments: bool = False,
    drop_tables: bool = False,
    kind: Optional[_Kind] = None,
    favor: Optional[_Favor] = None,
    format: Optional[_Format] = None,
    target_language: Optional[str] = None,
    # (end of generated)
    model: Optional[Model] = None,
    classifier: Optional[Classifier] = None,
) -> str:
    """Cleans one page: the text ``ppl-filter`` prints for a file holding it.

    ``bytes`` are decoded as the command line decodes a file (encoding sniffed); a ``str`` is
    read as it is. An option left out (``None``) is what ``ppl-filter`` does with no flag:
    ``method``, ``format``, ``favor`` and ``kind`` take the names of :data:`METHODS`,
    :data:`FORMATS`, :data:`FAVORS` and :data:`KINDS`. ``kind`` decides every page as one kind
    of page instead of the kind it declares or shows (``auto``). ``bias`` (-20 to 20) adds
    log-odds to every block's score: above 0 keeps more (``favor="recall"`` is 1). ``target_language`` (``"de"``,
    ``"deu"`` or ``"German"``) keeps the page only if its text is in that language: a page in
    another, or whose language cannot be told, gives ``""``. Raises :class:`InputError` for a refused page (also a ``str`` holding a
    lone surrogate), :class:`OptionError` for an unknown option name, a bad threshold or an
    option that cannot be encoded, ``TypeError`` for an argument of the wrong type.
    """

def clean_many(
    pages: Iterable[_Html],
    *,
    threads: Optional[int] = None,
    errors: str = "strict",
    # Generated: the request's options (scripts/generate-docs.sh).
    method: Optional[_Method] = None,
    threshold: Optional[float] = None,
    max_link_density: Optional[float] = None,
    bias: Optional[float] = None,
    comments: bool = False,
    drop_tables: bool = False,
    kind: Optional[_Kind] = None,
    favor: Optional[_Favor] = None,
    format: Optional[_Format] = None,
    target_language: Optional[str] = None,
    # (end of generated)
    model: Optional[Model] = None,
    classifier: Optional[Classifier] = None,
) -> List[str]:
    """Cleans many pages on ``threads`` threads (all cores by default), with the GIL released.

    Returns the texts in the pages' order, the same for any thread count. ``threads`` is 1 to
    256 (else :class:`OptionError`). ``errors="strict"`` raises :class:`InputError` for the
    first refused page (named ``document N``); ``errors="ignore"`` gives what was kept of it
    (maybe ``""``; a lone surrogate in a ``str`` page is read as U+FFFD).
    """

def blocks(
    html: _Html,
    *,
    # Generated: the decision's options (scripts/generate-docs.sh).
    method: Optional[_Method] = None,
    threshold: Optional[float] = None,
    max_link_density: Optional[float] = None,
    bias: Optional[float] = None,
    comments: bool = False,
    drop_tables: bool = False,
    kind: Optional[_Kind] = None,
    favor: Optional[_Favor] = None,
    # (end of generated)
    model: Optional[Model] = None,
    classifier: Optional[Classifier] = None,
) -> List[Block]:
    """The page's blocks as the cleaner decided them, with sentences and evidence."""

def perplexity(sentence: str, model: Optional[Model] = None) -> float:
    """The perplexity of one sentence under the model (the embedded English one by default).

    Raises :class:`InputError` for a sentence holding a lone surrogate.
    """

def language_code(name: str) -> Optional[str]:
    """The ISO 639-1 code of a language named by code or English name (``"deu"``,
    ``"German"`` → ``"de"``), as datatrove's language steps name languages; the three-letter
    code of one that has none; ``None`` for a name of no language.
    """
