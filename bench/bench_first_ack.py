"""How long a new producer takes to get its first records acknowledged, with and without idempotence.

Every task producer (and the raw and ceiling producers of bench_worker_throughput) is idempotent. When
librdkafka creates one, it asks for a producer id before the connection to the broker is up, and asks
again only after its 500 ms retry timer: the first acknowledgement then comes 0.5 s or 1.0 s after the
producer is made, against a few milliseconds without idempotence. A long-running worker pays it once
per task start; a benchmark run of a few seconds pays it in every run, with 0.5 s of jitter.
Run: `python -m bench.bench_first_ack [rounds]`.
"""

from __future__ import annotations

import statistics
import sys
import time

from confluent_kafka import Producer

from bench.results import write_section
from connectworker.api import TopicSettings
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.producer_settings import PRODUCER_DEFAULTS

RECORDS = 1000


def first_ack_ms(bootstrap: str, topic: str, idempotent: bool) -> float:
    """From making the producer until its first `RECORDS` records are acknowledged."""
    start = time.perf_counter()
    producer = Producer({**PRODUCER_DEFAULTS, "bootstrap.servers": bootstrap, "enable.idempotence": idempotent})
    for i in range(RECORDS):
        producer.produce(topic, b"x", b"k%d" % i)
    if producer.flush(30):
        raise RuntimeError("the first records were not acknowledged within 30 s")
    return (time.perf_counter() - start) * 1e3


def main(rounds: int = 6) -> None:
    with EmbeddedBroker() as broker:
        admin = open_topic_admin(broker.bootstrap_servers)
        admin.create([TopicSettings("first-ack", 4, 1)])
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(rounds):
            for idempotent in (True, False):
                times[idempotent].append(first_ack_ms(broker.bootstrap_servers, "first-ack", idempotent))
        admin.delete(["first-ack"])
    rows = [
        f"| {'idempotent (the worker default)' if idempotent else 'not idempotent'} | "
        f"{statistics.median(values):.0f} | {', '.join(f'{v:.0f}' for v in values)} |"
        for idempotent, values in times.items()
    ]
    write_section(
        "First acknowledgement of a new producer",
        f"`python -m bench.bench_first_ack {rounds}`: a new producer (the worker's producer defaults) sends "
        f"{RECORDS:,} records to a 4-partition topic of the embedded Tansu broker; ms from making it until "
        "all are acknowledged.\n\n| producer | ms (median) | each round |\n|---|---:|---|\n" + "\n".join(rows) + "\n",
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
