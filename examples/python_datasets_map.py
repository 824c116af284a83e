"""Clean a column of HTML pages in a Hugging Face dataset with ppl_filter.

`clean_batch` is what one passes to `Dataset.map(..., batched=True)`: it gets a batch (a dict
of columns) and returns the new column. `clean_many` cleans the whole batch on every core with
the GIL released, so one process is enough (no `num_proc`); a page that is not text (binary
data) gives "" rather than stopping the map.

    pip install ./python datasets
    python examples/python_datasets_map.py
"""

import datasets

import ppl_filter

PAGES = {
    "url": [
        "https://example.com/river",
        "https://example.com/menu",
        "https://example.com/logo.png",
    ],
    "html": [
        "<html><body><nav><a href=/>Home</a> | <a href=/news>News</a></nav>"
        "<p>The town council voted on Tuesday to restore the banks of the river and to reopen"
        " the old footpath between the mill and the bridge.</p>"
        "<p>Supporters said the path would bring visitors back to the centre of the town.</p>"
        "</body></html>",
        "<ul><li><a href=/>Home</a></li><li><a href=/a>About us</a></li>"
        "<li><a href=/c>Contact</a></li></ul>",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
        .decode("latin-1"),
    ],
}


def clean_batch(batch: dict) -> dict:
    """The batch's pages cleaned: a `text` column beside the others."""
    return {"text": ppl_filter.clean_many(batch["html"], errors="ignore")}


def main() -> None:
    dataset = datasets.Dataset.from_dict(PAGES)
    cleaned = dataset.map(clean_batch, batched=True, batch_size=1000, remove_columns=["html"])
    print(f"cleaned {len(cleaned)} pages")
    for row in cleaned:
        print(f"{row['url']}: {row['text']!r}")


if __name__ == "__main__":
    main()
