"""The incremental snapshot's engine (connectors/debezium/incremental_snapshot.py) against a fake database:
the chunks between watermarks, a streamed change winning over the chunk's copy, the offsets' state and a
restart from it, stale watermarks, stop / pause / resume, the tables it skips, malformed signals, and the
notifications, as Debezium's AbstractIncrementalSnapshotTest and DDD-3 describe them."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from connectworker.api.errors import ConnectError
from connectworker.api.schema import Schema, SchemaType
from connectworker.connectors.debezium.chunk_fetch import ChunkFetcher
from connectworker.connectors.debezium.chunk_reader import ChunkQuery
from connectworker.connectors.debezium.column_types import ColumnType
from connectworker.connectors.debezium.incremental_snapshot import IncrementalSnapshot
from connectworker.connectors.debezium.signal_types import Notification, Signal
from connectworker.connectors.debezium.snapshot_requests import CLOSE, OPEN
from connectworker.connectors.debezium.table_shape import ShapeColumn, TableShape
from connectworker.connectors.postgres_cdc.settings import parse_settings

PROPS = {"database.hostname": "h", "database.dbname": "d", "database.user": "u", "topic.prefix": "p"}
INT = ColumnType(Schema(SchemaType.INT32), int)
SOURCE = Schema.struct("test.Source", ("table", Schema(SchemaType.STRING)))


def shape(name: str, keyed: bool = True) -> TableShape:
    columns = [ShapeColumn(0, "pk", INT, False, 1 if keyed else 0), ShapeColumn(1, "aa", INT, True)]
    return TableShape(parse_settings(PROPS), "s", name, columns, SOURCE)


class FakeDatabase:
    """Tables of rows (pk, aa) and a signal table; records the watermarks written."""

    def __init__(self, **tables: list[int]) -> None:
        self.rows = {f"s.{name}": {pk: pk - 1 for pk in pks} for name, pks in tables.items()}
        self.shapes = {f"s.{name}": shape(name, keyed=name != "nokey") for name in tables}
        self.watermarks: list[tuple[bool, str, str]] = []
        self.fail_watermarks = False
        self.fail_select = False
        self.gate: threading.Event | None = None  # set: a SELECT waits for it

    def tables(self) -> Sequence[str]:
        return list(self.rows)

    def shape(self, table: str, fresh: bool = True) -> TableShape | None:
        return self.shapes.get(table)

    def max_key(self, shape: TableShape, columns: Sequence[str], condition: str | None) -> tuple[Any, ...] | None:
        keys = self._keys(shape, condition)
        return (max(keys),) if keys else None

    def chunk(self, shape: TableShape, query: ChunkQuery) -> Any:
        if self.gate is not None:
            assert self.gate.wait(10), "the test never let the SELECT finish"
        if self.fail_select:
            raise RuntimeError('column "nope" does not exist')
        after, upto = query.after, query.upto
        keys = [k for k in self._keys(shape, query.condition) if (after is None or k > after[0]) and k <= upto[0]]
        table = self.rows[f"{shape.namespace}.{shape.table}"]
        return [([k, table[k]], (k,)) for k in keys[: query.limit]]

    def _keys(self, shape: TableShape, condition: str | None) -> list[int]:
        keys = sorted(self.rows[f"{shape.namespace}.{shape.table}"])
        return [k for k in keys if condition is None or eval(condition, {"pk": k})]  # a Python "filter"

    def write_watermark(self, insert: bool, id: str, kind: str, data: str) -> None:
        if self.fail_watermarks:
            raise RuntimeError("permission denied for table debezium_signal")
        self.watermarks.append((insert, id, kind))

    def source(self, shape: TableShape) -> dict[str, Any]:
        return {"table": shape.table}


class Run:
    """The engine with a fake stream: records sent (route, key, value), notifications, offsets' states."""

    def __init__(self, db: FakeDatabase, **options: Any) -> None:
        self.db, self.sent, self.notifications, self.offsets = db, [], [], []
        self.engine = IncrementalSnapshot("p", "s.debezium_signal", notify=self._notify, **options)
        self.engine.reader = db

    def _notify(self, sink: Any, notification: Notification) -> None:
        self.notifications.append(notification)

    def sink(self, route: Any, key: Any, value: Any, last: bool) -> None:
        self.sent.append((route[0], key, value))
        self.offsets.append(dict(self.engine.offset_state()))

    def signal(self, kind: str, data: dict[str, Any] | None = None, id_: str = "ad-hoc") -> None:
        self.engine.signal(self.sink, Signal(id_, kind, json.dumps(data) if data is not None else None, "source"))

    def stream_watermarks(self, *, between: Any = None, key_only_deletes: bool = False) -> None:
        """The stream delivers the watermarks written so far, in order, with `between()` run after an open;
        `key_only_deletes`: a delete's before holds the id alone (PostgreSQL without REPLICA IDENTITY FULL)."""
        while self._settled() and self.db.watermarks:
            insert, id_, kind = self.db.watermarks.pop(0)
            row = {"id": id_, "type": kind, "data": "{}"}
            if not insert and key_only_deletes:
                row = {"id": id_, "type": None, "data": None}
            self.engine.seen(self.sink, shape("debezium_signal"), "c" if insert else "d", row, {"id": id_})
            if kind == OPEN and insert and between is not None:
                between()
                between = None

    def _settled(self) -> bool:
        """A table's next chunk is read on a thread of its own: its watermarks are written once it is done."""
        fetch = self.engine._window.fetch
        if fetch is not None:
            fetch.wait(10)
        return True

    def reads(self) -> list[int]:
        return [value["after"]["pk"] for _, _, value in self.sent if value is not None and value.get("op") == "r"]

    def types(self) -> list[str]:
        return [n.type for n in self.notifications]


