"""The CDC pipeline both connectors run (connectors/debezium/): the coordinator's life of a task and the
emitter's rules for turning a change into records, each tested once here against fake snapshot and
streaming sources; each database's sources are tested against its real server elsewhere."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from connectworker.api.errors import ConfigError, ConnectError, RetriableError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaAndValue, SchemaType
from connectworker.api.topic_settings import CleanupPolicy, TopicSettings
from connectworker.connectors.debezium.column_types import ColumnType
from connectworker.connectors.debezium.connector import DebeziumConnector
from connectworker.connectors.debezium.coordinator import CdcTask, Start
from connectworker.connectors.debezium.emitter import ChangeEmitter
from connectworker.connectors.debezium.routes import Route
from connectworker.connectors.debezium.settings import CaptureSettings
from connectworker.connectors.debezium.table_shape import ShapeColumn, TableShape
from connectworker.connectors.mysql_cdc.connector import MySqlCdcConnector
from connectworker.connectors.mysql_cdc.task import MySqlCdcTask
from connectworker.connectors.postgres_cdc.connector import PostgresCdcConnector
from connectworker.connectors.postgres_cdc.settings import parse_settings
from connectworker.connectors.postgres_cdc.task import PostgresCdcTask

PROPS = {"database.hostname": "db.example", "database.dbname": "shop", "database.user": "cdc", "topic.prefix": "p"}
SOURCE = Schema.struct("test.Source", ("table", Schema(SchemaType.STRING)))
INT, TEXT = ColumnType(Schema(SchemaType.INT32), int), ColumnType(Schema(SchemaType.STRING), str)


def settings(**props: str) -> CaptureSettings:
    return parse_settings({**PROPS, **props})


def table(name: str = "t", *, keyed: bool = True, **props: str) -> TableShape:
    columns = [ShapeColumn(0, "id", INT, False, 1 if keyed else 0), ShapeColumn(1, "name", TEXT, True)]
    return TableShape(settings(**props), "public", name, columns, SOURCE)


# -- the coordinator ---------------------------------------------------------------------------------------


class FakeSnapshot:
    def __init__(self, batches: list[tuple[TableShape, list[list[Any]]]], ahead: Sequence[SourceRecord] = ()) -> None:
        self.batches, self.ahead, self.closed = list(batches), list(ahead), False

    def records_ahead(self) -> list[SourceRecord]:
        out, self.ahead = self.ahead, []
        return out

    def next_batch(self) -> tuple[TableShape, Sequence[Any]] | None:
        return self.batches.pop(0) if self.batches else None

    def offset(self, *, completed: bool) -> dict[str, Any]:
        return {"snapshot": True, "completed": completed}

    def source(self, shape: TableShape) -> dict[str, Any]:
        return {"table": shape.table}

    def close(self) -> None:
        self.closed = True


class FakeStream:
    def __init__(self, reads: Sequence[Any] = ()) -> None:
        self.reads, self.closed, self.down = list(reads), False, False
        self.committed_offsets: list[Mapping[str, Any]] = []
        self.topics_keyed: set[str] = set()
        self.incremental = None
        self.signals: list[Any] = []

    def read(self, stopping: threading.Event) -> list[SourceRecord]:
        if self.down:
            raise RetriableError("Cannot stream from db.example:5432: Connection refused")
        return self.reads.pop(0) if self.reads else []

    def committed(self, offset: Mapping[str, Any]) -> None:
        self.committed_offsets.append(offset)

    def close(self) -> None:
        self.closed = True


class FakeTask(CdcTask):
    def __init__(self, start: Start, mode: str = "initial") -> None:
        super().__init__()
        self._start, self._mode, self.events = start, mode, []

    def parse(self, props: Mapping[str, str]) -> CaptureSettings:
        return settings(**{"snapshot.mode": self._mode, "compact.keyed.table.topics": "true"})

    def begin(self, settings: CaptureSettings, committed: Mapping[str, Any] | None) -> Start:
        self.events.append(("begin", committed))
        return self._start

    def blocking_snapshot(self, tables: Sequence[str]) -> FakeSnapshot:
        return FakeSnapshot([])

    def snapshot_done(self) -> None:
        self.events.append(("snapshot_done", None))

    def stopped(self) -> None:
        self.events.append(("stopped", None))

    def dry_start(self, props: Mapping[str, str]) -> None:
        raise AssertionError("not a dry run")


def started(task: CdcTask, committed: dict[str, Any] | None = None) -> CdcTask:
    task.initialize(SimpleNamespace(offset_storage_reader=SimpleNamespace(offset=lambda partition: committed)))
    task.start({})
    return task


def polled(task: CdcTask, times: int) -> list[SourceRecord]:
    out: list[SourceRecord] = []
    for _ in range(times):
        out += task.poll() or []  # type: ignore[arg-type]
    return out


def test_the_snapshot_s_rows_come_first_marked_and_its_last_record_completes_it_then_the_stream_reads() -> None:
    orders, items = table("orders"), table("items", keyed=False)
    snapshot = FakeSnapshot([(orders, [[1, "a"], [2, "b"]]), (orders, [[3, "c"]]), (items, [[9, None]])])
    streamed = SourceRecord({"server": "p"}, {"lsn": 7}, "p.public.orders", {"op": "c"})
    stream = FakeStream([[streamed]])
    task = started(FakeTask(Start(snapshot, stream)), committed={"lsn": 1})
    records = polled(task, 4)
    assert [(r.topic, r.value["op"], r.value["after"]["id"]) for r in records] == [
        ("p.public.orders", "r", 1),
        ("p.public.orders", "r", 2),
        ("p.public.orders", "r", 3),
        ("p.public.items", "r", 9),
    ]
    assert [r.value["source"] for r in records] == [
        {"table": "orders", "snapshot": "first"},
        {"table": "orders", "snapshot": "true"},
        {"table": "orders", "snapshot": "last_in_data_collection"},
        {"table": "items", "snapshot": "last"},
    ]
    assert [r.source_offset["completed"] for r in records] == [False, False, False, True]
    assert records[0].key == {"id": 1} and records[3].key is None
    assert snapshot.closed and task.events == [("begin", {"lsn": 1}), ("snapshot_done", None)]
    assert task.poll() == [streamed]
    keyed = task.settings_for_new_topic(TopicSettings("p.public.orders"))
    assert keyed is not None and keyed.cleanup_policy == CleanupPolicy.COMPACT
    unkeyed = task.settings_for_new_topic(TopicSettings("p.public.items"))
    assert unkeyed is not None and unkeyed.cleanup_policy != CleanupPolicy.COMPACT


def test_a_snapshot_without_rows_is_completed_by_the_last_record_sent_ahead_of_them() -> None:
    ahead = [SourceRecord({"server": "p"}, {"snapshot": True}, "p", {"ddl": n}) for n in ("a", "b")]
    task = started(FakeTask(Start(FakeSnapshot([], ahead), FakeStream())))
    records = task.poll()
    assert isinstance(records, list)
    assert [r.value["ddl"] for r in records] == ["a", "b"]
    assert records[0].source_offset == {"snapshot": True}
    assert records[1].source_offset == {"snapshot": True, "completed": True}


def test_initial_only_stops_reading_after_its_snapshot_and_a_start_with_nothing_to_read_idles() -> None:
    stream = FakeStream([[SourceRecord({}, {}, "never", {})]])
    task = started(FakeTask(Start(FakeSnapshot([(table(), [[1, "a"]])]), stream), mode="initial_only"))
    assert len(polled(task, 2)) == 1
    assert stream.closed and task.poll() is None and stream.reads  # the stream was never read
    idle = started(FakeTask(Start(None, None)))
    assert idle.poll() is None


def test_commits_reach_the_stream_and_stop_closes_both_sources_mid_snapshot() -> None:
    snapshot, stream = FakeSnapshot([(table(), [[1, "a"]])] * 3), FakeStream()
    task = started(FakeTask(Start(snapshot, stream)), committed={"lsn": 5})
    task.commit()
    assert stream.committed_offsets == [{"lsn": 5}]
    task.poll()
    task.stop()
    assert snapshot.closed and stream.closed and task.events[-1] == ("stopped", None)
    assert task.poll() is None


@pytest.mark.parametrize(
    ("task_class", "props", "server"),
    [
        (PostgresCdcTask, PROPS, "db.example:5432"),
        (
            MySqlCdcTask,
            {
                "database.hostname": "db.example",
                "database.port": "3307",
                "database.user": "cdc",
                "database.server.id": "5400",
                "topic.prefix": "shop",
                "schema.history.internal.kafka.topic": "history.shop",
            },
            "db.example:3307",
        ),
    ],
)
def test_a_lost_server_is_retried_within_errors_retry_timeout_then_fails_the_task_naming_it(
    monkeypatch: pytest.MonkeyPatch, task_class: type[CdcTask], props: dict[str, str], server: str
) -> None:
    """Both connectors, the same rule: a read failing with a RetriableError is raised on (the worker polls
    again with backoff) until the failures have lasted errors.retry.timeout; then a ConnectError fails the
    task, naming the server. A read that succeeds starts the count again."""
    from connectworker.connectors.debezium import coordinator

    clock = [100.0]
    monkeypatch.setattr(coordinator, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    task, stream = task_class(), FakeStream()
    task.settings = task.parse({**props, "errors.retry.timeout": "5000"})
    task._stream = stream
    stream.down = True
    with pytest.raises(RetriableError):
        task.poll()
    clock[0] += 4.9
    with pytest.raises(RetriableError):
        task.poll()
    stream.down = False
    assert task.poll() is None
    stream.down = True
    clock[0] += 10
    with pytest.raises(RetriableError):
        task.poll()
    clock[0] += 5
    with pytest.raises(ConnectError) as failed:
        task.poll()
    assert not isinstance(failed.value, RetriableError)
    assert f"{server} was unreachable for longer than errors.retry.timeout=5000 ms" in str(failed.value)
    assert "Connection refused" in str(failed.value)


@pytest.mark.parametrize("props", [{}, {"errors.retry.timeout": "-1"}])
def test_unset_or_minus_one_retries_a_lost_server_forever(
    monkeypatch: pytest.MonkeyPatch, props: dict[str, str]
) -> None:
    from connectworker.connectors.debezium import coordinator

    clock = [0.0]
    monkeypatch.setattr(coordinator, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    task, stream = PostgresCdcTask(), FakeStream()
    task.settings, task._stream, stream.down = task.parse({**PROPS, **props}), stream, True
    for _ in range(3):
        with pytest.raises(RetriableError):
            task.poll()
        clock[0] += 3600


# -- the emitter ----------------------------------------------------------------------------------------------

Emitted = tuple[Route, Any, Any, bool]


def emit(
    how: str, *args: Any, skipped: str = "t", tombstones: str = "true", keyed: bool = True, by_event: bool = False
) -> list[Emitted]:
    shape = table(keyed=keyed, **{"skipped.operations": skipped, "tombstones.on.delete": tombstones})
    emitter = ChangeEmitter(shape_settings(skipped, tombstones).skipped, tombstones == "true", by_event=by_event)
    out: list[Emitted] = []
    getattr(emitter, how)(lambda *record: out.append(record), shape, *args, {"table": "t"})
    return out


def shape_settings(skipped: str, tombstones: str) -> CaptureSettings:
    return settings(**{"skipped.operations": skipped, "tombstones.on.delete": tombstones})


def summary(out: list[Emitted]) -> list[tuple[Any, ...]]:
    """(op or None for a tombstone, key, headers, last) of each record."""
    return [
        (value["op"] if value else None, key, [(h, v.value) for h, v in route[3]], last)
        for route, key, value, last in out
    ]


def test_creates_updates_and_deletes_are_one_record_each_and_a_delete_is_followed_by_its_tombstone() -> None:
    assert summary(emit("created", [1, "a"])) == [("c", {"id": 1}, [], True)]
    [(route, _key, value, _)] = emit("updated", [1, "a"], [1, "b"])
    assert (value["op"], value["before"], value["after"]) == ("u", {"id": 1, "name": "a"}, {"id": 1, "name": "b"})
    assert route[0] == "p.public.t" and route[2] is not None and route[2].name == "p.public.t.Envelope"
    assert summary(emit("updated", None, [1, "b"])) == [("u", {"id": 1}, [], True)]  # no old row: no before
    assert summary(emit("deleted", [1, "a"])) == [("d", {"id": 1}, [], False), (None, {"id": 1}, [], True)]
    assert summary(emit("deleted", [1, "a"], tombstones="false")) == [("d", {"id": 1}, [], True)]


def test_a_key_change_is_a_delete_with_the_new_key_its_tombstone_and_a_create_with_the_old_key() -> None:
    """PostgreSQL's rule (Debezium skips each record of it as its own operation)."""
    out = emit("updated", [1, "a"], [2, "a"])
    assert summary(out) == [
        ("d", {"id": 1}, [("__debezium.newkey", {"id": 2})], False),
        (None, {"id": 1}, [("__debezium.newkey", {"id": 2})], False),
        ("c", {"id": 2}, [("__debezium.oldkey", {"id": 1})], True),
    ]
    headers = out[0][0][3]
    assert isinstance(headers[0][1], SchemaAndValue) and headers[0][1].schema is not None
    # skipped.operations applies to each part as to any delete or create; `u` does not skip a key change
    assert [s[0] for s in summary(emit("updated", [1, "a"], [2, "a"], skipped="u"))] == ["d", None, "c"]
    assert summary(emit("updated", [1, "a"], [2, "a"], skipped="d")) == [
        ("c", {"id": 2}, [("__debezium.oldkey", {"id": 1})], True)
    ]
    assert [s[0] for s in summary(emit("updated", [1, "a"], [2, "a"], skipped="c"))] == ["d", None]
    assert summary(emit("updated", [1, "a"], [2, "a"], skipped="c"))[-1][3] is True  # the tombstone ends it
    # a table without a key: an update is an update
    assert [s[0] for s in summary(emit("updated", [1, "a"], [2, "a"], keyed=False))] == ["u"]


