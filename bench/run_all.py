"""`make bench`: every benchmark in turn; each writes its section of bench/results.md."""

from __future__ import annotations

import importlib

BENCHMARKS = [
    "bench.bench_worker_throughput",
    "bench.bench_exactly_once",
    "bench.bench_transforms",
    "bench.bench_header_conversion",
    "bench.bench_topic_creation",
    "bench.bench_metrics",
    "bench.bench_spark",
    "bench.bench_spark_writer",
    "bench.spark_first_batch_timeline",
    "bench.bench_sql_source",
    "bench.bench_spark_connect_cluster",
    "bench.bench_soak",
    "bench.bench_rest_latency",
    "bench.bench_task_processes",
    "bench.bench_postgres_cdc",
    "bench.bench_unwrap",
    "bench.bench_config_parse",
    "bench.bench_first_ack",
    "bench.bench_task_start",
    "bench.bench_worker_start_cpu",
]


def main() -> None:
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        importlib.import_module(name).main()


if __name__ == "__main__":
    main()
