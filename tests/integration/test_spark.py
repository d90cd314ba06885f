"""The connector pipeline on Spark (`local[2]`) against the test broker.

Few tests, one shared SparkSession (each session costs 5-10 s of JVM start-up): the worker runs a data
generator's tasks as Spark tasks, with topic rules, a task's `settings_for_new_topic` and its commit
hooks; the `connectworker spark` command stops cleanly on Ctrl-C (its own process and JVM); a
DataFrame batch write to many new topics; a streaming write; and a query that crashes, is stopped,
and resumes without loss. test_spark_tasks.py has the failure paths of the worker on Spark.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyspark
import pytest
from confluent_kafka import TopicCollection
from confluent_kafka.admin import AdminClient, ConfigResource
from pyspark.errors import StreamingQueryException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

from connectworker.api.record import RecordMetadata, SourceRecord
from connectworker.api.task import SourceTask
from connectworker.api.topic_settings import TimeUnit, TopicSettings
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.connectors.datagen import DataGenConnector, DataGenTask
from connectworker.runtime.offsets.backing_store import read_committed
from connectworker.runtime.offsets.file_store import FileOffsetStore, partition_key
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
from connectworker.runtime.status import State
from connectworker.runtime.topic_planning.plan_context import PlanTaskContext
from connectworker.spark import register
from connectworker.spark.runner.python_launcher import is_launcher
from connectworker.spark.runner.session import open_session
from connectworker.spark.runner.spark_runtime import spark_runtime
from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.kafka_helpers import consume, delete_topics, existing_topics
from tests.mariadb import MariaDb

pytestmark = [pytest.mark.spark, pytest.mark.heavy(seconds=135)]

REPO_ROOT = Path(__file__).resolve().parents[2]
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
P0, P1 = partition_key({"task": 0}), partition_key({"task": 1})


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    """The session `connectworker spark` would open for `spark.master=local[2]` (`open_session`: its
    Python workers run this interpreter through the launcher of `python_launcher.py`)."""
    with pytest.MonkeyPatch.context() as env:
        env.delenv("PYSPARK_PYTHON", raising=False)
        # Executors import the test connector below by name: put the repository on their path.
        paths = (str(REPO_ROOT), os.environ.get("PYTHONPATH"))
        env.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
        config = WorkerConfig.from_properties(
            {
                "bootstrap.servers": "127.0.0.1:9092",
                "spark.master": "local[2]",
                "spark.conf.spark.ui.enabled": "false",
                "spark.conf.spark.sql.shuffle.partitions": "2",
                "spark.conf.spark.driver.host": "127.0.0.1",
            }
        )
        session, owned = open_session(config, tmp_path_factory.mktemp("spark-session"))
        assert owned
        session.sparkContext.setLogLevel("ERROR")
        register(session)
        try:
            yield session
        finally:
            session.stop()


def test_local_python_workers_import_the_installed_pyspark_and_keep_the_users_path(spark: SparkSession) -> None:
    """Spark puts its zip of PySpark's sources first on every Python worker's path, and Python compiles
    what it imports from a zip in every new process; the local workers import the installed package."""

    def report(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyspark

        for _ in batches:
            pass
        yield pa.RecordBatch.from_pylist([{"pyspark": pyspark.__file__, "path": os.environ.get("PYTHONPATH", "")}])

    rows = spark.range(0, 2, 1, 2).mapInArrow(report, "pyspark STRING, path STRING").collect()
    assert len(rows) == 2
    for row in rows:
        assert ".zip" not in row.pyspark and Path(row.pyspark).parent == Path(pyspark.__file__).parent
        entries = row.path.split(os.pathsep)
        assert str(REPO_ROOT) in entries and not any(e.endswith(".zip") for e in entries), row.path
    assert is_launcher(spark.sparkContext.pythonExec or "")


def test_local_python_workers_fork_from_a_daemon_that_preloaded_the_task_runtime_on_one_thread(
    spark: SparkSession,
) -> None:
    """The daemon of a local master imports connectworker's task runtime once, before it forks a worker
    per task (`worker_daemon.py`); a fork keeps only the forking thread, so it must run no other."""

    def daemon(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for _ in batches:
            pass
        parent = Path(f"/proc/{os.getppid()}")
        yield pa.RecordBatch.from_pylist(
            [
                {
                    "command": (parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(),
                    "threads": len(list((parent / "task").iterdir())),
                }
            ]
        )

    rows = spark.range(0, 2, 1, 2).mapInArrow(daemon, "command STRING, threads BIGINT").collect()
    assert len(rows) == 2
    for row in rows:
        assert "-m connectworker.spark.runner.worker_daemon" in row.command, row.command
        assert row.threads == 1, row


class RetentionDataGenConnector(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return RetentionDataGenTask


class RetentionDataGenTask(DataGenTask):
    """Vetoes its eu-west topic and gives every other new topic a one-hour retention."""

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        if settings.name.endswith(".eu-west"):
            return None
        return settings.with_retention_time(1, TimeUnit.HOURS)


def expected_records(props: Mapping[str, str], task_id: int, count: int) -> list[tuple[str, str, str]]:
    """(topic, key, value) of the first `count` records of a DataGen task, generated in-process."""
    task = DataGenTask()
    task_props = {**props, "task.id": str(task_id)}
    task.initialize(PlanTaskContext(task_props))
    task.start(task_props)
    records = []
    while len(records) < count:
        records += task.poll() or []
    return [(r.topic, r.key, r.value) for r in records[:count]]


def describe(admin: AdminClient, topics: list[str]) -> dict[str, tuple[int, dict[str, str]]]:
    """Partition count and explicitly set configs of each topic."""
    partitions = {
        name: len(f.result().partitions) for name, f in admin.describe_topics(TopicCollection(topics)).items()
    }
    futures = admin.describe_configs([ConfigResource("topic", t) for t in topics])
    configs = {res.name: {k: v.value for k, v in f.result().items()} for res, f in futures.items()}
    return {t: (partitions[t], configs[t]) for t in topics}


def running(query: StreamingQuery, condition: Callable[[], bool]) -> Callable[[], bool]:
    """`condition`, failing fast with the query's error if the query died."""

    def check() -> bool:
        if not query.isActive:
            raise AssertionError(f"query stopped: {query.exception()}")
        return condition()

    return check


