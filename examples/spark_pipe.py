"""Clean a JSONL dataset with ppl-filter under PySpark, through RDD.pipe.

Every partition of the dataset is streamed through one `ppl-filter --input jsonl` process;
ppl-filter writes exactly one line per input line (bad lines pass through), in order, so the
partitions' outputs concatenated in order equal a single-process run over the whole file.

    python examples/spark_pipe.py INPUT.jsonl OUTPUT_DIR [--ppl-filter PATH] [--field html]
        [--master local[2]] [--partitions 4]

OUTPUT_DIR receives Spark's part-NNNNN files. Runs on any cluster where ppl-filter is
installed on the workers (`--master yarn`, `spark://…`); nothing here is local-only but the
default master.
"""

import argparse
import shlex

from pyspark.sql import SparkSession


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="JSONL file (one JSON object per line)")
    parser.add_argument("output", help="output directory (must not exist)")
    parser.add_argument("--ppl-filter", default="ppl-filter", help="path of the ppl-filter binary")
    parser.add_argument("--field", default="html", help="the field to clean")
    parser.add_argument("--master", default="local[2]", help="Spark master URL")
    parser.add_argument("--partitions", type=int, default=4, help="minimum number of partitions")
    args = parser.parse_args()

    spark = SparkSession.builder.master(args.master).appName("ppl-filter").getOrCreate()
    try:
        command = [args.ppl_filter, "--input", "jsonl", "--field", args.field, "-j1", "-q"]
        lines = spark.sparkContext.textFile(args.input, minPartitions=args.partitions)
        lines.pipe(shlex.join(command)).saveAsTextFile(args.output)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