def test_a_table_is_sent_in_chunks_between_watermarks_then_the_snapshot_completes() -> None:
    run = Run(FakeDatabase(a=list(range(1, 26))), chunk_size=10)
    run.signal("execute-snapshot", {"data-collections": ["s\\.a"]})
    assert [(kind) for _, _, kind in run.db.watermarks] == [OPEN, CLOSE]
    run.stream_watermarks()
    assert run.reads() == list(range(1, 26))
    assert {value["source"]["snapshot"] for _, _, value in run.sent} == {"incremental"}
    assert run.types() == ["STARTED", "IN_PROGRESS", "IN_PROGRESS", "IN_PROGRESS", "TABLE_SCAN_COMPLETED", "COMPLETED"]
    completed = run.notifications[-2].additional_data
    assert completed == {
        "connector_name": "p",
        "data_collections": "s.a",
        "scanned_collection": "s.a",
        "total_rows_scanned": "25",
        "status": "SUCCEEDED",
    }
    assert run.notifications[1].additional_data["maximum_key"] == "25"
    assert run.notifications[1].additional_data["last_processed_key"] == "10"
    assert {n.id for n in run.notifications} == {"ad-hoc"}
    assert not run.engine.active and run.engine.offset_state() == {}


def test_each_read_s_offset_names_its_own_key_so_a_restart_reads_on_after_it() -> None:
    db = FakeDatabase(a=list(range(1, 26)))
    run = Run(db, chunk_size=10)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})
    run.stream_watermarks()
    state = run.offsets[13]  # the offset of the 14th row sent (key 14)
    assert json.loads(state["incremental_snapshot_primary_key"]) == [14]
    assert json.loads(state["incremental_snapshot_maximum_key"]) == [25]
    assert json.loads(state["incremental_snapshot_collections"]) == [
        {
            "incremental_snapshot_collections_id": "s.a",
            "incremental_snapshot_collections_additional_condition": None,
            "incremental_snapshot_collections_surrogate_key": None,
            "incremental_snapshot_collections_correlation_id": "ad-hoc",
        }
    ]
    restarted = Run(FakeDatabase(a=list(range(1, 26))), chunk_size=10)
    restarted.engine.restore(state)
    restarted.engine.resume(restarted.sink)
    restarted.stream_watermarks()
    assert restarted.reads() == list(range(15, 26))  # the rows Kafka had are not read again


def test_a_change_streamed_inside_the_window_wins_over_the_chunk_s_copy() -> None:
    db = FakeDatabase(a=list(range(1, 11)))
    run = Run(db, chunk_size=10)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})

    def streamed_meanwhile() -> None:  # the stream's update of row 4 and delete of row 7, inside the window
        run.engine.seen(run.sink, db.shapes["s.a"], "u", {"pk": 4, "aa": 1000}, {"pk": 4})
        run.engine.seen(run.sink, db.shapes["s.a"], "d", {"pk": 7, "aa": 6}, {"pk": 7})

    run.stream_watermarks(between=streamed_meanwhile)
    assert run.reads() == [1, 2, 3, 5, 6, 8, 9, 10]


def deliver_one(run: Run) -> str:
    """The stream brings back the next watermark written (waiting for a chunk's thread to write it)."""
    deadline = time.monotonic() + 10
    while not run.db.watermarks:
        assert time.monotonic() < deadline, "no watermark written"
        time.sleep(0.001)
    _insert, id_, kind = run.db.watermarks.pop(0)
    run.engine.seen(run.sink, shape("debezium_signal"), "c", {"id": id_, "type": kind, "data": "{}"}, {"id": id_})
    return kind


