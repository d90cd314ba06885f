"""What the incremental snapshot tests of both CDC connectors share (test_incremental_snapshot_postgres.py,
test_incremental_snapshot_mysql.py): a database as the tests see it (`SnapshotDb`: PostgreSQL's or
MariaDB's), the signals written to its signal table, a task polled until a condition holds, and the records
read back as a user sees them: a compacted topic's rows, the reads of a snapshot, the notifications.

The tests follow Debezium's AbstractIncrementalSnapshotTest: a table `a` of ROWS rows `pk = 1..ROWS`,
`aa = pk - 1`, the connector streaming from the start (`snapshot.mode=no_data`), chunks of 10 rows unless a
test says otherwise, the notifications sent to a topic of their own."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from connectworker.api.record import SourceRecord
from connectworker.testing import TaskHarness
from tests.integration.harness import wait_until

ROWS = 1000
JSON = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "false",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
}
WORKER = {**JSON, "topic.creation.enable": "true"}
"""A worker's props of these tests: JSON without schemas, the topics created by the connector's rules
(`ONE_PARTITION`: a topic's records read back in the order they were sent)."""
ONE_PARTITION = {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}
SIGNAL_TABLE = "debezium_signal"
SIGNAL_DDL = f"CREATE TABLE {SIGNAL_TABLE} (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))"
OPEN, CLOSE = "snapshot-window-open", "snapshot-window-close"
PRIMARY_KEY = "incremental_snapshot_primary_key"
MAXIMUM_KEY = "incremental_snapshot_maximum_key"
COLLECTIONS = "incremental_snapshot_collections"


@dataclass(frozen=True)
class SnapshotDb:
    """A test's database: its namespace (PostgreSQL's schema, MariaDB's database), the connector's
    topic.prefix, a transactional DB-API connection to it (`connect`, `%s` parameters) and the connector's
    task on it (`task(**props)`: the database's connector props with `props` on top)."""

    namespace: str
    prefix: str
    connect: Callable[[], Any]
    task: Callable[..., TaskHarness]
    connector: Callable[..., dict[str, str]]  # (bootstrap, **props): the connector's props for a worker
    streaming: Callable[[str], None]  # (bootstrap): waits until a worker's task streams

    def qualified(self, table: str) -> str:
        return f"{self.namespace}.{table}"

    def topic(self, table: str) -> str:
        return f"{self.prefix}.{self.namespace}.{table}"

    @property
    def notifications(self) -> str:
        return f"{self.prefix}.notifications"

    def run(self, *statements: str | tuple[str, Sequence[Any]]) -> None:
        """The statements (a text, or a text and its parameters) in one transaction."""
        with closing(self.connect()) as connection:
            with connection.cursor() as cursor:
                for statement in statements:
                    text, params = (statement, ()) if isinstance(statement, str) else statement
                    cursor.execute(text, params)
            connection.commit()

    def query(self, statement: str) -> list[tuple[Any, ...]]:
        with closing(self.connect()) as connection:
            with connection.cursor() as cursor:
                cursor.execute(statement)
                rows = list(cursor.fetchall())
            connection.commit()
        return rows

    def create(self, table: str, rows: Iterable[int] = range(1, ROWS + 1)) -> None:
        """A table `(pk int PRIMARY KEY, aa int)` holding (n, n - 1) for each of `rows`."""
        self.run(f"CREATE TABLE {table} (pk int PRIMARY KEY, aa int)")
        self.insert(table, rows)

    def insert(self, table: str, rows: Iterable[int]) -> None:
        values = ", ".join(f"({n}, {n - 1})" for n in rows)
        if values:
            self.run(f"INSERT INTO {table} VALUES {values}")

    def signal(self, kind: str, data: Mapping[str, Any] | None = None, id_: str | None = None) -> str:
        """A signal row inserted into the signal table (the `source` channel); its id."""
        id_ = id_ or f"ad-hoc-{uuid.uuid4().hex[:8]}"
        text = json.dumps(data) if data is not None else None
        self.run((f"INSERT INTO {SIGNAL_TABLE} VALUES (%s, %s, %s)", (id_, kind, text)))
        return id_

    def snapshot(self, *tables: str, **data: Any) -> str:
        """An `execute-snapshot` signal for `tables` (regexes of `<namespace>.<table>`), with `data`'s other
        fields (`additional-conditions`, `surrogate-key`: written with dashes)."""
        extra = {name.replace("_", "-"): value for name, value in data.items()}
        return self.signal("execute-snapshot", {"data-collections": list(tables), **extra})

    def table(self, table: str, keys: Sequence[str] = ("pk",)) -> dict[tuple[Any, ...], Any]:
        """The table's rows now, as `final_rows` gives a topic's: key -> aa."""
        rows = self.query(f"SELECT {', '.join(keys)}, aa FROM {table}")
        return {tuple(row[:-1]): row[-1] for row in rows}

    def setup(self) -> None:
        """The tables every test has: `a` (ROWS rows), `m` (empty: `poll_past`'s markers), the signal table."""
        self.create("a")
        self.run("CREATE TABLE m (pk int PRIMARY KEY, aa int)", SIGNAL_DDL)

    def props(self, **overrides: str) -> dict[str, str]:
        """The connector's props of these tests, with `overrides` on top."""
        return {
            "snapshot.mode": "no_data",
            "signal.data.collection": self.qualified(SIGNAL_TABLE),
            "incremental.snapshot.chunk.size": "10",
            "notification.enabled.channels": "sink",
            "notification.sink.topic.name": self.notifications,
            "poll.interval.ms": "100",
            **overrides,
        }

    def started(self, **overrides: str) -> TaskHarness:
        """The task on this database with the tests' props and `overrides` (started by `with`)."""
        return self.task(**self.props(**overrides))

    def worker_props(self, bootstrap: str, **overrides: str) -> dict[str, str]:
        """The connector's props for a worker, with the tests' props and `overrides`."""
        return self.connector(bootstrap, **ONE_PARTITION, **self.props(**overrides))


# -- polling -------------------------------------------------------------------------------------
def poll_until(
    h: TaskHarness, done: Callable[[list[SourceRecord]], bool], what: str, timeout: float = 180
) -> list[SourceRecord]:
    """Poll the task until `done(every record so far)`; the records. (`timeout` only bounds a failing test.)"""

    def step() -> bool:
        h.poll()
        return done(h.records)

    wait_until(step, timeout, lambda: f"{what} ({len(h.records)} records polled)")
    return list(h.records)


def poll_until_completed(h: TaskHarness, db: SnapshotDb, times: int = 1) -> list[SourceRecord]:
    """Poll until the `times`-th COMPLETED notification."""
    return poll_until(h, lambda rs: notes(rs, db).count("COMPLETED") >= times, "the snapshot's COMPLETED")


def poll_past(h: TaskHarness, db: SnapshotDb, marker: int) -> list[SourceRecord]:
    """A row `marker` inserted into the table `m` (`setup` makes it), polled until its record came: whatever
    was committed before it has been streamed, and whatever the task does on the way has been done."""
    db.insert("m", [marker])
    topic = db.topic("m")
    return poll_until(h, lambda rs: any(r.topic == topic and key(r) == (marker,) for r in rs), f"marker {marker}")


# -- what the records show -----------------------------------------------------------------------
def key(record: SourceRecord) -> tuple[Any, ...] | None:
    return tuple(record.key.values()) if isinstance(record.key, Mapping) else None


def value(record: SourceRecord) -> Mapping[str, Any]:
    assert isinstance(record.value, Mapping), record
    return record.value


def read_places(records: Sequence[SourceRecord], topic: str) -> list[int]:
    """The places (indexes in `records`) of the snapshot's reads (`op: r`) of `topic`."""
    return [
        i for i, r in enumerate(records) if r.topic == topic and isinstance(r.value, Mapping) and r.value["op"] == "r"
    ]


def reads(records: Sequence[SourceRecord], topic: str) -> list[SourceRecord]:
    """The snapshot's reads of `topic`, in order."""
    return [records[i] for i in read_places(records, topic)]


def read_keys(records: Sequence[SourceRecord], topic: str) -> list[tuple[Any, ...] | None]:
    return [key(r) for r in reads(records, topic)]


def final_rows(records: Iterable[SourceRecord], topic: str) -> dict[tuple[Any, ...], Any]:
    """What a compacted `topic` keeps: each key's last `after.aa`, the keys whose last record is a delete or a
    tombstone left out."""
    rows: dict[tuple[Any, ...], Any] = {}
    for r in records:
        k = key(r)
        if r.topic != topic or k is None:
            continue
        if r.value is None or r.value["op"] == "d":
            rows.pop(k, None)
        else:
            rows[k] = r.value["after"]["aa"]
    return rows


def notes(records: Iterable[SourceRecord], db: SnapshotDb) -> list[str]:
    """The types of the notifications sent (STARTED, IN_PROGRESS, ...), in order."""
    return [value(r)["type"] for r in records if r.topic == db.notifications]


def watermarks(records: Iterable[SourceRecord], db: SnapshotDb, kind: str) -> list[int]:
    """The places (indexes in `records`) of the signal table's records of the watermarks of `kind`."""
    topic = db.topic(SIGNAL_TABLE)
    return [
        i
        for i, r in enumerate(records)
        if r.topic == topic and isinstance(r.value, Mapping) and (r.value["after"] or {}).get("type") == kind
    ]


def windows(records: Iterable[SourceRecord], db: SnapshotDb, topic: str) -> list[tuple[set[Any], set[Any]]]:
    """Each window that the signal table's watermark records delimit (open ... close), in order: the keys of
    `topic` read in it (its chunk's rows, sent before the close) and those the stream changed within it."""
    out: list[tuple[set[Any], set[Any]]] = []
    window: tuple[set[Any], set[Any]] | None = None
    for r in records:
        if r.topic == db.topic(SIGNAL_TABLE) and isinstance(r.value, Mapping) and r.value["after"]:
            kind = r.value["after"]["type"]
            if kind == OPEN:
                window = (set(), set())
            elif kind == CLOSE and window is not None:
                out.append(window)
                window = None
        elif window is not None and r.topic == topic and isinstance(r.value, Mapping):
            window[0 if r.value["op"] == "r" else 1].add(key(r))
    return out


def sent_key(record: SourceRecord) -> list[str]:
    """The key of the last row sent that a record's offset holds, as texts (PostgreSQL keeps the database's
    texts, MySQL its values)."""
    assert record.source_offset is not None
    return [str(v) for v in json.loads(record.source_offset[PRIMARY_KEY])]
