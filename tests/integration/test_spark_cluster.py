"""`connectworker spark` on a Spark standalone cluster (a master and two two-core workers from the
pyspark wheel, `spark_cluster.py`), offsets in a Kafka topic, a connector from `plugin.path`.

One cluster for the run (tests/integration/conftest.py), one-core executors on it; each test runs the
command in its own process (its own driver JVM): the pipeline survives an executor killed mid-stream and
a driver killed mid-stream, losing nothing; executors whose Python lacks connectworker stop the command
with one message saying how to fix it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from connectworker.runtime.offsets.backing_store import read_committed
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.spark_cluster import SparkCluster, alive, descendants
from tests.kafka_helpers import consume, delete_topics

pytestmark = [pytest.mark.spark, pytest.mark.spark_cluster, pytest.mark.heavy(seconds=100)]

PLUGIN = Path(__file__).parent / "spark_plugin" / "paced_source.py"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
RECORDS = 800  # per task
BATCH_RECORDS = 100  # more than a task produces in one offset.flush.interval.ms: what a failure can redo
STALL_AT = 250  # each task attempt that reaches this record stalls for 3 s: its executor is killed then


def write_files(work: Path, worker: Mapping[str, str], connector: Mapping[str, str]) -> None:
    for name, props in (("worker.properties", worker), ("connector.properties", connector)):
        (work / name).write_text("".join(f"{k}={v}\n" for k, v in props.items()))


def cluster_worker(cluster: SparkCluster, broker: Broker, offsets_topic: str, work: Path) -> dict[str, str]:
    return {
        "bootstrap.servers": broker.bootstrap_servers,
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "offset.storage.topic": offsets_topic,
        "offset.storage.partitions": "1",
        "offset.storage.replication.factor": "1",
        "offset.storage.file.filename": str(work / "connect.offsets"),  # beside it: the connector store
        "offset.flush.interval.ms": "100",
        "listeners": "",
        "topic.creation.enable": "true",
        "plugin.path": "plugins",  # relative: to the driver's directory
        "spark.master": cluster.master_url,
        "spark.conf.spark.ui.enabled": "false",
        "spark.conf.spark.driver.host": "127.0.0.1",
        "spark.conf.spark.executor.memory": "512m",
        "spark.conf.spark.executor.cores": "1",  # one task per executor: a killed executor loses one task
        "spark.conf.spark.cores.max": "2",  # spread over both workers
    }


def start_cli(work: Path, log_name: str, python: str = sys.executable) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYSPARK_PYTHON": python, "SPARK_LOCAL_IP": "127.0.0.1"}
    env.pop("PYTHONPATH", None)  # executors get only what connectworker spark ships or their Python has
    with (work / log_name).open("wb") as stderr:  # a file, not a pipe: a full pipe would stall the child
        return subprocess.Popen(
            [sys.executable, "-m", "connectworker.cli", "spark", "worker.properties", "connector.properties"],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def kill_with_children(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the driver (a crash) and wait until the JVM it started is gone too."""
    family = descendants(proc.pid)
    proc.kill()
    proc.wait()
    wait_until(lambda: not any(alive(pid) for pid in family), timeout=30, what="the driver JVM to exit")