class HookedDataGenConnector(RetentionDataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return HookedDataGenTask


class HookedDataGenTask(RetentionDataGenTask):
    """Writes a line to `hooks.file` from each `commit()` and `commit_record()`, which Kafka Connect
    calls after offsets are stored and after each record is acknowledged: on Spark they run on the
    executor, in the task's own process, as in standalone."""

    def start(self, props: dict[str, str]) -> None:
        super().start(props)
        self.hooks_file = Path(props["hooks.file"])

    def commit(self) -> None:
        with self.hooks_file.open("a") as f:
            f.write(f"commit {os.getpid()}\n")

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        if metadata is not None and record.key in ("0", "1"):
            with self.hooks_file.open("a") as f:
                f.write(f"commit_record {metadata.topic}\n")


def test_the_worker_runs_its_tasks_as_spark_tasks_with_rules_hooks_and_commits(
    spark: SparkSession, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """`spark_runtime` in the shared session: the standalone worker whose two tasks run inside Spark tasks
    (in Spark's Python worker processes, not this one), creating topics by the rules with the task's
    `settings_for_new_topic`, committing offsets, and calling the task's `commit()`/`commit_record()`."""
    name, prefix = f"spark-gen-{unique}", f"sg-{unique}"
    offsets_file, hooks_file = tmp_path / "connect.offsets", tmp_path / "hooks.log"
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
            "offset.storage.file.filename": str(offsets_file),
            "offset.flush.interval.ms": "200",
            "topic.creation.enable": "true",
            "spark.master": "local[2]",
        }
    )
    props = {
        "name": name,
        "connector.class": "tests.integration.test_spark.HookedDataGenConnector",
        "tasks.max": "2",
        "topic.pattern": prefix + ".{region}",
        "topic.count": "3",
        "records": "300",
        "rate": "0",
        "batch.size": "50",
        "seed": "3",
        "hooks.file": str(hooks_file),
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "2",
        "topic.creation.groups": "West",
        "topic.creation.West.include": f"{prefix}\\.us-west",
        "topic.creation.West.partitions": "3",
        "topic.creation.West.cleanup.policy": "compact",
    }

    runtime = spark_runtime(config).start()
    try:
        herder = runtime.start_herder([parse_connector_config(props)])
        storage = FileOffsetStore(offsets_file, shared=True)
        wait_until(
            lambda: offsets_file.exists() and read_committed(storage, name) == {P0: {"seq": 300}, P1: {"seq": 300}},
            timeout=120,
            what="all 600 records committed",
        )
        tasks = herder.get(name).tasks
        assert [t.status.state for t in tasks] == [State.RUNNING, State.RUNNING]
        shown = [t.worker_id for t in herder.connector_status(name).tasks]  # REST's task status
        assert shown == [socket.gethostname()] * 2  # the executor's host, not the driver's worker id
        wait_until(
            lambda: all(t.stats().committed_records == 300 for t in tasks),
            timeout=10,
            what="the counters reported to the driver",
        )
        assert herder.get(name).topics == {f"{prefix}.us-east", f"{prefix}.us-west", f"{prefix}.eu-west"}
    finally:
        runtime.stop()
    assert spark.sparkContext._jsc is not None  # the shared session survives: not the runtime's to stop

    hooks = hooks_file.read_text().splitlines()
    pids = {int(line.split()[1]) for line in hooks if line.startswith("commit ")}
    assert pids and os.getpid() not in pids  # the hooks ran in Spark's Python workers
    topics = [f"{prefix}.us-east", f"{prefix}.us-west", f"{prefix}.eu-west"]
    acked = {line.split()[1] for line in hooks if line.startswith("commit_record")}
    assert acked and acked <= set(topics)  # acknowledged records reached the task's commit_record
    got = Counter(
        (m.topic(), m.key().decode(), m.value().decode()) for m in consume(broker.bootstrap_servers, topics, 600)
    )
    assert got == Counter(expected_records(props, 0, 300) + expected_records(props, 1, 300))
    created = describe(admin, topics)
    assert created[f"{prefix}.us-east"][0] == 2
    assert created[f"{prefix}.us-east"][1].get("retention.ms") == "3600000"
    assert created[f"{prefix}.us-west"][0] == 3
    assert created[f"{prefix}.us-west"][1].get("cleanup.policy") == "compact"
    vetoed_partitions, vetoed_configs = created[f"{prefix}.eu-west"]
    assert vetoed_partitions not in (2, 3) and "retention.ms" not in vetoed_configs  # broker auto-create
    delete_topics(admin, topics)


