"""The pieces of the Spark integration that need no SparkSession: offset storages (file and Kafka
topic), merging the write tasks' offsets, option parsing, the sink's column checks and the source's rows."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pyarrow as pa
import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from connectworker.api import SourceRecord
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.error_handling import ErrorHandling
from connectworker.converters import StringConverter, load_header_converter
from connectworker.runtime.offsets.backing_store import read_committed
from connectworker.runtime.offsets.file_store import FileOffsetStore, OffsetStoreError, partition_key
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore, record_key
from connectworker.runtime.offsets.storage_settings import OffsetStorageSettings
from connectworker.runtime.tasks.error_tolerance import ToleranceOperator
from connectworker.runtime.tasks.record_conversion import RecordSerializer
from connectworker.spark.formats.columns import SinkColumns
from connectworker.spark.formats.kafka_writer import KafkaRowWriter, drop_producer, newest_rows
from connectworker.spark.formats.offset_commit import (
    SinkCommitMessage,
    close_committer_storage,
    commit_offsets,
    committer_storage,
    merge_newest,
)
from connectworker.spark.formats.options import SinkSettings, SourceSettings
from connectworker.spark.formats.sink import plan_write
from connectworker.spark.formats.source import ConnectStreamReader
from connectworker.spark.formats.task_poll import Coalescer, RowBuilder
from tests.broker import Broker
from tests.integration.topic_checks import partition_count, topic_configs
from tests.kafka_helpers import consume, delete_topics

pytestmark = pytest.mark.heavy(seconds=15)

P0, P1 = partition_key({"task": 0}), partition_key({"task": 1})


def test_file_storage_keeps_every_commit_of_concurrent_committers(tmp_path: Path) -> None:
    path = tmp_path / "offsets.json"

    def committer(connector: str) -> None:
        for seq in range(1, 31):
            store = FileOffsetStore(path, shared=True)  # as Spark's committers: one store per commit
            store.put(connector, {P0: {"seq": seq}})
            store.flush()

    threads = [threading.Thread(target=committer, args=(f"c{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    storage = FileOffsetStore(path, shared=True)
    stored = {f"c{i}": read_committed(storage, f"c{i}") for i in range(6)}
    assert stored == {f"c{i}": {P0: {"seq": 30}} for i in range(6)}


def test_file_storage_refuses_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "offsets.json"
    path.write_text("{not json")
    with pytest.raises(OffsetStoreError, match="corrupt"):
        read_committed(FileOffsetStore(path, shared=True), "c")


def test_kafka_storage_reads_back_commits_of_another_process_and_forgets_tombstones(
    broker: Broker, admin: AdminClient, unique: str
) -> None:
    topic = f"offsets-{unique}"
    kafka = {"bootstrap.servers": broker.bootstrap_servers}
    writer = KafkaOffsetStore(topic, kafka, partitions=3, replication_factor=-1)
    reader = KafkaOffsetStore(topic, kafka)  # finds the topic the writer created: 3 partitions

    def commit(connector: str, offsets: dict[str, dict[str, int] | None]) -> None:
        writer.put(connector, offsets)
        writer.flush()

    try:
        assert read_committed(writer, "gen") == {}
        assert read_committed(reader, "gen") == {}
        commit("gen", {P0: {"seq": 10}, P1: {"seq": 7}})
        commit("other", {P0: {"seq": 1}})
        commit("gen", {P0: {"seq": 25}})
        assert read_committed(reader, "gen") == {P0: {"seq": 25}, P1: {"seq": 7}}
        # A record Kafka Connect would write (keys not in canonical form) and a malformed one.
        producer = Producer(kafka)
        producer.produce(topic, b'{"seq": 99}', b'["gen", {"task": 1}]', partition=0)
        producer.produce(topic, b"junk", b"not json", partition=1)
        producer.flush(10)
        commit("gen", {P0: None})
        assert read_committed(reader, "gen") == {P1: {"seq": 99}}
        third = KafkaOffsetStore(topic, kafka)
        try:  # closed, never left to the garbage collector: a librdkafka client freed by the collector on
            # whatever thread triggers it can take the process down
            assert third.offsets("other") == {P0: {"seq": 1}}
        finally:
            third.close()
        metadata = admin.list_topics(timeout=10).topics[topic]
        assert len(metadata.partitions) == 3
    finally:
        writer.close()
        reader.close()
    keys = {m.key() for m in consume(broker.bootstrap_servers, [topic], 6, timeout=10)}
    assert record_key("gen", P0) in keys and b'["gen",{"task":1}]' in keys
    delete_topics(admin, [topic])


def test_offsets_of_reshuffled_rows_merge_to_the_newest_per_source_partition() -> None:
    messages = [
        SinkCommitMessage(3, {("gen", P0): (7, '{"seq": 8}'), ("gen", P1): (2, '{"seq": 3}')}),
        None,
        SinkCommitMessage(2, {("gen", P0): (9, '{"seq": 10}'), ("gen", P1): (1, '{"seq": 2}')}),
        SinkCommitMessage(1, {("file", "null"): (0, '{"position": 4}')}),
    ]
    assert merge_newest(messages) == {"gen": {P0: {"seq": 10}, P1: {"seq": 3}}, "file": {"null": {"position": 4}}}


def test_sink_finds_the_newest_offset_of_each_source_partition_in_a_batch() -> None:
    # Reshuffled rows of two connectors; rows without an offset (columnar polls) are never committed.
    cols = {
        "connector": pa.array(["gen", "gen", "gen", "file", "gen", "file", None]),
        "source_partition": pa.array([P0, P1, P0, None, P0, None, P0]),
        "source_index": pa.array([4, 9, 7, 1, 8, 0, 99], pa.int64()),
        "source_offset": pa.array(
            ['{"seq": 5}', '{"seq": 10}', '{"seq": 8}', '{"position": 2}', None, '{"position": 1}', '{"seq": 100}']
        ),
    }
    assert sorted(newest_rows(cols)) == [
        (("file", "null"), 1, '{"position": 2}'),
        (("gen", P0), 7, '{"seq": 8}'),
        (("gen", P1), 9, '{"seq": 10}'),
    ]
    assert newest_rows({**cols, "source_offset": pa.nulls(7, pa.string())}) == []


def test_polls_reach_spark_in_batches_of_at_least_the_coalescing_size_in_order() -> None:
    coalescer = Coalescer(rows=5)
    polls = [
        pa.record_batch({"n": list(range(start, start + size))}) for start, size in ((0, 2), (2, 2), (4, 3), (7, 1))
    ]
    out = [batch for poll in polls if (batch := coalescer.add(poll)) is not None]
    last = coalescer.flush()
    assert [b.column(0).to_pylist() for b in out] == [[0, 1, 2, 3, 4, 5, 6]]
    assert last is not None and last.column(0).to_pylist() == [7]
    assert coalescer.flush() is None


def test_source_options_restore_the_case_of_rule_names_and_split_worker_keys(tmp_path: Path) -> None:
    # Spark lower-cases option keys; values keep their case.
    options = {
        "name": "gen",
        "connector.class": "DataGen",
        "topic.pattern": "MyPrefix.{n}",
        "topic.creation": "firstRule,defaultRule",
        "topic.creation.firstrule.regex": "MyPrefix.*",
        "topic.creation.firstrule.partitions": "5",
        "topic.creation.defaultrule.regex": ".*",
        "kafka.bootstrap.servers": "127.0.0.1:1",
        "topic.creation.enable": "true",
        "offset.storage.file.filename": str(tmp_path / "o.json"),
        "checkpointlocation": "/x",
        "microbatch.max.ms": "250",
    }
    settings = SourceSettings.from_options(options)
    assert settings.connector == {
        "name": "gen",
        "connector.class": "DataGen",
        "topic.pattern": "MyPrefix.{n}",
        "topic.creation": "firstRule,defaultRule",
        "topic.creation.firstRule.regex": "MyPrefix.*",
        "topic.creation.firstRule.partitions": "5",
        "topic.creation.defaultRule.regex": ".*",
    }
    assert settings.kafka == {"bootstrap.servers": "127.0.0.1:1"}
    assert settings.creation_enabled and settings.max_ms == 250
    assert settings.offsets.file == str(tmp_path / "o.json")


def test_source_and_sink_options_name_each_problem() -> None:
    with pytest.raises(ConfigError) as missing:
        SourceSettings.from_options({"name": "gen", "connector.class": "DataGen"})
    assert "offset.storage.file.filename" in missing.value.problems
    with pytest.raises(ConfigError) as both:
        SourceSettings.from_options(
            {"offset.storage.file.filename": "f", "offset.storage.topic": "t", "kafka.bootstrap.servers": "127.0.0.1:1"}
        )
    assert "offset.storage.topic" in both.value.problems
    with pytest.raises(ConfigError) as no_cluster:
        SourceSettings.from_options({"offset.storage.file.filename": "f", "topic.creation.enable": "true"})
    assert "kafka.bootstrap.servers" in no_cluster.value.problems
    with pytest.raises(ConfigError) as bad_bound:
        SourceSettings.from_options({"offset.storage.file.filename": "f", "microbatch.max.records": "0"})
    assert "microbatch.max.records" in bad_bound.value.problems
    with pytest.raises(ConfigError) as sink:
        SinkSettings.from_options({"topic": "t"})
    assert "kafka.bootstrap.servers" in sink.value.problems


def test_a_write_whose_rule_sets_an_unknown_topic_config_fails_on_the_driver_unless_the_option_allows_it() -> None:
    options = {
        "kafka.bootstrap.servers": "127.0.0.1:1",
        "topic": "t",
        "topic.creation.enable": "true",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.tier.plugin.class": "cold",
    }
    schema = _schema(value=StringType())
    with pytest.raises(ConfigError) as refused:
        plan_write(options, schema)
    assert list(refused.value.problems) == ["topic.creation.default.tier.plugin.class"]
    settings, _ = plan_write({**options, "topic.creation.extra.configs": "tier.plugin.class"}, schema)
    assert settings.extra_topic_configs == ("tier.plugin.class",)
    assert "topic.creation.extra.configs" not in settings.creation_props


def _schema(**fields: object) -> StructType:
    return StructType([StructField(name, dtype) for name, dtype in fields.items()])  # type: ignore[arg-type]


def test_sink_checks_columns_as_spark_kafka_sink_does() -> None:
    header = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))
    schema = _schema(
        topic=StringType(),
        key=StringType(),
        value=BinaryType(),
        partition=IntegerType(),
        headers=header,
        extra=LongType(),
    )
    cols = SinkColumns.of(schema, topic_option=None)
    assert (cols.topic, cols.key, cols.partition, cols.headers, cols.timestamp, cols.source) == (
        True,
        True,
        True,
        True,
        False,
        False,
    )
    assert not SinkColumns.of(_schema(value=StringType()), topic_option="t").topic
    with pytest.raises(ConfigError) as bad:
        SinkColumns.of(_schema(value=LongType(), partition=StringType(), headers=StringType()), topic_option=None)
    assert set(bad.value.problems) == {"column value", "column topic", "column partition", "column headers"}
    with pytest.raises(ConfigError) as partial:
        SinkColumns.of(_schema(topic=StringType(), value=BinaryType(), source_offset=StringType()), topic_option=None)
    assert set(partial.value.problems) == {"column connector", "column source_partition", "column source_index"}


def _rows(topic: str, values: list[str], partitions: list[int | None]) -> pa.RecordBatch:
    return pa.record_batch(
        {
            "topic": pa.array([topic] * len(values)),
            "key": pa.nulls(len(values), pa.binary()),
            "value": pa.array([v.encode() for v in values], pa.binary()),
            "partition": pa.array(partitions, pa.int32()),
        }
    )


def test_a_write_task_kafka_refuses_fails_naming_the_record_and_its_retry_delivers_every_row(
    broker: Broker, admin: AdminClient, unique: str
) -> None:
    """Write tasks in one Python worker share its producer. A row Kafka refuses (here: partition 7 of
    a one-partition topic) fails its task with a message naming it, so the task's offsets are not
    committed; the producer is retired, and the retry delivers every row once."""
    topic = f"writer-{unique}"
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    schema = StructType(
        [
            StructField("topic", StringType()),
            StructField("key", BinaryType()),
            StructField("value", BinaryType()),
            StructField("partition", IntegerType()),
        ]
    )
    settings = SinkSettings.from_options(
        {"kafka.bootstrap.servers": broker.bootstrap_servers, "kafka.client.id": f"writer-test-{unique}"}
    )
    columns = SinkColumns.of(schema, topic_option=None)

    def write(values: list[str], partitions: list[int | None]) -> KafkaRowWriter:
        writer = KafkaRowWriter(settings, columns)
        assert writer.write(iter([_rows(topic, values, partitions)])).records == len(values)
        return writer

    try:
        first = write(["a", "b"], [None, 0])
        second = KafkaRowWriter(settings, columns)
        assert second._producer is first._producer  # reused: no new connection for the next write
        with pytest.raises(ConnectError) as refused:
            second.write(iter([_rows(topic, ["g", "h"], [7, None])]))
        assert (
            f"Kafka refused a record for topic '{topic}': " in str(refused.value)
            and "Unknown partition (_UNKNOWN_PARTITION)" in str(refused.value)
            and "source offsets are not committed" in str(refused.value)
        )
        retry = write(["h"], [None])
        assert retry._producer is not second._producer
        values = sorted(m.value().decode() for m in consume(broker.bootstrap_servers, [topic], 3))
        assert values == ["a", "b", "h"]  # the refused row never, the others once
    finally:
        drop_producer(settings.kafka)
        delete_topics(admin, [topic])


def test_the_committer_keeps_its_storage_open_and_reopens_it_after_a_failed_commit(tmp_path: Path) -> None:
    """Spark runs every commit of a query in one driver process: it keeps the offset storage open
    between micro-batches; a commit that cannot be written fails (Spark then retries the batch, whose
    rows are delivered again) and the next one starts from a freshly opened storage."""
    offsets = tmp_path / "connect.offsets"
    settings = OffsetStorageSettings(file=str(offsets))

    def commit(seq: int) -> None:
        commit_offsets(
            settings, [SinkCommitMessage(seq, {("gen", P0): (seq, json.dumps({"seq": seq}))})], f"micro-batch {seq}"
        )

    try:
        commit(1)
        storage = committer_storage(settings)
        commit(2)
        assert committer_storage(settings) is storage
        offsets.unlink()
        offsets.mkdir()  # the path is now a directory: the file cannot be written
        with pytest.raises(OffsetStoreError):
            commit(3)
        offsets.rmdir()
        commit(4)
        assert committer_storage(settings) is not storage
        assert read_committed(FileOffsetStore(offsets, shared=True), "gen") == {P0: {"seq": 4}}
    finally:
        close_committer_storage(settings)


def test_connect_source_rows_carry_headers_as_the_header_converter_writes_them() -> None:
    key, value = StringConverter(), StringConverter()
    key.configure({}, True)
    value.configure({}, False)
    tolerance = ToleranceOperator(ErrorHandling(), "c-0", threading.Event())
    rows = RowBuilder("c", 0, RecordSerializer(key, value, tolerance, load_header_converter("JsonConverter", {})))
    records = [
        SourceRecord({"p": 0}, {"n": 1}, "t", "v", "k", headers=[("n", 1), ("s", "x"), ("none", None)]),
        SourceRecord({"p": 0}, {"n": 2}, "t", "v", "k"),
    ]
    batch = rows.build(records, 0)
    assert batch.column(batch.schema.get_field_index("headers")).to_pylist() == [
        [
            {"key": "n", "value": b'{"schema":null,"payload":1}'},
            {"key": "s", "value": b'{"schema":null,"payload":"x"}'},
            {"key": "none", "value": None},
        ],
        [],
    ]


def test_connect_source_makes_the_topics_its_connector_requires_before_planning_a_task(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    history = f"history-{unique}"
    options = {
        "name": "kept",
        "connector.class": "tests.integration.fixture_connectors.HistoryKeepingDataGen",
        "history.topic": history,
        "topic.pattern": f"data-{unique}",
        "topic.count": "1",
        "topic.creation.default.partitions": "3",  # not what the history gets
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.cleanup.policy": "compact",
        "kafka.bootstrap.servers": broker.bootstrap_servers,
        "offset.storage.file.filename": str(tmp_path / "o.json"),
    }
    reader = ConnectStreamReader(SourceSettings.from_options(options))
    try:
        assert len(reader.partitions(reader.initialOffset(), reader.latestOffset())) == 1
        assert partition_count(admin, history) == 1
        assert {k: v for k, v in topic_configs(admin, history).items() if k in ("cleanup.policy", "retention.ms")} == {
            "cleanup.policy": "delete",
            "retention.ms": "-1",
        }
    finally:
        reader.stop()
        delete_topics(admin, [history])


def test_connect_source_refuses_to_plan_over_a_required_topic_with_other_settings(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    history = f"history-{unique}"
    admin.create_topics([NewTopic(history, 2, 1, config={"cleanup.policy": "delete", "retention.ms": "-1"})])[
        history
    ].result(timeout=10)
    options = {
        "name": "kept",
        "connector.class": "tests.integration.fixture_connectors.HistoryKeepingDataGen",
        "history.topic": history,
        "kafka.bootstrap.servers": broker.bootstrap_servers,
        "offset.storage.file.filename": str(tmp_path / "o.json"),
    }
    reader = ConnectStreamReader(SourceSettings.from_options(options))
    try:
        with pytest.raises(ConnectError, match=f"its topic {history} exists with 2 partitions where it needs 1"):
            reader.partitions(reader.initialOffset(), reader.latestOffset())
    finally:
        reader.stop()
        delete_topics(admin, [history])
