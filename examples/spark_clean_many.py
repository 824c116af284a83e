"""Clean a dataset of pages with ppl-filter's Python package under PySpark: mapPartitions with
clean_many.

Each partition's rows are cleaned in batches by `ppl_filter.clean_many` (the Rust library, in
the Python worker itself, the GIL released) and come back with a `text` column added (as a JSON record's `text`: no line
ending after the last block); the other columns are kept. The input is JSON lines or Parquet (told by the name: `*.parquet`),
and so is the output (`--output-format`).

    python examples/spark_clean_many.py INPUT OUTPUT_DIR [--field html] [--threads 1]
        [--output-format json|parquet] [--master local[2]] [--partitions 4]

Which to choose: this example when the pages are columns of a DataFrame (Parquet, a table)
and the workers' Python has the `ppl-filter` wheel (PYSPARK_PYTHON names that Python): no process per
partition, no JSON round trip, and the kept text lands next to the other columns.
`spark_pipe.py` (RDD.pipe) when the data is JSONL text and the workers have the `ppl-filter`
binary but not the Python package: lines pass through unchanged when they are not JSON, and
the output equals a single `ppl-filter --input jsonl` run line for line.
"""

import argparse

from pyspark.sql import SparkSession
from pyspark.sql.types import StringType, StructField, StructType

import ppl_filter

#: Pages cleaned by one call of clean_many.
BATCH = 256


def clean_partition(rows, field, threads, names):
    """The rows of one partition, each with its field cleaned into `text`."""
    batch = []

    def flush():
        texts = ppl_filter.clean_many(
            [row[field] or "" for row in batch], threads=threads, errors="ignore"
        )
        for row, text in zip(batch, texts):
            # As a record's text field holds it (`ppl-filter --output-field`, `--format json`):
            # without the line ending after the last block.
            yield tuple(row[name] for name in names) + (text.rstrip("\n"),)
        batch.clear()

    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            yield from flush()
    if batch:
        yield from flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="JSON lines or Parquet (*.parquet)")
    parser.add_argument("output", help="output directory (must not exist)")
    parser.add_argument("--field", default="html", help="the column holding the HTML")
    parser.add_argument("--threads", type=int, default=1, help="clean_many threads per task")
    parser.add_argument("--output-format", choices=["json", "parquet"], default="json")
    parser.add_argument("--master", default="local[2]", help="Spark master URL")
    parser.add_argument("--partitions", type=int, default=4, help="number of partitions")
    args = parser.parse_args()

    spark = SparkSession.builder.master(args.master).appName("ppl-filter").getOrCreate()
    try:
        reader = spark.read.parquet if args.input.endswith(".parquet") else spark.read.json
        pages = reader(args.input).repartition(args.partitions)
        names = [f.name for f in pages.schema.fields]
        schema = StructType(pages.schema.fields + [StructField("text", StringType())])
        field, threads = args.field, args.threads
        cleaned = pages.rdd.mapPartitions(
            lambda rows: clean_partition(rows, field, threads, names)
        )
        out = spark.createDataFrame(cleaned, schema).write
        (out.parquet if args.output_format == "parquet" else out.json)(args.output)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