def test_cli_ctrl_c_commits_every_produced_record_and_shows_the_executors_lines(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """`connectworker spark` in its own process (and JVM): SIGINT stops the tasks, which flush and commit,
    so Kafka holds exactly the committed records. Its console reads like standalone's: the executors'
    "Created topic" and task lines appear on the driver, and no progress bars."""
    name, prefix = f"cli-{unique}", f"cli-{unique}"
    offsets_file = tmp_path / "connect.offsets"
    (tmp_path / "worker.properties").write_text(
        "\n".join(
            [
                f"bootstrap.servers={broker.bootstrap_servers}",
                f"key.converter={STRING_CONVERTER}",
                f"value.converter={STRING_CONVERTER}",
                f"offset.storage.file.filename={offsets_file}",
                "topic.creation.enable=true",
                "spark.master=local[2]",
                "offset.flush.interval.ms=300",
                "listeners=",
                "spark.conf.spark.ui.enabled=false",
            ]
        )
    )  # progress bars: left at connectworker's default
    (tmp_path / "gen.properties").write_text(
        "\n".join(
            [
                f"name={name}",
                "connector.class=DataGen",
                "tasks.max=2",
                f"topic.pattern={prefix}.{{task}}",
                "topic.count=1",
                "rate=300",
                "batch.size=30",
                "topic.creation.default.replication.factor=1",
                "topic.creation.default.partitions=1",
            ]
        )
    )
    log = tmp_path / "stderr.log"  # a file, not a pipe: a full pipe would stall the child
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "connectworker.cli", "spark", "worker.properties", "gen.properties"],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    storage = FileOffsetStore(offsets_file, shared=True)
    try:
        wait_until(
            lambda: proc.poll() is None and offsets_file.exists() and len(read_committed(storage, name)) == 2,
            timeout=120,
            what="offsets of both tasks committed",
        )
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = log.read_text()
    assert proc.returncode == 0, err[-3000:]
    for task in (0, 1):  # created on an executor, logged by the driver as it happens
        assert f"INFO Created topic {prefix}.{task} for connector {name}: partitions=1 replication.factor=1" in err, (
            err[-3000:]
        )
        assert f"Task {name}-{task} runs in a Spark task on " in err
        assert f"Task {name}-{task} stopped (" in err
    assert "[Stage" not in err  # Spark's console progress bar
    assert "Traceback" not in err
    committed = {key: offset["seq"] for key, offset in read_committed(storage, name).items()}
    topics = [f"{prefix}.0", f"{prefix}.1"]
    messages = consume(broker.bootstrap_servers, topics, sum(committed.values()))
    in_kafka = Counter(m.topic() for m in messages)
    assert {f"{prefix}.0": committed[P0], f"{prefix}.1": committed[P1]} == in_kafka
    assert len({(m.topic(), m.key()) for m in messages}) == len(messages)  # no record twice
    delete_topics(admin, topics)


