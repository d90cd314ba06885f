"""`connectworker spark` as a Kafka Connect cluster: the REST API on the driver, driven by a third-party
Kafka Connect client (`kafkaconnect`), connectors created at run time on a Spark standalone cluster (two
two-core workers: four task slots for the three long-lived tasks, one of them paused),
their configs and target states in `config.storage.topic`, and a driver killed with SIGKILL and started
again elsewhere (an empty directory) finding them all, with no record lost and none produced while paused.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from confluent_kafka.admin import AdminClient
from kafkaconnect.cli import main as kafkaconnect_cli

from connectworker.embedded_broker import free_loopback_port
from connectworker.runtime.offsets.backing_store import read_committed
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.numbered_records import consume_keys
from tests.integration.spark_cluster import SparkCluster, alive, descendants
from tests.kafka_helpers import delete_topics

pytestmark = [pytest.mark.spark, pytest.mark.spark_cluster, pytest.mark.heavy(seconds=90)]

PLUGIN = Path(__file__).parent / "spark_plugin" / "paced_source.py"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
PAUSED_RECORDS, GROWN_RECORDS = 3000, 1500  # per task


def start_driver(work: Path, worker: dict[str, str]) -> subprocess.Popen[bytes]:
    """`connectworker spark worker.properties` with no connector file: connectors come through REST."""
    work.mkdir(exist_ok=True)
    (work / "plugins").mkdir(exist_ok=True)
    shutil.copy(PLUGIN, work / "plugins" / PLUGIN.name)
    (work / "worker.properties").write_text("".join(f"{k}={v}\n" for k, v in worker.items()))
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    env.pop("PYTHONPATH", None)
    with (work / "driver.log").open("wb") as stderr:
        return subprocess.Popen(
            [sys.executable, "-m", "connectworker.cli", "spark", "worker.properties"],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def kill_driver(proc: subprocess.Popen[bytes]) -> None:
    family = descendants(proc.pid)
    proc.kill()
    proc.wait()
    wait_until(lambda: not any(alive(pid) for pid in family), timeout=30, what="the driver JVM to exit")


def kafkaconnect(url: str, *args: str) -> str:
    result = CliRunner().invoke(kafkaconnect_cli, ["--connect", url, *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def status(url: str, name: str) -> tuple[str, list[str]]:
    shown = json.loads(kafkaconnect(url, "status", name))
    return shown["connector"]["state"], [t["state"] for t in shown["tasks"]]


def answers(url: str, proc: subprocess.Popen[bytes], log: Path) -> bool:
    assert proc.poll() is None, log.read_text()[-3000:]
    try:
        return httpx.get(url + "/", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def paced(name: str, topic: str, records: int, tasks: int) -> dict[str, Any]:
    return {
        "connector.class": "paced_source.PacedSource",
        "tasks.max": str(tasks),
        "topic": topic,
        "records": str(records),
        "batch.size": "10",
        "poll.pause.ms": "20",
        "name": name,
    }


@pytest.mark.long(seconds=90)
def test_a_connect_cluster_on_spark_keeps_its_connectors_and_states_across_a_killed_driver(
    cluster: SparkCluster, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    topics = {
        "config.storage.topic": f"cc-configs-{unique}",
        "status.storage.topic": f"cc-status-{unique}",
        "offset.storage.topic": f"cc-offsets-{unique}",
    }
    port = free_loopback_port()
    url = f"http://127.0.0.1:{port}"
    worker = {
        "bootstrap.servers": broker.bootstrap_servers,
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        **topics,
        "offset.storage.partitions": "1",
        "offset.storage.replication.factor": "1",
        "config.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "status.storage.partitions": "1",
        "offset.flush.interval.ms": "100",
        "listeners": url,
        "plugin.path": "plugins",
        "spark.master": cluster.master_url,
        "spark.conf.spark.ui.enabled": "false",
        "spark.conf.spark.driver.host": "127.0.0.1",
        "spark.conf.spark.executor.memory": "512m",
    }
    paused, grown = f"cc-paused-{unique}", f"cc-grown-{unique}"
    storage = KafkaOffsetStore(
        topics["offset.storage.topic"],
        {"bootstrap.servers": broker.bootstrap_servers},
        partitions=1,
        replication_factor=1,
    )

    def committed(name: str, task: int) -> int:
        offset = read_committed(storage, name).get(partition_key({"task": task}))
        return int(offset["seq"]) if offset else 0

    first_dir, second_dir = tmp_path / "first-host", tmp_path / "second-host"
    first = start_driver(first_dir, worker)
    second: subprocess.Popen[bytes] | None = None
    try:
        wait_until(lambda: answers(url, first, first_dir / "driver.log"), 120, "the driver's REST API")
        for name, topic, records in ((paused, paused, PAUSED_RECORDS), (grown, grown, GROWN_RECORDS)):
            config = tmp_path / f"{name}.json"
            config.write_text(json.dumps(paced(name, topic, records, tasks=1)))
            kafkaconnect(url, "upload", str(config), "--name", name)
        wait_until(lambda: committed(paused, 0) > 100, 120, "the first connector's records")
        kafkaconnect(url, "pause", paused)
        wait_until(lambda: status(url, paused) == ("PAUSED", ["PAUSED"]), 10, "the pause to reach its task")
        time.sleep(1)  # records in flight at the pause are delivered and committed
        at_pause = sum(consume_keys(broker.bootstrap_servers, f"{paused}.0", PAUSED_RECORDS, timeout=3).values())
        assert at_pause < PAUSED_RECORDS

        grown_config = tmp_path / "grown-2.json"
        grown_config.write_text(json.dumps(paced(grown, grown, GROWN_RECORDS, tasks=2)))
        kafkaconnect(url, "upload", str(grown_config), "--name", grown)  # tasks.max 1 -> 2
        wait_until(lambda: status(url, grown) == ("RUNNING", ["RUNNING", "RUNNING"]), 60, "two running tasks")
        wait_until(lambda: committed(grown, 1) > 0, 60, "the new task's first commit")
        kill_driver(first)  # the driver crashes; the next one starts on another "host": nothing on its disk

        second = start_driver(second_dir, worker)
        wait_until(lambda: answers(url, second, second_dir / "driver.log"), 120, "the second driver's REST API")
        assert sorted(json.loads(kafkaconnect(url, "list"))) == sorted([paused, grown])
        wait_until(lambda: status(url, paused) == ("PAUSED", ["PAUSED"]), 60, "the paused connector, paused")
        wait_until(lambda: status(url, grown) == ("RUNNING", ["RUNNING", "RUNNING"]), 60, "the grown one, 2 tasks")
        wait_until(
            lambda: committed(grown, 0) == GROWN_RECORDS and committed(grown, 1) == GROWN_RECORDS,
            120,
            "every record of the running connector committed",
        )
        still = sum(consume_keys(broker.bootstrap_servers, f"{paused}.0", PAUSED_RECORDS, timeout=3).values())
        assert still == at_pause, "records were produced while the connector was paused"

        kafkaconnect(url, "resume", paused)
        wait_until(lambda: committed(paused, 0) == PAUSED_RECORDS, 120, "the resumed connector to finish")
        second.send_signal(signal.SIGINT)
        assert second.wait(timeout=60) == 0, (second_dir / "driver.log").read_text()[-3000:]
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                kill_driver(proc)
        storage.close()

    for topic, records in (
        (f"{paused}.0", PAUSED_RECORDS),
        (f"{grown}.0", GROWN_RECORDS),
        (f"{grown}.1", GROWN_RECORDS),
    ):
        seen: Counter[int] = consume_keys(broker.bootstrap_servers, topic, records, timeout=60)
        assert set(seen) == set(range(records)), f"{topic} lost {sorted(set(range(records)) - set(seen))[:10]}"
    log = (second_dir / "driver.log").read_text()
    assert "Traceback" not in log
    delete_topics(admin, [*topics.values(), f"{paused}.0", f"{grown}.0", f"{grown}.1"])