def test_skipping_by_event_as_debezium_s_mysql_connector_skips_a_key_change_with_u_only() -> None:
    """MySQL's rule: skipped.operations leaves out whole row events, so `u` skips a key change and `c` or `d`
    none of it."""
    whole = ["d", None, "c"]
    assert emit("updated", [1, "a"], [2, "a"], skipped="u", by_event=True) == []
    assert [s[0] for s in summary(emit("updated", [1, "a"], [2, "a"], skipped="c", by_event=True))] == whole
    assert [s[0] for s in summary(emit("updated", [1, "a"], [2, "a"], skipped="d", by_event=True))] == whole
    assert emit("created", [1, "a"], skipped="c", by_event=True) == []
    assert emit("deleted", [1, "a"], skipped="d", by_event=True) == []


def test_skipped_operations_leave_out_their_events_and_truncates_are_skipped_by_default() -> None:
    assert emit("created", [1, "a"], skipped="c") == []
    assert emit("updated", [1, "a"], [1, "b"], skipped="u") == []
    assert emit("deleted", [1, "a"], skipped="d") == []
    assert emit("truncated") == []
    [(route, key, value, last)] = emit("truncated", skipped="none")
    assert (value["op"], key, value["before"], value["after"], route[1], last) == ("t", None, None, None, None, True)