def test_a_change_streamed_while_the_next_chunk_is_still_being_read_on_its_thread_wins_over_its_copy() -> None:
    db = FakeDatabase(a=list(range(1, 11)))
    run = Run(db, chunk_size=5)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})  # the first chunk, read by the task itself
    db.gate = threading.Event()  # the next SELECT waits: its window opens before its rows arrive
    assert [deliver_one(run), deliver_one(run)] == [OPEN, CLOSE] and run.reads() == [1, 2, 3, 4, 5]
    assert deliver_one(run) == OPEN  # written by the chunk's thread, which is in its SELECT now
    run.engine.seen(run.sink, db.shapes["s.a"], "u", {"pk": 7, "aa": 1000}, {"pk": 7})
    assert run.engine._window.fetch is not None and not db.watermarks  # no close before the rows are read
    db.gate.set()
    assert deliver_one(run) == CLOSE
    assert run.reads() == [1, 2, 3, 4, 5, 6, 8, 9, 10]  # row 7: the stream's copy (not sent by this fake stream)
    run.stream_watermarks()
    assert run.types()[-1] == "COMPLETED" and run.reads() == [1, 2, 3, 4, 5, 6, 8, 9, 10]


def test_a_watermark_the_chunk_s_thread_cannot_write_fails_the_task_at_its_next_poll() -> None:
    db = FakeDatabase(a=list(range(1, 11)))
    run = Run(db, chunk_size=5)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})
    db.fail_watermarks = True  # revoked after the first chunk
    assert [deliver_one(run), deliver_one(run)] == [OPEN, CLOSE]
    fetch = run.engine._window.fetch
    assert fetch is not None
    fetch.wait(10)
    with pytest.raises(ConnectError, match=r"signal table s\.debezium_signal .*needs INSERT on it"):
        run.engine.act(run.sink)


def test_a_select_failing_on_the_chunk_s_thread_skips_the_table_at_the_window_s_close() -> None:
    db = FakeDatabase(a=list(range(1, 11)))
    run = Run(db, chunk_size=5)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})
    db.fail_select = True  # the table is dropped after its first chunk, say
    run.stream_watermarks()
    assert run.reads() == [1, 2, 3, 4, 5] and run.types()[-2:] == ["TABLE_SCAN_COMPLETED", "COMPLETED"]
    assert run.notifications[-2].additional_data["status"] == "SQL_EXCEPTION"


def test_a_change_streamed_before_the_window_opens_leaves_the_chunk_whole() -> None:
    db = FakeDatabase(a=list(range(1, 6)))
    run = Run(db, chunk_size=10)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})
    run.engine.seen(run.sink, db.shapes["s.a"], "u", {"pk": 4, "aa": 1000}, {"pk": 4})  # before the open
    run.stream_watermarks()
    assert run.reads() == [1, 2, 3, 4, 5]


def test_a_stale_watermark_replayed_after_a_restart_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    run = Run(FakeDatabase(a=[1, 2, 3]), chunk_size=10)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})
    with caplog.at_level(logging.INFO):
        run.signal(CLOSE, id_="00000000-old-chunk-close")
    assert run.reads() == [] and "expected" in caplog.text
    run.stream_watermarks()
    assert run.reads() == [1, 2, 3]


def test_several_tables_by_regex_with_conditions_a_surrogate_key_and_skipped_tables() -> None:
    db = FakeDatabase(a=[1, 2, 3, 4], b=[5, 6, 7, 8], empty=[], nokey=[1])
    run = Run(db, chunk_size=2)
    run.signal(
        "execute-snapshot",
        {
            "data-collections": ["s\\.(a|b)", "s.empty", "s.nokey", "s.missing"],
            "additional-conditions": [{"data-collection": "S.B", "filter": "pk % 2 == 0"}],
        },
    )
    run.stream_watermarks()
    assert run.reads() == [1, 2, 3, 4, 6, 8]
    statuses = [
        (n.additional_data["scanned_collection"], n.additional_data["status"])
        for n in run.notifications
        if n.type == "TABLE_SCAN_COMPLETED"
    ]
    assert statuses == [
        ("s.a", "SUCCEEDED"),
        ("s.b", "SUCCEEDED"),
        ("s.empty", "EMPTY"),
        ("s.nokey", "NO_PRIMARY_KEY"),
        ("s.missing", "UNKNOWN_SCHEMA"),
    ]
    surrogate = Run(FakeDatabase(nokey=[3, 1, 2]), chunk_size=10)
    surrogate.signal("execute-snapshot", {"data-collections": ["s.nokey"], "surrogate-key": "pk"})
    surrogate.stream_watermarks()
    assert surrogate.reads() == [1, 2, 3]


