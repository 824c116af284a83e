"""Tests of the ppl_filter package against the ``ppl-filter`` command it wraps.

The command's binary is ``$PPL_FILTER_BIN`` (default ``target/release/ppl-filter`` at the
repository root); ``scripts/check-python.sh`` builds it and the package, then runs these.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ppl_filter

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PPL_FILTER_BIN", ROOT / "target" / "release" / "ppl-filter"))
PAGES = sorted(p for p in (ROOT / "fixtures" / "pages").iterdir() if p.is_file())
NEWS = ROOT / "fixtures" / "pages" / "news.html"
BINARY = ROOT / "fixtures" / "binary.bin"

# Each format of the Python API and the command-line flags that ask for it.
FORMAT_FLAGS = {
    "text": [],
    "mark": ["--mark"],
    "cleaneval": ["--format", "cleaneval"],
    "markdown": ["--format", "markdown"],
    "html": ["--format", "html"],
    "scores": ["--scores"],
}


def cli(*args):
    """Runs the command; its finished process, with stdout and stderr as bytes."""
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, check=False)


def test_the_fixture_pages_are_there():
    assert len(PAGES) >= 5, PAGES
    assert BIN.is_file(), f"no ppl-filter binary at {BIN} (set PPL_FILTER_BIN)"


@pytest.mark.parametrize("fmt", sorted(FORMAT_FLAGS))
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_clean_gives_the_command_line_output_byte_for_byte(page, fmt):
    expected = cli(*FORMAT_FLAGS[fmt], page).stdout
    assert expected, f"the command kept nothing of {page.name}"
    assert ppl_filter.clean(page.read_bytes(), format=fmt).encode("utf-8") == expected


def test_markdown_keeps_the_table_the_code_and_the_formula():
    page = (ROOT / "fixtures" / "pages" / "install-guide.html").read_bytes()
    markdown = ppl_filter.clean(page, format="markdown")
    assert "| Platform | Version | Status |\n| --- | --- | --- |\n" in markdown, markdown
    assert "| Windows | 3.10 to 3.13 | experimental |" in markdown, markdown
    assert "```sh\npip install mytool\nmytool --version\n```" in markdown, markdown
    assert "$E=mc^2$" in markdown and "`--fast`" in markdown, markdown
    assert "<table>" in ppl_filter.clean(page, format="html")


def test_json_names_the_page_and_its_url_as_the_command_line_does():
    url = "https://example.com/news"
    expected = json.loads(cli("--format", "json", "--url", url, NEWS).stdout)
    assert expected["source"] == str(NEWS) and expected["text"]
    expected["source"] = "<page>"
    assert json.loads(ppl_filter.clean(NEWS.read_bytes(), format="json", url=url)) == expected


def test_a_str_page_is_cleaned_as_its_utf8_bytes():
    page = NEWS.read_bytes()
    text = ppl_filter.clean(page.decode("utf-8"))
    assert text
    assert text == ppl_filter.clean(page)


def test_a_str_page_is_not_decoded_again_by_its_meta_charset():
    page = '<meta charset="windows-1252"><p>Café society gathered in the old town square at dawn.</p>'
    assert "Café" in ppl_filter.clean(page, method="perplexity")
    # Bytes are read by their declaration, unless they are UTF-8, which wins over a legacy one.
    assert "Café" in ppl_filter.clean(page.encode("windows-1252"), method="perplexity")
    assert "Café" in ppl_filter.clean(page.encode("utf-8"), method="perplexity")


def test_clean_many_keeps_the_order_whatever_the_thread_count():
    pages = [p.read_bytes() for p in PAGES] * 3
    one_by_one = [ppl_filter.clean(p) for p in pages]
    assert len(set(one_by_one)) == len(PAGES)
    for threads in (1, 2, 4):
        assert ppl_filter.clean_many(pages, threads=threads) == one_by_one, threads


def test_clean_many_takes_any_iterable_of_str_and_bytes():
    page = NEWS.read_bytes()
    mixed = (p for p in [page, page.decode("utf-8"), b"", page])
    expected = ppl_filter.clean(page)
    assert ppl_filter.clean_many(mixed, threads=2) == [expected, expected, "", expected]


def test_clean_many_reads_past_one_chunk():
    page = b"<p>The council voted on Tuesday to restore the old footpath by the river.</p>"
    texts = ppl_filter.clean_many(iter([page] * 2500), threads=2)
    assert len(texts) == 2500
    assert set(texts) == {ppl_filter.clean(page)}


def test_binary_data_is_refused_with_the_command_line_message():
    run = cli(BINARY)
    line = run.stderr.decode().strip()
    prefix = f"ppl-filter: {BINARY}: "
    assert line.startswith(prefix), line
    message = line[len(prefix):]
    assert message == "binary data, not text: skipped"
    with pytest.raises(ppl_filter.InputError) as refused:
        ppl_filter.clean(BINARY.read_bytes())
    assert str(refused.value) == f"<page>: {message}"
    assert isinstance(refused.value, ValueError)
    assert isinstance(refused.value, ppl_filter.Error)


def test_clean_many_names_the_first_refused_page_or_ignores_it():
    news = NEWS.read_bytes()
    binary = BINARY.read_bytes()
    with pytest.raises(ppl_filter.InputError) as refused:
        ppl_filter.clean_many([news, binary, news, binary], threads=2)
    assert str(refused.value) == "document 1: binary data, not text: skipped"
    texts = ppl_filter.clean_many([news, binary, news], errors="ignore", threads=2)
    assert texts == [ppl_filter.clean(news), "", ppl_filter.clean(news)]


def test_a_truncated_model_is_refused_naming_the_file(tmp_path):
    model = cli("--generate", "model").stdout
    assert len(model) > 1000
    path = tmp_path / "truncated.model"
    path.write_bytes(model[: len(model) // 2])
    with pytest.raises(ppl_filter.ModelError) as refused:
        ppl_filter.Model.load(path)
    assert str(path) in str(refused.value)
    assert f"ppl-filter: {refused.value}" == cli("--model", path, NEWS).stderr.decode().strip()


def test_a_model_file_loads_and_scores_as_the_embedded_one(tmp_path):
    path = tmp_path / "en.model"
    path.write_bytes(cli("--generate", "model").stdout)
    model = ppl_filter.Model.load(str(path))
    assert model.order >= 2
    assert model.size_bytes == path.stat().st_size
    sentence = "The cat sat on the mat."
    assert ppl_filter.perplexity(sentence, model) == ppl_filter.perplexity(sentence)
    assert ppl_filter.clean(NEWS.read_bytes(), model=model) == ppl_filter.clean(NEWS.read_bytes())


def test_a_file_that_is_no_classifier_is_refused_naming_it(tmp_path):
    path = tmp_path / "not-a-classifier.bin"
    path.write_bytes(b"hello")
    with pytest.raises(ppl_filter.ModelError) as refused:
        ppl_filter.Classifier.load(path)
    assert str(path) in str(refused.value)


def test_a_kind_given_decides_every_page_as_that_kind():
    assert ppl_filter.KINDS[0] == "auto" and "forum" in ppl_filter.KINDS
    page = NEWS.read_bytes()
    assert json.loads(ppl_filter.clean(page, format="json"))["kind"] == "article"
    assert json.loads(ppl_filter.clean(page, format="json", kind="forum"))["kind"] == "forum"
    assert ppl_filter.clean_many([page], kind="article") == [ppl_filter.clean(page, kind="article")]


GERMAN = (
    "<p>Der Gemeinderat hat am Dienstag beschlossen, das Ufer des Flusses zu erneuern, "
    "und die Arbeiten sollen im Frühjahr beginnen.</p>"
)


def test_a_language_is_named_by_its_two_letter_code():
    for name in ["de", "deu", "German", " german "]:
        assert ppl_filter.language_code(name) == "de"
    assert ppl_filter.language_code("eng") == "en"
    assert ppl_filter.language_code("klingon") is None


def test_the_language_filter_keeps_only_pages_in_the_language():
    page = NEWS.read_bytes()
    options = {"kind": "article", "comments": True, "favor": "precision"}
    english = ppl_filter.clean(page, **options)
    assert english
    assert ppl_filter.clean(page, target_language="en", **options) == english
    assert ppl_filter.clean(page, target_language="German", **options) == ""
    assert ppl_filter.clean(GERMAN, target_language="deu").startswith("Der Gemeinderat")
    assert ppl_filter.clean(GERMAN, target_language="en", format="json") == ""
    kept = ppl_filter.clean_many([page, GERMAN, page], target_language="de", threads=2)
    assert kept == ["", ppl_filter.clean(GERMAN), ""]


def test_an_option_left_out_or_none_is_the_default():
    page = NEWS.read_bytes()
    defaults = {"method": "combined", "format": "text", "favor": ppl_filter.FAVORS[0], "kind": "auto"}
    nones = {name: None for name in defaults}
    assert ppl_filter.clean(page) == ppl_filter.clean(page, **defaults) == ppl_filter.clean(page, **nones)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"target_language": "klingon"}, "unknown language 'klingon'"),
        ({"method": "best"}, "unknown method 'best'"),
        ({"format": "tei"}, "unknown format 'tei'"),
        ({"favor": "most"}, "unknown favor 'most'"),
        ({"kind": "blog"}, "unknown kind 'blog'"),
        ({"threshold": float("nan")}, "threshold: "),
        ({"method": "perplexity", "comments": True}, "comments applies only to the combined method"),
    ],
)
def test_options_that_name_nothing_are_refused(options, message):
    with pytest.raises(ppl_filter.OptionError) as refused:
        ppl_filter.clean(NEWS.read_bytes(), **options)
    assert str(refused.value).startswith(message)
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize(
    ("call", "options", "message"),
    [
        (ppl_filter.clean, {"colour": "red"}, "clean() got an unexpected keyword argument 'colour'"),
        (ppl_filter.blocks, {"format": "json"}, "blocks() got an unexpected keyword argument 'format'"),
        (ppl_filter.clean, {"comments": "yes"}, 'comments: invalid type: string "yes", expected a boolean'),
        (ppl_filter.clean, {"kind": ["forum"]}, "kind: invalid type: sequence, expected a string"),
        (ppl_filter.clean, {"threshold": "high"}, 'threshold: invalid type: string "high", expected f32'),
    ],
)
def test_unknown_keywords_and_values_of_the_wrong_type_are_type_errors(call, options, message):
    with pytest.raises(TypeError) as refused:
        call(NEWS.read_bytes(), **options)
    assert str(refused.value) == message


def test_the_stub_names_every_option_and_every_name_the_library_takes():
    """The type hints take their names from the library's lists: a new option or name that
    the stub does not list fails here."""
    import ast

    stub = ast.parse((Path(ppl_filter.__file__).parent / "_native.pyi").read_text())
    aliases = {
        node.targets[0].id: ast.literal_eval(node.value.slice)
        for node in stub.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript)
        and isinstance(node.value.value, ast.Name) and node.value.value.id == "Literal"
    }
    assert aliases["_Format"] == tuple(ppl_filter.FORMATS)
    assert aliases["_Method"] == tuple(ppl_filter.METHODS)
    assert aliases["_Favor"] == tuple(ppl_filter.FAVORS)
    assert aliases["_Kind"] == tuple(ppl_filter.KINDS)
    functions = {node.name: node for node in stub.body if isinstance(node, ast.FunctionDef)}
    decision = [key for key in ppl_filter.OPTIONS if key not in ("format", "target_language")]
    for name, options in [("clean", ppl_filter.OPTIONS), ("clean_many", ppl_filter.OPTIONS), ("blocks", decision)]:
        keywords = [argument.arg for argument in functions[name].args.kwonlyargs]
        missing = [key for key in options if key not in keywords]
        assert not missing, f"{name}() in the stub lacks {missing}"


def test_an_option_given_as_none_is_its_default():
    page = NEWS.read_bytes()
    assert ppl_filter.clean(page, kind=None, comments=None, favor=None) == ppl_filter.clean(page)


def test_clean_many_refuses_unknown_errors_and_zero_threads():
    with pytest.raises(ppl_filter.OptionError, match="unknown errors 'replace'"):
        ppl_filter.clean_many([], errors="replace")
    with pytest.raises(ppl_filter.OptionError, match="threads"):
        ppl_filter.clean_many([], threads=0)


@pytest.mark.parametrize(
    ("threads", "message"),
    [
        (-1, "threads: must be 1 to 256, not -1"),
        (0, "threads: must be 1 to 256, not 0"),
        (257, "threads: must be 1 to 256, not 257"),
        (2**63, "threads: must be 1 to 256, not an integer beyond 64 bits"),
        (-(10**30), "threads: must be 1 to 256, not an integer beyond 64 bits"),
    ],
)
def test_a_thread_count_out_of_range_is_an_option_error(threads, message):
    with pytest.raises(ppl_filter.OptionError) as refused:
        ppl_filter.clean_many([NEWS.read_bytes()], threads=threads)
    assert str(refused.value) == message
    assert isinstance(refused.value, ValueError)


def test_the_largest_thread_count_is_taken():
    page = NEWS.read_bytes()
    assert ppl_filter.clean_many([page] * 3, threads=256) == [ppl_filter.clean(page)] * 3


@pytest.mark.parametrize("threads", [2.0, "4", object(), [], 1j])
def test_a_thread_count_of_another_type_is_a_type_error(threads):
    with pytest.raises(TypeError, match="threads"):
        ppl_filter.clean_many([], threads=threads)


@pytest.mark.parametrize(
    ("threshold", "message"),
    [
        (10**400, "threshold: int too large to convert to float"),
        (1e300, "threshold: "),
        (-1, "threshold: "),
        (float("inf"), "threshold: "),
    ],
)
def test_a_threshold_out_of_range_is_an_option_error(threshold, message):
    for call in (ppl_filter.clean, ppl_filter.blocks, lambda p, **o: ppl_filter.clean_many([p], **o)):
        with pytest.raises(ppl_filter.OptionError) as refused:
            call(NEWS.read_bytes(), threshold=threshold)
        assert str(refused.value).startswith(message), str(refused.value)


SURROGATE_MESSAGE = "'utf-8' codec can't encode character '\\ud800' in position 10: surrogates not allowed"


def test_a_str_page_with_a_lone_surrogate_is_an_input_error_naming_it():
    page = "<p>A cat s\ud800at on the mat.</p>"
    with pytest.raises(ppl_filter.InputError) as refused:
        ppl_filter.clean(page)
    assert str(refused.value) == "<page>: " + SURROGATE_MESSAGE
    with pytest.raises(ppl_filter.InputError) as refused:
        ppl_filter.blocks(page)
    assert str(refused.value) == "<page>: " + SURROGATE_MESSAGE
    with pytest.raises(ppl_filter.InputError) as refused:
        ppl_filter.clean_many(["<p>Fine.</p>", page], threads=2)
    assert str(refused.value) == "document 1: " + SURROGATE_MESSAGE


def test_clean_many_ignoring_errors_reads_a_lone_surrogate_as_a_replacement_character():
    # One U+FFFD for each lone surrogate; Hangul (UTF-8 lead byte 0xED as well) is kept.
    page = "<p>The council voted on Tuesday \ud55c\ud7a3 to restore the old \udfff\ud800 footpath.</p>"
    texts = ppl_filter.clean_many([page, NEWS.read_bytes()], errors="ignore", method="perplexity")
    replaced = page.replace("\udfff\ud800", "\ufffd\ufffd")
    assert texts[0] == ppl_filter.clean(replaced, method="perplexity")
    assert "\ud55c\ud7a3" in texts[0] and "\ufffd\ufffd footpath" in texts[0], texts[0]
    assert texts[1] == ppl_filter.clean(NEWS.read_bytes(), method="perplexity")


def test_a_sentence_with_a_lone_surrogate_is_an_input_error():
    with pytest.raises(ppl_filter.InputError, match="^<sentence>: 'utf-8' codec"):
        ppl_filter.perplexity("The cat \ud800 sat.")
    with pytest.raises(TypeError, match="sentence"):
        ppl_filter.perplexity(b"The cat sat.")


@pytest.mark.parametrize("option", ["method", "format", "favor", "url"])
def test_an_option_with_a_lone_surrogate_is_an_option_error_naming_it(option):
    with pytest.raises(ppl_filter.OptionError, match=f"^{option}: 'utf-8' codec can't encode"):
        ppl_filter.clean(NEWS.read_bytes(), **{option: "text\ud800"})
    with pytest.raises(TypeError, match=option):
        ppl_filter.clean(NEWS.read_bytes(), **{option: 5})


def test_errors_with_a_lone_surrogate_is_an_option_error():
    with pytest.raises(ppl_filter.OptionError, match="^errors: 'utf-8' codec can't encode"):
        ppl_filter.clean_many([], errors="strict\ud800")


@pytest.mark.parametrize("load", [ppl_filter.Model.load, ppl_filter.Classifier.load])
def test_a_path_that_cannot_be_encoded_is_an_option_error(load, tmp_path):
    with pytest.raises(ppl_filter.OptionError, match="^path: 'utf-8' codec can't encode"):
        load("model\ud800.bin")
    with pytest.raises(TypeError, match="path"):
        load(5)
    with pytest.raises(ppl_filter.ModelError, match="NUL"):
        load("a\x00b")
    with pytest.raises(ppl_filter.ModelError, match="no-such"):
        load(tmp_path / "no-such")


def test_a_path_may_be_bytes(tmp_path):
    path = tmp_path / "en.model"
    path.write_bytes(cli("--generate", "model").stdout)
    assert ppl_filter.Model.load(os.fsencode(path)).path == path
    classifier = ROOT / "model" / "en-classifier.bin"
    assert ppl_filter.Classifier.load(os.fsencode(classifier)).path == classifier


def test_a_page_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match="str or bytes"):
        ppl_filter.clean(42)


def test_perplexity_tells_prose_from_word_salad_as_the_command_line_does():
    fluent = "The cat sat on the mat."
    salad = "mat the on sat cat The"
    assert ppl_filter.perplexity(fluent) < ppl_filter.perplexity(salad)
    printed = cli("perplexity", fluent, salad).stdout.decode().splitlines()
    mine = [f"{ppl_filter.perplexity(s):.1f}\t{s}" for s in (fluent, salad)]
    assert mine == printed


def kept_text(blocks):
    """The kept sentences, joined as the text format writes them."""
    return "".join(
        " ".join(s.text for s in block.sentences if s.kept) + "\n" for block in blocks if block.kept
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_kept_sentences_of_blocks_are_the_clean_text(page):
    decided = ppl_filter.blocks(page.read_bytes())
    # Word for word: the text format writes a table's row on one line, its cells between tabs.
    assert kept_text(decided).split() == ppl_filter.clean(page.read_bytes()).split()


def test_blocks_carry_sentences_and_evidence():
    decided = ppl_filter.blocks(NEWS.read_bytes())
    assert any(b.kept for b in decided) and any(not b.kept for b in decided)
    assert {b.kind for b in decided} <= {
        "heading", "list_item", "table_cell", "form", "preformatted", "paragraph"
    }
    block = next(b for b in decided if b.kept)
    assert block.text.startswith(block.sentences[0].text)
    assert all(s.perplexity > 0 for s in block.sentences)
    assert list(block.evidence)[0] == "ln_words" and len(block.evidence) == 56
    assert list(block.evidence)[-1] == "in_collapsed"
    assert block.evidence["link_density"] == pytest.approx(block.link_density, abs=1e-6)
    assert repr(block).startswith("Block(kind=")
    assert repr(block.sentences[0]).startswith("Sentence(perplexity=")
    with pytest.raises(AttributeError):
        block.text = "changed"


def test_blocks_refuses_binary_data():
    with pytest.raises(ppl_filter.InputError, match="^<page>: binary data"):
        ppl_filter.blocks(BINARY.read_bytes())


def test_the_datasets_example_runs():
    pytest.importorskip("datasets")
    example = ROOT / "examples" / "python_datasets_map.py"
    run = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert "cleaned 3 pages" in run.stdout, run.stdout


def test_the_package_docstring_example_holds():
    import doctest

    results = doctest.testmod(ppl_filter)
    assert results.attempted == 2 and results.failed == 0