# -- the keys both connectors share ------------------------------------------------------------------------

MYSQL_PROPS = {
    "database.hostname": "db.example",
    "database.user": "cdc",
    "database.server.id": "5400",
    "topic.prefix": "shop",
    "schema.history.internal.kafka.topic": "history.shop",
}


@pytest.mark.parametrize(
    ("connector", "props", "database"),
    [(PostgresCdcConnector, PROPS, "PostgreSQL"), (MySqlCdcConnector, MYSQL_PROPS, "MySQL")],
)
def test_one_rule_for_debezium_keys_not_implemented_refused_when_they_change_data_warned_when_they_tune(
    connector: type[DebeziumConnector], props: dict[str, str], database: str, caplog: pytest.LogCaptureFixture
) -> None:
    refused = {"converters": "boolean", "provide.transaction.metadata": "true", "topic.delimiter": "_"}
    with pytest.raises(ConfigError) as failed:
        connector().parse_settings({**props, **refused})
    problems = failed.value.problems
    assert set(problems) == set(refused)
    assert problems["topic.delimiter"] == (
        "Debezium's topic.delimiter is not implemented by this connector, and it would change what is written: "
        "topics are always <topic.prefix>.<namespace>.<table>. Remove it (or set it to '.')"
    )
    # set to what the connector does anyway: accepted; tuning keys: one warning per connector, ignored
    harmless = {"provide.transaction.metadata": "false", "topic.delimiter": ".", "snapshot.fetch.size": "10"}
    with caplog.at_level(logging.WARNING):
        for _ in range(2):
            connector().start({**props, **harmless, "name": f"rule-{database}"})
    lines = [r.getMessage() for r in caplog.records if "does not implement" in r.getMessage()]
    assert lines == [
        f"Connector rule-{database}: snapshot.fetch.size is a Debezium {database} connector key this connector does "
        "not implement: ignored, as none changes a record it writes (docs/cdc.md)"
    ]
    assert set(connector().ignored_keys({**props, **harmless})) == set(harmless)


