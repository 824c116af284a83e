"""ppl-filter: turns raw web pages into clean text.

An n-gram language model and a learned classifier decide which blocks of a page are its main
content. This package calls the Rust library that the ``ppl-filter`` command runs, so
``clean(page_bytes)`` returns exactly what ``ppl-filter page.html`` prints.

>>> import ppl_filter
>>> ppl_filter.clean("<p>The council voted on Tuesday to restore the old footpath by the river.</p>")
'The council voted on Tuesday to restore the old footpath by the river.\\n'

Functions: :func:`clean` (one page), :func:`clean_many` (many pages on several threads),
:func:`blocks` (a page's blocks with their decision and evidence), :func:`perplexity` (one
sentence's perplexity), :func:`language_code` (a language's two-letter code). Classes:
:class:`Model` and :class:`Classifier` (files to use instead of the embedded ones),
:class:`Block` and :class:`Sentence`. Exceptions: :class:`Error` and its subclasses
:class:`InputError`, :class:`ModelError`, :class:`OptionError`. The submodule
:mod:`ppl_filter.datatrove` is a datatrove extractor step (it needs datatrove; importing
``ppl_filter`` does not).
"""

from ._native import (
    FAVORS,
    FORMATS,
    KINDS,
    METHODS,
    OPTIONS,
    Block,
    Classifier,
    Error,
    InputError,
    Model,
    ModelError,
    OptionError,
    Sentence,
    __version__,
    blocks,
    clean,
    clean_many,
    language_code,
    perplexity,
)

__all__ = [
    "FAVORS",
    "FORMATS",
    "KINDS",
    "METHODS",
    "OPTIONS",
    "Block",
    "Classifier",
    "Error",
    "InputError",
    "Model",
    "ModelError",
    "OptionError",
    "Sentence",
    "__version__",
    "blocks",
    "clean",
    "clean_many",
    "language_code",
    "perplexity",
]