def test_stop_pause_and_resume_as_debezium_s_signals() -> None:
    run = Run(FakeDatabase(a=list(range(1, 31)), b=[1, 2]), chunk_size=10)
    run.signal("execute-snapshot", {"data-collections": ["s.a", "s.b"]})
    run.signal("pause-snapshot")
    run.stream_watermarks()  # the window open at the pause closes: its rows are sent, no new chunk is read
    assert run.reads() == list(range(1, 11)) and run.db.watermarks == []
    run.signal("resume-snapshot")
    run.stream_watermarks()
    assert run.reads()[-1] == 2 and len(run.reads()) == 32
    stopped = Run(FakeDatabase(a=list(range(1, 31))), chunk_size=10)
    stopped.signal("execute-snapshot", {"data-collections": ["s.a"]})
    stopped.signal("stop-snapshot", {"data-collections": ["s.a"], "type": "incremental"})
    stopped.stream_watermarks()
    assert stopped.reads() == list(range(1, 11)) and not stopped.engine.active
    assert stopped.types()[-1] == "ABORTED" and stopped.notifications[-1].additional_data["data_collections"] == "s.a"
    assert run.types().count("PAUSED") == 1 and run.types().count("RESUMED") == 1


@pytest.mark.parametrize(
    ("kind", "data", "logged"),
    [
        ("no-such-signal", "{}", "the type 'no-such-signal' is not recognized"),
        ("execute-snapshot", "{not json", "cannot be parsed"),
        ("execute-snapshot", "{}", "'data-collections' is missing from data or is empty"),
        ("execute-snapshot", '{"data-collections": [1]}', "contains a non-string data collection"),
        ("execute-snapshot", '{"data-collections": ["s.a"], "type": "sideways"}', "unexpected snapshot type"),
        ("log", "{}", "'message' is missing from data"),
    ],
)
def test_a_malformed_signal_is_logged_with_its_id_and_skipped(
    kind: str, data: str, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    run = Run(FakeDatabase(a=[1]))
    with caplog.at_level(logging.WARNING):
        run.engine.signal(run.sink, Signal("sig-7", kind, data, "kafka"))
    assert logged in caplog.text and not run.engine.active and run.db.watermarks == []


def test_a_watermark_the_user_may_not_write_fails_the_task_naming_the_table_and_the_grant() -> None:
    db = FakeDatabase(a=[1])
    db.fail_watermarks = True
    run = Run(db, insert_delete=True)
    with pytest.raises(
        ConnectError, match=r"signal table s\.debezium_signal \(signal\.data\.collection\).*INSERT and DELETE"
    ):
        run.signal("execute-snapshot", {"data-collections": ["s.a"]})


def test_a_chunk_the_database_refuses_skips_the_table_and_the_stream_goes_on() -> None:
    db = FakeDatabase(a=[1, 2])
    db.fail_select = True
    run = Run(db)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})
    run.stream_watermarks()
    assert run.reads() == [] and run.types()[-2:] == ["TABLE_SCAN_COMPLETED", "COMPLETED"]
    assert run.notifications[-2].additional_data["status"] == "SQL_EXCEPTION"


@pytest.mark.parametrize("key_only", [False, True])
def test_insert_delete_closes_the_window_with_the_open_watermark_s_delete(key_only: bool) -> None:
    run = Run(FakeDatabase(a=[1, 2, 3]), insert_delete=True)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})
    assert [(insert, kind) for insert, _, kind in run.db.watermarks] == [(True, OPEN), (False, OPEN)]
    run.stream_watermarks(key_only_deletes=key_only)
    assert run.reads() == [1, 2, 3]


def test_a_task_stopping_while_a_chunk_is_read_waits_for_it_and_leaves_no_thread_behind() -> None:
    db = FakeDatabase(a=list(range(1, 11)))
    run = Run(db, chunk_size=5)
    run.signal("execute-snapshot", {"data-collections": ["s.a"]})
    db.gate = threading.Event()
    assert [deliver_one(run), deliver_one(run)] == [OPEN, CLOSE]  # the next chunk's SELECT now waits on its thread
    threading.Timer(0.05, db.gate.set).start()  # the database answers while the task is stopping
    run.engine.close()  # returns once the chunk's thread let go of the connection (the stream closes it next)
    assert [kind for _, _, kind in db.watermarks] == [OPEN, CLOSE]
    deadline = time.monotonic() + ChunkFetcher.IDLE_S / 2  # gone at the close, not after idling
    while run.engine._window.fetcher.running:
        assert time.monotonic() < deadline, "the chunk thread outlived the task"
        time.sleep(0.01)
