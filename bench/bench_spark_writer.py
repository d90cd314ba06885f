"""What one `connect-kafka` write task costs with a new producer versus the producer its Python worker
process keeps (`kafka_writer.shared_producer`): Spark runs one write task per task per micro-batch, in
worker processes it reuses, so this is paid every micro-batch. No Spark session: the writer runs as
Spark's worker would run it, against the same broker.

    python -m bench.bench_spark_writer [--rows 1000] [--rounds 15]

Uses the broker named by CONNECTWORKER_BENCH_BOOTSTRAP, else starts the embedded Tansu broker. Writes
the `spark write task` section of bench/results.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from contextlib import ExitStack

import pyarrow as pa
from confluent_kafka import Producer
from pyspark.sql.types import BinaryType, StringType, StructField, StructType

from bench.results import write_section
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.spark.formats.columns import SinkColumns
from connectworker.spark.formats.kafka_writer import KafkaRowWriter, drop_producer
from connectworker.spark.formats.options import SinkSettings

TOPIC = "bench-spark-writer"
SCHEMA = StructType(
    [StructField("topic", StringType()), StructField("key", BinaryType()), StructField("value", BinaryType())]
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        bootstrap = (
            os.environ.get("CONNECTWORKER_BENCH_BOOTSTRAP") or stack.enter_context(EmbeddedBroker()).bootstrap_servers
        )
        settings = SinkSettings.from_options({"kafka.bootstrap.servers": bootstrap})
        columns = SinkColumns.of(SCHEMA, topic_option=None)
        batch = pa.record_batch(
            {
                "topic": pa.array([TOPIC] * args.rows),
                "key": pa.nulls(args.rows, pa.binary()),
                "value": pa.array([b"x" * 100] * args.rows, pa.binary()),
            }
        )
        warm = Producer({"bootstrap.servers": bootstrap})  # the topic exists before either variant runs
        warm.produce(TOPIC, b"x")
        warm.flush(30)
        times: dict[str, list[float]] = {"new producer per write task": [], "the process's producer": []}
        for _ in range(2):  # interleaved halves: both variants see the same machine
            for variant, samples in times.items():
                for _ in range(args.rounds):
                    if variant.startswith("new"):
                        drop_producer(settings.kafka)
                    started = time.perf_counter()
                    KafkaRowWriter(settings, columns).write(iter([batch]))
                    samples.append(time.perf_counter() - started)
        drop_producer(settings.kafka)
    rows = [
        f"| {variant} | {statistics.median(s) * 1000:.1f} ms | {min(s) * 1000:.1f} ms | {max(s) * 1000:.1f} ms |"
        for variant, s in times.items()
    ]
    write_section(
        "spark write task",
        "\n".join(
            [
                f"`python -m bench.bench_spark_writer --rows {args.rows} --rounds {args.rounds}`: "
                "one `connect-kafka` write "
                f"task of {args.rows:,} rows of 100 bytes (produce, then wait for every acknowledgement), "
                f"{2 * args.rounds} times per variant, interleaved.",
                "",
                "| variant | median | fastest | slowest |",
                "|---|---:|---:|---:|",
                *rows,
            ]
        ),
    )


if __name__ == "__main__":
    main()
