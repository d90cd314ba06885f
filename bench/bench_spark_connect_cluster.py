"""`connectworker spark` as a Connect cluster: how soon a connector created through the REST API produces
its first record, and how soon a pause stops it, on a Spark standalone cluster (a master and two
two-core workers from the pyspark wheel, tests/integration/spark_cluster.py) with the embedded broker.

Each round creates a DataGen connector (one task, 1,000 records/s) with `POST /connectors` and reads its
topic until the first record arrives (the time from the request is *create → first record*: the
connector started on the driver, its task placed on an executor as a Spark job, its producer connected
and the record acknowledged and fetched); it then asks `PUT /connectors/{name}/pause` and, three seconds
later, reads the topic to its end: *pause → last record* is the newest record's timestamp (set when the
task produced it) minus the time of the request. Then the connector is deleted.
Targets (issue 26): create → first record ≤ 3 s; pause → no new record ≤ 2 s.
Run: `python -m bench.bench_spark_connect_cluster [rounds]`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

from bench.results import verdict, write_section
from connectworker.embedded_broker import EmbeddedBroker, free_loopback_port

CREATE_TARGET_S, PAUSE_TARGET_S = 3.0, 2.0


def _records(bootstrap: str, topic: str, *, first_only: bool, timeout_s: float) -> list[int]:
    """Timestamps (ms) of the topic's records: the first one only, or all there are after `timeout_s`."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": uuid.uuid4().hex,
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 10,
        }
    )
    out: list[int] = []
    try:
        deadline = time.monotonic() + timeout_s
        assigned = False
        while time.monotonic() < deadline:
            if not assigned:
                metadata = consumer.list_topics(topic, timeout=5).topics.get(topic)
                if metadata is None or metadata.error is not None or not metadata.partitions:
                    time.sleep(0.01)
                    continue
                consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in metadata.partitions])
                assigned = True
            for msg in consumer.consume(num_messages=10_000, timeout=0.05):
                err = msg.error()
                if err is not None and err.code() not in (KafkaError._PARTITION_EOF, KafkaError.UNKNOWN_TOPIC_OR_PART):
                    raise RuntimeError(f"consume failed: {err}")
                if err is None:
                    out.append(msg.timestamp()[1])
                    if first_only:
                        return out
    finally:
        consumer.close()
    return out


def main(rounds: int = 5) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.integration.spark_cluster
    from tests.integration.spark_cluster import descendants, spark_cluster

    creates: list[float] = []
    pauses: list[float] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedBroker() as broker,
        spark_cluster(Path(tmp) / "cluster", workers=2, cores=2) as cluster,
    ):
        work = Path(tmp) / "driver"
        work.mkdir()
        url = f"http://127.0.0.1:{free_loopback_port()}"
        (work / "worker.properties").write_text(
            "\n".join(
                f"{k}={v}"
                for k, v in {
                    "bootstrap.servers": broker.bootstrap_servers,
                    "listeners": url,
                    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
                    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
                    "offset.storage.topic": "bench-offsets",
                    "offset.storage.partitions": "1",
                    "offset.storage.replication.factor": "1",
                    "config.storage.topic": "bench-configs",
                    "config.storage.replication.factor": "1",
                    "offset.storage.file.filename": "connect.offsets",
                    "offset.flush.interval.ms": "1000",
                    "spark.master": cluster.master_url,
                    "spark.conf.spark.ui.enabled": "false",
                    "spark.conf.spark.driver.host": "127.0.0.1",
                }.items()
            )
            + "\n"
        )
        env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
        with (work / "driver.log").open("wb") as log:
            driver = subprocess.Popen(
                [sys.executable, "-m", "connectworker.cli", "spark", "worker.properties"],
                cwd=work,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        try:
            client = httpx.Client(base_url=url, timeout=30)
            deadline = time.monotonic() + 120
            while True:
                try:
                    if client.get("/").status_code == 200:
                        break
                except httpx.HTTPError:
                    if driver.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError((work / "driver.log").read_text()[-3000:]) from None
                time.sleep(0.2)
            for n in range(rounds):
                name = f"bench-{n}"
                began = time.time()
                response = client.post(
                    "/connectors",
                    json={
                        "name": name,
                        "config": {
                            "connector.class": "DataGen",
                            "topic.pattern": name,
                            "topic.count": "1",
                            "rate": "1000",
                            "batch.size": "10",
                            "format": "string",
                        },
                    },
                )
                response.raise_for_status()
                first = _records(broker.bootstrap_servers, name, first_only=True, timeout_s=60)
                if not first:
                    raise RuntimeError(f"no record from {name} within 60 s")
                creates.append(time.time() - began)
                time.sleep(1)
                asked = time.time()
                client.put(f"/connectors/{name}/pause").raise_for_status()
                time.sleep(3)
                stamps = _records(broker.bootstrap_servers, name, first_only=False, timeout_s=3)
                pauses.append(max(0.0, max(stamps) / 1000 - asked))
                client.delete(f"/connectors/{name}").raise_for_status()
        finally:
            family = descendants(driver.pid)
            driver.send_signal(2)
            try:
                driver.wait(timeout=60)
            except subprocess.TimeoutExpired:
                driver.kill()
                driver.wait()
            for pid in family:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    continue
    create_median, pause_median = statistics.median(creates), statistics.median(pauses)
    body = "\n".join(
        [
            f"`python -m bench.bench_spark_connect_cluster {rounds}`: a Spark standalone cluster (a master, two "
            "two-core workers, the pyspark wheel) and `connectworker spark` with its REST API, the embedded Tansu "
            f"broker; {rounds} rounds, each a DataGen connector (1 task, 1,000 records/s) created, paused, deleted.",
            "",
            "| measure | median | all rounds | target |",
            "|---|---:|---|---|",
            f"| REST create → first record | {create_median:.2f} s | {', '.join(f'{v:.2f}' for v in creates)} | "
            f"≤ {CREATE_TARGET_S:g} s ({verdict(CREATE_TARGET_S - create_median, 0)}) |",
            f"| REST pause → last record produced | {pause_median:.2f} s | {', '.join(f'{v:.2f}' for v in pauses)} | "
            f"≤ {PAUSE_TARGET_S:g} s ({verdict(PAUSE_TARGET_S - pause_median, 0)}) |",
        ]
    )
    write_section("Connect cluster on Spark: REST latency", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