def test_batch_write_of_a_dataframe_creates_many_new_topics_by_the_rules(
    spark: SparkSession, broker: Broker, admin: AdminClient, unique: str
) -> None:
    topics = [f"bw-{unique}-{i:02d}" + ("-compact" if i % 5 == 0 else "") for i in range(40)]
    stamp = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    rows = [
        (topic, f"k{n}", f"{topic}/{n}", n % 2, [("origin", b"spark")], stamp) for topic in topics for n in range(5)
    ]
    df = spark.createDataFrame(
        rows,
        "topic STRING, key STRING, value STRING, partition INT, "
        "headers ARRAY<STRUCT<key: STRING, value: BINARY>>, timestamp TIMESTAMP",
    )
    rules = {
        "kafka.bootstrap.servers": broker.bootstrap_servers,
        "topic.creation.enable": "true",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "2",
        "topic.creation.groups": "Compacted",
        "topic.creation.Compacted.include": ".*-compact",
        "topic.creation.Compacted.partitions": "3",
        "topic.creation.Compacted.cleanup.policy": "compact",
    }
    df.repartition(2).write.format("connect-kafka").mode("append").options(**rules).save()

    created = describe(admin, topics)
    for topic in topics:
        if topic.endswith("-compact"):
            assert created[topic] == (3, {"cleanup.policy": "compact"}), topic
        else:
            assert created[topic][0] == 2 and "cleanup.policy" not in created[topic][1], topic
    messages = consume(broker.bootstrap_servers, topics, len(rows))
    got = Counter(
        (m.topic(), m.key().decode(), m.value().decode(), m.partition(), tuple(m.headers()), m.timestamp()[1])
        for m in messages
    )
    ms = int(stamp.timestamp() * 1000)
    assert got == Counter((t, k, v, p, (("origin", b"spark"),), ms) for t, k, v, p, _, _ in rows)

    # topic.creation.enable=false: the same rules are ignored and the broker's auto-create applies.
    off = f"bw-{unique}-off"
    spark.createDataFrame([("k", "v")], "key STRING, value STRING").write.format("connect-kafka").mode(
        "append"
    ).options(**{**rules, "topic.creation.enable": "false", "topic.creation.default.partitions": "7"}).option(
        "topic", off
    ).save()
    assert len(consume(broker.bootstrap_servers, [off], 1)) == 1
    assert describe(admin, [off])[off][0] != 7

    # the worker's create-topic policy applies on the executors too: nothing is created, the write fails
    refused = f"bw-{unique}-refused"
    with pytest.raises(Exception, match=r"8 partitions is above topic.creation.policy.max.partitions \(4\)"):
        spark.createDataFrame([("k", "v")], "key STRING, value STRING").write.format("connect-kafka").mode(
            "append"
        ).options(
            **{
                **rules,
                "topic.creation.default.partitions": "8",
                "topic.creation.policy.class": "connectworker.topics.policy.LimitsPolicy",
                "topic.creation.policy.max.partitions": "4",
            }
        ).option("topic", refused).save()
    assert refused not in existing_topics(admin)
    delete_topics(admin, [*topics, off])