@pytest.mark.parametrize(
    ("connector", "props", "namespace"),
    [(PostgresCdcConnector, PROPS, "schema"), (MySqlCdcConnector, MYSQL_PROPS, "database")],
)
def test_include_and_exclude_lists_match_whole_names_ignoring_case_in_both(
    connector: type[DebeziumConnector], props: dict[str, str], namespace: str
) -> None:
    settings = connector().parse_settings(
        {
            **props,
            "table.include.list": r"Shop\.Customers,shop\.ORD.*",
            f"{namespace}.include.list": "SHOP",
            "column.exclude.list": r"shop\.customers\.EMAIL",
        }
    )
    assert settings.captures("shop", "customers") and settings.captures("SHOP", "orders_2024")
    assert not settings.captures("shop", "customers_old") and not settings.captures("other", "customers")
    assert not settings.keeps_column("shop", "Customers", "email") and settings.keeps_column("shop", "customers", "id")


@pytest.mark.parametrize(("connector", "props"), [(PostgresCdcConnector, PROPS), (MySqlCdcConnector, MYSQL_PROPS)])
def test_max_queue_size_must_be_larger_than_max_batch_size_as_debezium_requires(
    connector: type[DebeziumConnector], props: dict[str, str]
) -> None:
    with pytest.raises(ConfigError) as failed:
        connector().parse_settings({**props, "max.batch.size": "100", "max.queue.size": "100"})
    assert failed.value.problems == {
        "max.queue.size": "must be larger than max.batch.size (100), as Debezium requires; got 100"
    }
    settings = connector().parse_settings({**props, "max.batch.size": "10", "poll.interval.ms": "50"})
    assert (settings.max_batch, settings.max_queue, settings.poll_s) == (10, 8192, 0.05)


@pytest.mark.parametrize(("connector", "props"), [(PostgresCdcConnector, PROPS), (MySqlCdcConnector, MYSQL_PROPS)])
def test_the_kafka_signal_channel_requires_its_topic_with_one_partition(
    connector: type[DebeziumConnector], props: dict[str, str]
) -> None:
    """The worker creates `<topic.prefix>-signal` with one partition before the tasks start, and refuses to start
    the connector over one with more: the channel reads partition 0 only."""
    signal_topics = [
        t
        for t in connector().required_topics({**props, "signal.enabled.channels": "source,kafka"})
        if "signal" in t.name
    ]
    assert [(t.name, t.settings.partitions, t.cluster) for t in signal_topics] == [
        (f"{props['topic.prefix']}-signal", 1, None)
    ]
    assert "partition 0 alone is read" in signal_topics[0].why
    assert not [t for t in connector().required_topics(props) if "signal" in t.name]
