"""The worker on Spark when things go wrong (`connectworker spark`, `local[2,3]`: Spark re-runs a failed
Spark task up to twice): a Python worker killed with SIGKILL mid-stream is re-run by Spark and its task
resumes from the committed offsets, nothing lost; a task that raises is FAILED on the driver with its
message (not re-run: a connector failure is the connector's state, as in Kafka Connect), and the
command exits 1 naming it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from connectworker.api import SourceRecord
from connectworker.embedded_broker import free_loopback_port
from tests.broker import Broker
from tests.integration.counting_source import CountingSource, CountingTask
from tests.integration.harness import wait_until
from tests.integration.numbered_records import assert_none_lost, consume_keys
from tests.integration.spark_cluster import command_line
from tests.integration.test_cli_signals import running_cli, write_properties
from tests.kafka_helpers import delete_topics

pytestmark = [pytest.mark.spark, pytest.mark.heavy(seconds=45)]

REPO_ROOT = Path(__file__).resolve().parents[2]
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
RECORDS = 6_000


class BrokenAfterTask(CountingTask):
    """Counts like CountingTask, then raises once it reached `fail.at`."""

    def poll(self) -> list[SourceRecord] | None:
        if self.next >= int(self.fail_at):
            raise ValueError(f"poll failed on purpose: row {self.next} of the source is corrupt")
        return super().poll()

    def start(self, props: dict[str, str]) -> None:  # type: ignore[override]
        super().start(props)
        self.fail_at = props.get("fail.at", "100")


class BrokenAfterSource(CountingSource):
    def task_class(self) -> type[CountingTask]:
        return BrokenAfterTask


def committed_next(offsets_file: Path, name: str) -> int:
    import json

    if not offsets_file.exists():
        return 0
    stored = json.loads(offsets_file.read_text()).get(name, {})
    return int(next(iter(stored.values()), {}).get("next", 0))


@pytest.mark.long(seconds=20)
def test_a_killed_python_worker_is_re_run_and_resumes_and_a_failing_task_exits_1(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    steady, broken = f"steady-{unique}", f"broken-{unique}"
    offsets_file = tmp_path / "connect.offsets"
    (tmp_path / "worker.properties").write_text(
        "\n".join(
            [
                f"bootstrap.servers={broker.bootstrap_servers}",
                f"key.converter={STRING_CONVERTER}",
                f"value.converter={STRING_CONVERTER}",
                f"offset.storage.file.filename={offsets_file}",
                "offset.flush.interval.ms=200",
                "spark.master=local[2,3]",
                "listeners=",
                "spark.conf.spark.ui.enabled=false",
            ]
        )
    )
    (tmp_path / "steady.properties").write_text(
        "\n".join(
            [
                f"name={steady}",
                "connector.class=tests.integration.counting_source.CountingSource",
                f"topic={steady}",
                f"records={RECORDS}",
                "batch.size=20",
                "poll.pause.ms=10",
            ]
        )
    )
    (tmp_path / "broken.properties").write_text(
        "\n".join(
            [
                f"name={broken}",
                "connector.class=tests.integration.test_spark_tasks.BrokenAfterSource",
                f"topic={broken}",
                "records=1000",
                "fail.at=100",
                "batch.size=10",
            ]
        )
    )
    log = tmp_path / "stderr.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "connectworker.cli",
                "spark",
                "worker.properties",
                "steady.properties",
                "broken.properties",
            ],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        pattern = re.compile(rf"Task {steady}-0 runs in a Spark task on \S+ \(pid (\d+)\)")
        wait_until(
            lambda: (
                proc.poll() is None
                and pattern.search(log.read_text()) is not None
                and committed_next(offsets_file, steady) >= 500
            ),
            timeout=120,
            what="the steady task running with some offsets committed",
        )
        victim = int(pattern.findall(log.read_text())[0])
        assert victim != proc.pid
        os.kill(victim, signal.SIGKILL)  # the Python worker running the task: Spark re-runs it
        wait_until(
            lambda: proc.poll() is None and len(pattern.findall(log.read_text())) >= 2,
            timeout=60,
            what=f"the task re-run by Spark (log: {log.read_text()[-2000:]})",
        )
        wait_until(
            lambda: committed_next(offsets_file, steady) >= RECORDS,
            timeout=120,
            what="every record of the steady task committed",
        )
        wait_until(lambda: f"Task {broken}-0 FAILED" in log.read_text(), timeout=30, what="the broken task FAILED")
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = log.read_text()
    assert proc.returncode == 1, err[-3000:]
    assert f"Task {broken}-0 FAILED: poll failed on purpose: row 100 of the source is corrupt" in err
    assert f"task {broken}-0 ended FAILED" in err  # the last line names what failed
    assert len(re.findall(rf"Task {broken}-0 runs in a Spark task", err)) == 1  # not re-run by Spark
    assert_none_lost(consume_keys(broker.bootstrap_servers, steady, RECORDS), RECORDS)
    assert committed_next(offsets_file, broken) == 100  # what it produced before failing is committed
    delete_topics(admin, [steady, broken])


@pytest.mark.long(seconds=22)
@pytest.mark.requires_apache_kafka(
    "on Tansu a killed instance's unfinished transaction can surface: the re-run task reads back offsets past "
    "a data batch of the killed transaction that never arrived (seen once in a clean-clone run: 10 of 6,000 "
    "records, half of one 20-record batch, missing, no duplicate); Apache Kafka aborts it whole"
)
def test_exactly_once_on_spark_survives_a_killed_python_worker(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """`exactly.once.source.support=enabled` on Spark: the re-run task takes over its transactional id
    (`connect-standalone-<connector>-0`) and resumes from the offsets committed in its transactions; a
    read_committed reader finds every record (once, on a broker that hides aborted transactions)."""
    from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
    from tests.integration.test_exactly_once import read_values

    name, offsets_topic = f"eos-spark-{unique}", f"eos-spark-offsets-{unique}"
    (tmp_path / "worker.properties").write_text(
        "\n".join(
            [
                f"bootstrap.servers={broker.bootstrap_servers}",
                f"key.converter={STRING_CONVERTER}",
                f"value.converter={STRING_CONVERTER}",
                f"offset.storage.file.filename={tmp_path / 'connect.offsets'}",
                f"offset.storage.topic={offsets_topic}",
                "offset.storage.partitions=1",
                "offset.storage.replication.factor=1",
                "exactly.once.source.support=enabled",
                "offset.flush.interval.ms=200",
                "spark.master=local[2,3]",
                "listeners=",
                "spark.conf.spark.ui.enabled=false",
            ]
        )
    )
    (tmp_path / "eos.properties").write_text(
        "\n".join(
            [
                f"name={name}",
                "connector.class=tests.integration.counting_source.CountingSource",
                f"topic={name}",
                f"records={RECORDS}",
                "batch.size=20",
                "poll.pause.ms=10",
                "exactly.once.support=required",
            ]
        )
    )
    store = KafkaOffsetStore(
        offsets_topic, {"bootstrap.servers": broker.bootstrap_servers}, partitions=1, replication_factor=1
    )

    def committed() -> int:
        store.refresh()
        offset = store.offset(name, {"counter": 0})
        return int(offset["next"]) if offset else 0

    log = tmp_path / "stderr.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "connectworker.cli", "spark", "worker.properties", "eos.properties"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        pattern = re.compile(rf"Task {name}-0 runs in a Spark task on \S+ \(pid (\d+)\)")
        wait_until(
            lambda: proc.poll() is None and pattern.search(log.read_text()) is not None and committed() >= 500,
            timeout=120,
            what="the task running with some offsets committed",
        )
        os.kill(int(pattern.findall(log.read_text())[0]), signal.SIGKILL)
        wait_until(
            lambda: proc.poll() is None and committed() >= RECORDS,
            timeout=120,
            what=f"every record committed after the re-run (log: {log.read_text()[-2000:]})",
        )
        assert len(pattern.findall(log.read_text())) == 2  # Spark re-ran it once
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
    finally:
        store.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = log.read_text()
    assert proc.returncode == 0, err[-3000:]
    values = read_values(broker.bootstrap_servers, name, until=RECORDS)  # read_committed
    seen = Counter(int(v.split(":")[1]) for v in values)
    assert_none_lost(seen, RECORDS)
    assert sum(n - 1 for n in seen.values()) == 0  # every record once
    delete_topics(admin, [name, offsets_topic])


def processes_naming(marker: Path) -> list[int]:
    """Processes whose command line holds `marker` (a path unique to the test)."""
    pids = (int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit())
    return [pid for pid in pids if str(marker) in command_line(pid)]


def test_a_stop_while_start_up_waits_for_the_cluster_also_ends_the_spark_jvm_launched_meanwhile(tmp_path: Path) -> None:
    """`connectworker spark` launches Spark's JVM while it checks the cluster (its start-up overlaps the
    check); a stop during the check ends that JVM too, though no session was ever opened on it."""
    servers = f"127.0.0.1:{free_loopback_port()}"  # closed: every connection is refused
    marker = tmp_path / "spark-local-dir"  # on the JVM's command line (spark.local.dir)
    worker = write_properties(
        tmp_path / "worker.properties",
        {
            "bootstrap.servers": servers,
            "bootstrap.timeout.ms": "600000",
            "listeners": "",
            "offset.storage.file.filename": str(tmp_path / "offsets.json"),
            "task.shutdown.graceful.timeout.ms": "3000",
            "spark.master": "local[2]",
            "spark.conf.spark.ui.enabled": "false",
            "spark.conf.spark.local.dir": str(marker),
        },
    )
    connector = write_properties(tmp_path / "gen.properties", {"name": "gen", "connector.class": "DataGen"})
    with running_cli(worker, connector, command="spark") as cli:
        cli.wait_for(r"bootstrap check: .*Connection refused")
        wait_until(lambda: bool(processes_naming(marker)), 60, "Spark's JVM, launched alongside the check")
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=30) == 128 + signal.SIGTERM, cli.stderr
    wait_until(lambda: not processes_naming(marker), 15, "Spark's JVM to exit with the command")
    assert "Stopped during start-up, while waiting for the Kafka cluster" in cli.stderr
    assert "Traceback" not in cli.stderr, cli.stderr


def test_a_start_up_refused_before_the_session_opened_ends_the_jvm_launched_for_it(tmp_path: Path) -> None:
    """The same in a process that lives on (an embedding application): the JVM launched for a start-up
    that failed (here: no cluster within bootstrap.timeout.ms) is ended before `start()` raises."""
    marker = tmp_path / "spark-local-dir"
    props = {
        "bootstrap.servers": f"127.0.0.1:{free_loopback_port()}",
        "bootstrap.timeout.ms": "1000",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "spark.master": "local[2]",
        "spark.conf.spark.ui.enabled": "false",
        "spark.conf.spark.local.dir": str(marker),
    }
    script = (
        "import sys\n"
        "from connectworker.config.worker_config import WorkerConfig\n"
        "from connectworker.spark.runner.spark_runtime import spark_runtime\n"
        "try:\n"
        f"    spark_runtime(WorkerConfig.from_properties({props!r})).start()\n"
        "except Exception as exc:\n"
        "    print('refused:', exc, flush=True)\n"
        "sys.stdin.readline()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("refused: ") and "bootstrap.servers" in line, line
        left = [pid for pid in processes_naming(marker) if pid != proc.pid]  # the script names it too
        assert left == [], "the JVM launched for the session outlived the failed start-up"
    finally:
        proc.kill()
        proc.wait()