def test_streaming_write_creates_its_topic_and_writes_every_micro_batch(
    spark: SparkSession, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    topic = f"sw-{unique}"
    source = tmp_path / "in"
    source.mkdir()
    for f in range(3):
        (source / f"part-{f}.json").write_text(
            "".join(f'{{"key": "f{f}-{n}", "value": "row {f}.{n}"}}\n' for n in range(40))
        )
    stream = spark.readStream.schema("key STRING, value STRING").option("maxFilesPerTrigger", 1).json(str(source))
    query = (
        stream.writeStream.format("connect-kafka")
        .option("kafka.bootstrap.servers", broker.bootstrap_servers)
        .option("topic", topic)
        .option("topic.creation.enable", "true")
        .option("topic.creation.default.replication.factor", "1")
        .option("topic.creation.default.partitions", "3")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(120)
    assert query.exception() is None
    assert query.lastProgress is not None and query.lastProgress["batchId"] == 2  # three micro-batches

    messages = consume(broker.bootstrap_servers, [topic], 120)
    got = Counter((m.key().decode(), m.value().decode()) for m in messages)
    assert got == Counter((f"f{f}-{n}", f"row {f}.{n}") for f in range(3) for n in range(40))
    assert describe(admin, [topic])[topic][0] == 3
    delete_topics(admin, [topic])


def test_formats_registered_on_one_thread_serve_queries_started_on_another(
    spark: SparkSession, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """Registered on this thread, used from a thread pool's: py4j serves a new Python thread from a new JVM
    thread, where no session is active, and Spark looks a written-to Python data source up through the
    calling thread's active session (connectworker/spark/active_session.py)."""
    register(spark)
    name, topic, batch_topic = f"thr-{unique}", f"thr-{unique}", f"thr-batch-{unique}"
    offsets_file = tmp_path / "connect.offsets"
    kafka = {"kafka.bootstrap.servers": broker.bootstrap_servers, "offset.storage.file.filename": str(offsets_file)}
    source = {
        "name": name,
        "connector.class": "DataGen",
        "tasks.max": "1",
        "topic.pattern": topic,
        "topic.count": "1",
        "records": "200",
        "rate": "0",
        "batch.size": "50",
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        **kafka,
    }
    batch = spark.range(3).selectExpr("CAST(id AS STRING) AS key", "CONCAT('row ', id) AS value")

    def on_another_thread() -> StreamingQuery:
        assert SparkSession.getActiveSession() is None  # what the user's thread has: else this proves nothing
        batch.write.format("connect-kafka").mode("append").options(**kafka).option("topic", batch_topic).save()
        rows = spark.readStream.format("connect-source").options(**source).load()
        return (
            rows.writeStream.format("connect-kafka")
            .options(**kafka)
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .trigger(processingTime="200 milliseconds")
            .start()
        )

    with ThreadPoolExecutor(1, thread_name_prefix="user-pool") as pool:
        query = pool.submit(on_another_thread).result(timeout=120)
    storage = FileOffsetStore(offsets_file, shared=True)
    try:
        wait_until(
            running(query, lambda: offsets_file.exists() and read_committed(storage, name) == {P0: {"seq": 200}}),
            timeout=120,
            what="the 200 records of the query started on the pool's thread",
        )
    finally:
        query.stop()

    streamed = consume(broker.bootstrap_servers, [topic], 200)
    assert {int(m.key()) for m in streamed} == set(range(200))
    written = consume(broker.bootstrap_servers, [batch_topic], 3)
    assert sorted((m.key().decode(), m.value().decode()) for m in written) == [
        ("0", "row 0"),
        ("1", "row 1"),
        ("2", "row 2"),
    ]
    delete_topics(admin, [topic, batch_topic])


@pytest.mark.long(seconds=55)
def test_a_crashed_then_stopped_query_resumes_from_committed_offsets_without_loss(
    spark: SparkSession, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """Offsets in a compacted Kafka topic (the cluster setting), one checkpoint for three runs: a crash
    after a batch reached Kafka but before its offsets were committed, an abrupt `stop()`, a finish."""
    name, offsets_topic = f"resume-{unique}", f"offsets-{unique}"
    kafka = {"kafka.bootstrap.servers": broker.bootstrap_servers, "offset.storage.topic": offsets_topic}
    source = {
        "name": name,
        "connector.class": "DataGen",
        "tasks.max": "2",
        "topic.pattern": f"rs-{unique}.{{task}}.{{region}}",
        "topic.count": "2",
        "records": "600",
        "rate": "200",
        "batch.size": "20",
        "seed": "5",
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "microbatch.max.ms": "400",
        **kafka,
    }
    checkpoint = str(tmp_path / "checkpoint")
    storage = KafkaOffsetStore(
        offsets_topic, {"bootstrap.servers": broker.bootstrap_servers}, partitions=1, replication_factor=-1
    )  # the query's options' defaults, should it create it

    def committed() -> dict[int, int]:
        offsets = read_committed(storage, name)
        return {task: offsets[key]["seq"] for task, key in ((0, P0), (1, P1)) if key in offsets}

    def rows() -> DataFrame:
        return spark.readStream.format("connect-source").options(**source).load()

    def start() -> StreamingQuery:
        return (
            rows()
            .writeStream.format("connect-kafka")
            .options(**kafka)
            .option("checkpointLocation", checkpoint)
            .trigger(processingTime="200 milliseconds")
            .start()
        )

    def write_then_crash(batch: DataFrame, batch_id: int) -> None:
        if min(committed().values(), default=0) < 150:
            batch.write.format("connect-kafka").mode("append").options(**kafka).save()  # commits offsets
            return
        # The batch reaches Kafka, but the query dies before its offsets are committed.
        batch.drop("source_offset").write.format("connect-kafka").mode("append").options(**kafka).save()
        raise RuntimeError("simulated crash between the write and the offset commit")

    try:
        crashing = (
            rows()
            .writeStream.foreachBatch(write_then_crash)
            .option("checkpointLocation", checkpoint)
            .trigger(processingTime="200 milliseconds")
            .start()
        )
        with pytest.raises(StreamingQueryException, match="simulated crash"):
            crashing.awaitTermination(120)
        at_crash = committed()
        query = start()
        wait_until(running(query, lambda: min(committed().values()) >= 400), timeout=120, what="progress")
        query.stop()  # abrupt: a running micro-batch is cancelled
        assert all(seq < 600 for seq in committed().values()), committed()
        query = start()
        wait_until(running(query, lambda: committed() == {0: 600, 1: 600}), timeout=120, what="all records committed")
        query.stop()
    finally:
        storage.close()

    topics = [f"rs-{unique}.{task}.{region}" for task in (0, 1) for region in ("us-east", "us-west")]
    messages = consume(broker.bootstrap_servers, topics, 1200)
    for task in (0, 1):
        seqs = Counter(int(m.key()) for m in messages if m.topic().startswith(f"rs-{unique}.{task}."))
        assert set(seqs) == set(range(600)), f"task {task} lost records"
        again = sorted(seq for seq, n in seqs.items() if n > 1)
        # Only the uncommitted tail is delivered again: the crashed batch, and what the stop cancelled.
        assert again and again[0] == at_crash[task], (task, at_crash, again[:5])
    delete_topics(admin, [*topics, offsets_topic])


def test_tasks_beyond_the_clusters_slots_wait_unassigned_with_the_reason(
    spark: SparkSession, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    name = f"slots-{unique}"
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "offset.storage.file.filename": str(tmp_path / "o.json"),
            "offset.flush.interval.ms": "200",
            "spark.master": "local[2]",
        }
    )
    props = {
        "name": name,
        "connector.class": "DataGen",
        "tasks.max": "3",
        "topic.pattern": name,
        "topic.count": "1",
        "records": "10",
        "rate": "0",
        "format": "string",
    }
    runtime = spark_runtime(config).start()
    try:
        herder = runtime.start_herder([parse_connector_config(props)])
        tasks = herder.get(name).tasks
        wait_until(
            lambda: sorted(t.status.state for t in tasks) == [State.RUNNING, State.RUNNING, State.UNASSIGNED],
            timeout=90,
            what="two tasks running on local[2]'s two slots, one waiting",
        )
        [waiting] = [t for t in tasks if t.status.state is State.UNASSIGNED]
        assert waiting.status.snapshot()[1] == (
            "Waiting for a Spark task slot: the worker runs 3 task(s) and the "
            "cluster offers 2 slot(s) (spark.default.parallelism / executor cores)"
        )
    finally:
        runtime.stop()
    assert [t.status.state for t in tasks] == [State.STOPPED] * 3  # the waiting one never ran, and is stopped
    delete_topics(admin, [name])


def test_a_connector_reconfiguring_its_tasks_on_spark_starts_the_new_set_as_spark_tasks(
    spark: SparkSession, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """`ConnectorContext.request_task_reconfiguration()` on Spark: the SQL source sees a table created
    while it runs; its old Spark task stops (offsets committed) and two new ones read both tables."""
    db, prefix = tmp_path / "shop.db", f"sq-{unique}-"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)")
        connection.executemany("INSERT INTO orders (item) VALUES (?)", [(f"o{i}",) for i in range(20)])
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
            "offset.storage.file.filename": str(tmp_path / "o.json"),
            "offset.flush.interval.ms": "200",
            "spark.master": "local[2]",
        }
    )
    props = {
        "name": f"sql-{unique}",
        "connector.class": "SqlSource",
        "connection.url": f"jdbc:sqlite:{db}",
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "topic.prefix": prefix,
        "tasks.max": "2",
        "poll.interval.ms": "100",
        "table.poll.interval.ms": "300",
        "transforms": "key",
        "transforms.key.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
        "transforms.key.field": "id",
    }
    runtime = spark_runtime(config).start()
    try:
        herder = runtime.start_herder([parse_connector_config(props)])
        running = herder.get(props["name"])
        wait_until(lambda: [t.status.state for t in running.tasks] == [State.RUNNING], 90, "one Spark task")
        assert len(consume(broker.bootstrap_servers, [prefix + "orders"], 20)) == 20
        with sqlite3.connect(db) as connection:
            connection.execute("CREATE TABLE refunds (id INTEGER PRIMARY KEY, amount REAL)")
            connection.executemany("INSERT INTO refunds (amount) VALUES (?)", [(i / 2,) for i in range(5)])
        wait_until(
            lambda: [t.status.state for t in running.tasks] == [State.RUNNING, State.RUNNING],
            90,
            "two Spark tasks after the reconfiguration",
        )
        wait_until(lambda: prefix + "refunds" in existing_topics(admin), 30, "the new table's topic")
        refunds = consume(broker.bootstrap_servers, [prefix + "refunds"], 5)
        assert sorted(int(m.key()) for m in refunds) == [1, 2, 3, 4, 5]
        assert {t.worker_id for t in running.tasks} == {socket.gethostname()}  # Spark tasks, shown by executor
    finally:
        runtime.stop()
    orders = consume(broker.bootstrap_servers, [prefix + "orders"], 20)
    assert sorted(int(m.key()) for m in orders) == list(range(1, 21))  # none again after the task restart
    delete_topics(admin, [prefix + "orders", prefix + "refunds"])


def test_a_failed_spark_task_is_restarted_automatically(
    spark: SparkSession, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """`auto.restart.enabled` under `connectworker spark`: the driver's herder restarts a task whose first
    start failed, as a new Spark task, and it runs."""
    from tests.integration.fixture_connectors import starts

    starts_file, topic = tmp_path / "starts.txt", f"flaky-spark-{unique}"
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
            "offset.storage.file.filename": str(tmp_path / "o.json"),
            "offset.flush.interval.ms": "200",
            "spark.master": "local[2]",
        }
    )
    props = {
        "name": f"flaky-{unique}",
        "connector.class": "tests.integration.fixture_connectors.FlakyStartDataGen",
        "topic.pattern": topic,
        "topic.count": "1",
        "rate": "100",
        "batch.size": "10",
        "format": "string",
        "starts.file": str(starts_file),
        "fail.starts": "1",
        "auto.restart.enabled": "true",
        "auto.restart.backoff.base.ms": "200",
    }
    runtime = spark_runtime(config).start()
    try:
        herder = runtime.start_herder([parse_connector_config(props)])
        running = herder.get(props["name"])

        def where_it_stands() -> str:
            """What a timeout shows: the starts, the task's status, the restarts and Spark's jobs."""
            tracker = spark.sparkContext.statusTracker()
            jobs = [(j, tracker.getJobInfo(j)) for j in tracker.getActiveJobsIds()]
            return (
                f"the automatic restart's Spark task: {len(starts(starts_file))} start(s), task status "
                f"{[t.status.snapshot() for t in running.tasks]}, automatic restarts "
                f"{herder.auto_restarts.restarts(props['name'], 0)}, Spark's active jobs {jobs}"
            )

        wait_until(lambda: len(starts(starts_file)) >= 2, 90, where_it_stands)
        wait_until(lambda: [t.status.state for t in running.tasks] == [State.RUNNING], 90, where_it_stands)
        assert len(consume(broker.bootstrap_servers, [topic], 10)) >= 10
        assert len(starts(starts_file)) == 2
        assert herder.auto_restarts.restarts(props["name"], 0) == 1
    finally:
        runtime.stop()
    delete_topics(admin, [topic])