@pytest.mark.long(seconds=100)
def test_a_plugin_connector_survives_a_lost_executor_and_a_crashed_driver_without_loss(
    cluster: SparkCluster, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    name, topic, offsets_topic = f"cl-{unique}", f"cl-{unique}", f"cl-offsets-{unique}"
    (tmp_path / "plugins").mkdir()
    shutil.copy(PLUGIN, tmp_path / "plugins" / PLUGIN.name)
    write_files(
        tmp_path,
        cluster_worker(cluster, broker, offsets_topic, tmp_path),
        {
            "name": name,
            "connector.class": "paced_source.PacedSource",
            "tasks.max": "2",
            "topic": topic,
            "records": str(RECORDS),
            # 100 records/s a task: the re-run task 0 needs 3.5 s from the test's go-on point to its end, time
            # enough for the driver's crash to land mid-stream even when reading the offsets back is slow.
            "batch.size": "2",
            "poll.pause.ms": "20",
            "stall.at": str(STALL_AT),
            "stall.ms": "3000",
            "stall.file": str(tmp_path / "stalled"),
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "1",
        },
    )
    storage = KafkaOffsetStore(
        offsets_topic, {"bootstrap.servers": broker.bootstrap_servers}, partitions=1, replication_factor=1
    )  # as the worker file says, should it create it first
    keys = {task: partition_key({"task": task}) for task in (0, 1)}

    def committed() -> dict[int, int]:
        offsets = read_committed(storage, name)
        return {task: offsets[key]["seq"] for task, key in keys.items() if key in offsets}

    def progressed_past(floor: int, proc: subprocess.Popen[bytes], log: str) -> bool:
        assert proc.poll() is None, (tmp_path / log).read_text()[-3000:]
        done = committed()
        return len(done) == 2 and min(done.values()) >= floor

    first = start_cli(tmp_path, "first.log")
    try:
        stalled = tmp_path / "stalled.0"
        wait_until(
            lambda: progressed_past(0, first, "first.log") and stalled.exists(), timeout=90, what="task 0 to stall"
        )
        worker_pid = int(stalled.read_text())  # the Python worker running task 0, under its executor
        victim = next(
            pid for pids in cluster.executor_pids().values() for pid in pids if worker_pid in descendants(pid)
        )
        os.kill(victim, signal.SIGKILL)  # the executor running task 0, mid-stream
        at_loss = committed()
        # Each task past where it stood at the loss (task 0 re-run from its committed offset): not both past
        # the furthest one, which on a loaded machine task 1 had reached when it was done, and then nothing
        # was left for the driver's crash to interrupt.
        wait_until(
            lambda: (
                all(
                    committed().get(task, 0) >= min(at_loss.get(task, 0) + 2 * BATCH_RECORDS, RECORDS)
                    for task in (0, 1)
                )
                and progressed_past(0, first, "first.log")
            ),
            timeout=150,
            what="the query to go on after the executor loss",
        )
        kill_with_children(first)  # the driver crashes mid-stream
        at_crash = committed()
        assert min(at_crash.values()) < RECORDS, at_crash  # the crash left work for the restart

        second = start_cli(tmp_path, "second.log")
        try:
            wait_until(
                lambda: progressed_past(RECORDS, second, "second.log"),
                timeout=90,
                what="every record committed after the restart",
            )
            second.send_signal(signal.SIGINT)
            second.wait(timeout=60)
        finally:
            if second.poll() is None:
                kill_with_children(second)
        assert second.returncode == 0, (tmp_path / "second.log").read_text()[-3000:]
    finally:
        if first.poll() is None:
            kill_with_children(first)
        storage.close()

    topics = [f"{topic}.0", f"{topic}.1"]
    messages = consume(broker.bootstrap_servers, topics, 2 * RECORDS, timeout=60)
    for task in (0, 1):
        seqs = Counter(int(m.key()) for m in messages if m.topic() == f"{topic}.{task}")
        assert set(seqs) == set(range(RECORDS)), f"task {task} lost {sorted(set(range(RECORDS)) - set(seqs))[:10]}"
        twice = sum(n - 1 for n in seqs.values())
        # Again at most what was produced since the last commit, for the lost executor and the crashed driver.
        assert twice <= 2 * BATCH_RECORDS, (task, twice)
    # The executors ran the connector from the archive connectworker spark shipped (plugin.path).
    values = {m.value().decode().split(":", 2)[2] for m in messages}
    assert all("plugin-path-0-plugins.zip" in v for v in values), values
    first_log = (tmp_path / "first.log").read_text()
    assert "ExecutorLostFailure" in first_log  # the kill failed a running task attempt, which Spark retried
    assert f"Created topic {topic}.0 for connector {name}" in first_log
    assert "Traceback" not in first_log
    delete_topics(admin, [*topics, offsets_topic])


def bare_python(work: Path) -> str:
    """A virtualenv of this Python that sees this environment's packages but not connectworker (an
    editable install, whose import hook only runs in this environment's own site directory)."""
    env = work / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    site = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (env / "lib" / version / "site-packages" / "shared.pth").write_text(site + "\n")
    python = str(env / "bin" / "python")
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as the executors run it
    probe = subprocess.run(
        [python, "-c", "import pyarrow, confluent_kafka; import connectworker"],
        capture_output=True,
        text=True,
        cwd=env,
        env=clean,
    )  # not the repository's directory
    assert "No module named 'connectworker'" in probe.stderr, probe.stderr  # the setup is what we think
    return python


@pytest.mark.long(seconds=35)
def test_executors_without_connectworker_stop_the_command_with_one_clear_message(
    cluster: SparkCluster, broker: Broker, tmp_path: Path, unique: str
) -> None:
    (tmp_path / "plugins").mkdir()
    shutil.copy(PLUGIN, tmp_path / "plugins" / PLUGIN.name)
    write_files(
        tmp_path,
        cluster_worker(cluster, broker, f"bare-offsets-{unique}", tmp_path),
        {
            "name": f"bare-{unique}",
            "connector.class": "paced_source.PacedSource",
            "tasks.max": "1",
            "topic": f"bare-{unique}",
            "records": "10",
        },
    )
    python = bare_python(tmp_path)
    proc = start_cli(tmp_path, "bare.log", python=python)
    try:
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            kill_with_children(proc)
    err = (tmp_path / "bare.log").read_text()
    assert proc.returncode == 1, err[-3000:]
    message = next((line for line in err.splitlines() if "executors cannot import" in line), None)
    assert message is not None, err[-3000:]
    assert f"Executor Python: {python} (Python {'.'.join(map(str, sys.version_info[:3]))}) on " in message
    assert (
        "connectworker.runtime.runners.remote_task (needed by connectworker[spark]): "
        "ModuleNotFoundError: No module named 'connectworker'"
    ) in message
    assert "paced_source (needed by connector.class paced_source.PacedSource" in message
    for remedy in ("PYSPARK_PYTHON", "spark.archives=env.tar.gz#env", "--py-files", "plugin.path"):
        assert remedy in message, remedy
    assert "Traceback" not in err and "Py4JJavaError" not in err, err[-3000:]