def test_mysql_change_data_capture_runs_as_a_spark_task(
    spark: SparkSession, broker: Broker, mariadb: MariaDb, tmp_path: Path
) -> None:
    """Debezium's MySQL connector file under `connectworker spark`: the schema history topic made ready on the
    driver, the snapshot and then the binlog stream read by a Spark task."""

    from tests.integration.cdc_helpers import read_until
    from tests.integration.mysql_cdc_helpers import mysql_database

    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "true",
            "offset.storage.file.filename": str(tmp_path / "o.json"),
            "offset.flush.interval.ms": "200",
            "spark.master": "local[2]",
        }
    )
    with mysql_database(mariadb) as db:
        db.execute("CREATE TABLE parts (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO parts VALUES (1, 'bolt')")
        props = db.props(broker.bootstrap_servers)
        topic = f"{db.name}.{db.name}.parts"
        runtime = spark_runtime(config).start()
        try:
            herder = runtime.start_herder([parse_connector_config(props)])
            running = herder.get(props["name"])
            wait_until(lambda: [t.status.state for t in running.tasks] == [State.RUNNING], 90, "the Spark task")
            read_until(broker.bootstrap_servers, topic, lambda k, v: k == {"id": 1})
            db.execute("INSERT INTO parts VALUES (2, 'nut')")
            seen: set[int] = set()  # the two keys may be in two partitions: read until both came, in any order
            events = read_until(broker.bootstrap_servers, topic, lambda k, v: seen.add(k["id"]) or seen == {1, 2})
            assert sorted((v["payload"]["op"], v["payload"]["after"]) for _, v in events) == [
                ("c", {"id": 2, "name": "nut"}),
                ("r", {"id": 1, "name": "bolt"}),
            ]
            assert {t.worker_id for t in running.tasks} == {socket.gethostname()}  # a Spark task, by executor
            history = read_until(broker.bootstrap_servers, db.history, lambda k, v: "CREATE TABLE `parts`" in v["ddl"])
            assert history[-1][1]["tableChanges"][0]["id"].endswith('."parts"')  # the snapshot wrote its schema there
        finally:
            runtime.stop()
