"""Debezium's incremental snapshot test cases (AbstractIncrementalSnapshotTest, the connectors' IT classes)
that both CDC connectors pass: `IncrementalSnapshotCases`, which test_incremental_snapshot_postgres.py and
test_incremental_snapshot_mysql.py run on their database. The task is polled in the test's thread
(`SnapshotDb.started`), so a signal inserted between polls lands at a known point of the snapshot."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections import Counter
from contextlib import closing
from typing import Any

import pytest

from tests.integration.incremental_helpers import (
    CLOSE,
    COLLECTIONS,
    MAXIMUM_KEY,
    OPEN,
    ROWS,
    SIGNAL_TABLE,
    SnapshotDb,
    final_rows,
    key,
    notes,
    poll_past,
    poll_until,
    poll_until_completed,
    read_keys,
    read_places,
    reads,
    sent_key,
    value,
    watermarks,
    windows,
)

ALL = [(n,) for n in range(1, ROWS + 1)]
STEPWISE = {"max.batch.size": "10"}
"""A poll hands on about a window's records: a signal inserted between polls lands a window or two after
the rows read so far (a poll with larger batches runs through many windows)."""


class Writer(threading.Thread):
    """A user's application meanwhile: inserts, updates and deletes rows of `a` (pk up to 1.2 ROWS) in
    transactions of one to three changes, on a connection of its own, until `stop` is set or `limit`
    transactions are committed."""

    def __init__(self, db: SnapshotDb, seed: int, limit: int = 1500) -> None:
        super().__init__(name="writer", daemon=True)
        self.db, self.rng, self.limit = db, random.Random(seed), limit
        self.present = set(range(1, ROWS + 1))
        self.stop = threading.Event()
        self.transactions = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with closing(self.db.connect()) as connection:
                while not self.stop.is_set() and self.transactions < self.limit:
                    with connection.cursor() as cursor:
                        for _ in range(self.rng.randint(1, 3)):
                            self._change(cursor)
                    connection.commit()
                    self.transactions += 1
                    time.sleep(0.002)  # pacing only: the snapshot's chunks and the changes interleave
        except BaseException as exc:  # handed to the test's thread by `finish`
            self.error = exc

    def _change(self, cursor: Any) -> None:
        pk = self.rng.randint(1, ROWS + ROWS // 5)
        if pk not in self.present:
            cursor.execute("INSERT INTO a VALUES (%s, %s)", (pk, -pk))
            self.present.add(pk)
        elif self.rng.random() < 0.3:
            cursor.execute("DELETE FROM a WHERE pk = %s", (pk,))
            self.present.discard(pk)
        else:
            cursor.execute("UPDATE a SET aa = aa + 100000 WHERE pk = %s", (pk,))

    def finish(self) -> None:
        self.stop.set()
        self.join(60)
        assert not self.is_alive(), "the writer did not stop"
        if self.error is not None:
            raise self.error


class IncrementalSnapshotCases:
    """The cases, run by a test module's `class Test...(IncrementalSnapshotCases)` with its `db` fixture (a
    `SnapshotDb`: PostgreSQL's or MariaDB's, `setup()` done)."""

    def test_inserts_updates_and_deletes_while_the_snapshot_runs_leave_the_topic_equal_to_the_table(
        self, db: SnapshotDb
    ) -> None:
        """Inserts, updates and deletes committed while the snapshot reads `a` in chunks of 10: the compacted
        topic ends equal to the table (a streamed change is never overwritten by an older copy of its row)."""
        topic = db.topic("a")
        with db.started() as h:
            db.snapshot(db.qualified("a"))
            writer = Writer(db, seed=57)
            writer.start()
            try:
                poll_until_completed(h, db)
            finally:
                writer.finish()
            records = poll_past(h, db, 1)  # every change of the writer streamed
        assert final_rows(records, topic) == db.table("a")
        read = read_places(records, topic)
        changed_meanwhile = [
            r for r in records[read[0] : read[-1]] if r.topic == topic and r.value is not None and r.value["op"] != "r"
        ]
        assert changed_meanwhile, "the writer's changes should have streamed while the snapshot read"
        keys = [key(records[i]) for i in read]
        twice = [k for k, n in Counter(keys).items() if n > 1]
        assert not twice, f"read more than once: {twice}"
        # up to the maximum key the table had when its first chunk was read (rows the writer inserted above
        # ROWS before that are read too), which the offsets carry
        maximum = int(json.loads((records[read[0]].source_offset or {})[MAXIMUM_KEY])[0])
        assert all(k is not None and k[0] <= maximum for k in keys)
        assert {value(records[i])["source"]["snapshot"] for i in read} == {"incremental"}
        # a row the stream changed while its chunk's window was open is not sent from the chunk
        won = [(read_, changed) for read_, changed in windows(records, db, topic) if read_ & changed]
        assert not won, won

    def test_chunks_of_one_row(self, db: SnapshotDb) -> None:
        """incremental.snapshot.chunk.size=1: a window per row, each read's offset naming its own key."""
        with db.started(**{"incremental.snapshot.chunk.size": "1"}) as h:
            db.snapshot(db.qualified("a"))
            records = poll_until_completed(h, db)
        rows = reads(records, db.topic("a"))
        assert [key(r) for r in rows] == ALL
        assert [sent_key(r) for r in rows] == [[str(n)] for n in range(1, ROWS + 1)]
        assert notes(records, db).count("IN_PROGRESS") == ROWS
        assert len(watermarks(records, db, OPEN)) == ROWS + 1  # and the last, empty one that ends the table

    def test_a_chunk_larger_than_the_table_reads_it_in_one_window(self, db: SnapshotDb) -> None:
        """A chunk larger than the table: every row read in the first window, between its two watermarks."""
        with db.started(**{"incremental.snapshot.chunk.size": str(5 * ROWS)}) as h:
            db.snapshot(db.qualified("a"))
            records = poll_until_completed(h, db)
        topic = db.topic("a")
        assert read_keys(records, topic) == ALL
        opens, closes = watermarks(records, db, OPEN), watermarks(records, db, CLOSE)
        assert len(opens) == len(closes) == 2  # the table's window, and the empty one that finds it done
        places = read_places(records, topic)
        assert opens[0] < places[0] and places[-1] < closes[0]
        assert notes(records, db) == ["STARTED", "IN_PROGRESS", "TABLE_SCAN_COMPLETED", "COMPLETED"]

    def test_additional_conditions_read_only_the_rows_they_keep(self, db: SnapshotDb) -> None:
        """`additional-conditions` on the table: only the rows its filter keeps are read."""
        table = db.qualified("a")
        with db.started() as h:
            db.snapshot(table, additional_conditions=[{"data-collection": table, "filter": "aa < 500"}])
            records = poll_until_completed(h, db)
        rows = reads(records, db.topic("a"))
        assert [key(r) for r in rows] == [(n,) for n in range(1, 501)]
        assert all(value(r)["after"]["aa"] == r.key["pk"] - 1 < 500 for r in rows)

    def test_a_regex_snapshots_every_table_it_matches(self, db: SnapshotDb) -> None:
        """One regex naming two tables: both are read, one after the other; a third, not matched, is not."""
        db.create("b", range(1, 101))
        db.create("c", range(1, 11))
        with db.started() as h:
            db.snapshot(f"{db.namespace}.[ab]")
            records = poll_until_completed(h, db)
        a, b = read_keys(records, db.topic("a")), read_keys(records, db.topic("b"))
        assert a == ALL and b == [(n,) for n in range(1, 101)]
        assert reads(records, db.topic("c")) == []
        in_a, in_b = read_places(records, db.topic("a")), read_places(records, db.topic("b"))
        assert in_a[-1] < in_b[0] or in_b[-1] < in_a[0]
        assert notes(records, db).count("TABLE_SCAN_COMPLETED") == 2
        assert notes(records, db).count("STARTED") == notes(records, db).count("COMPLETED") == 1

    def test_a_composite_primary_key_is_chunked_by_both_columns(self, db: SnapshotDb) -> None:
        """A table keyed by (pk1, pk2), read in chunks of 7 that end within a pk1: each row once, in key order,
        keyed by both columns; the rows changed before the snapshot read as they are."""
        db.run("CREATE TABLE a2 (pk1 int, pk2 int, aa int, PRIMARY KEY (pk1, pk2))")
        db.run("INSERT INTO a2 VALUES " + ", ".join(f"({i}, {j}, {i * 100 + j})" for i in range(10) for j in range(10)))
        with db.started(**{"incremental.snapshot.chunk.size": "7"}) as h:
            db.snapshot(db.qualified("a2"))
            db.run("UPDATE a2 SET aa = -1 WHERE pk1 = 5 AND pk2 = 5", "DELETE FROM a2 WHERE pk1 = 9 AND pk2 = 9")
            records = poll_until_completed(h, db)
        topic = db.topic("a2")
        assert read_keys(records, topic) == [(i, j) for i in range(10) for j in range(10) if (i, j) != (9, 9)]
        assert {tuple(r.key) for r in reads(records, topic)} == {("pk1", "pk2")}
        assert final_rows(records, topic) == db.table("a2", ("pk1", "pk2"))
        assert final_rows(records, topic)[(5, 5)] == -1

    def test_a_table_without_a_primary_key_is_refused_unless_a_surrogate_key_is_given(
        self, db: SnapshotDb, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A table without a primary key is skipped, the log naming it (and the snapshot completes); with a
        `surrogate-key` naming a unique column it is read, chunked by that column."""
        db.run("CREATE TABLE nopk (id int NOT NULL, aa int)")
        db.insert("nopk", range(1, 51))
        table, topic = db.qualified("nopk"), db.topic("nopk")
        with caplog.at_level(logging.WARNING), db.started() as h:
            db.snapshot(table)
            records = poll_until_completed(h, db)
            assert reads(records, topic) == []
            assert notes(records, db) == ["STARTED", "TABLE_SCAN_COMPLETED", "COMPLETED"]
            skipped = [
                r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and table in r.getMessage()
            ]
            assert skipped and "primary key" in skipped[0], caplog.text
            db.snapshot(table, surrogate_key="id")
            records = poll_until_completed(h, db, times=2)
        rows = reads(records, topic)
        assert [value(r)["after"]["id"] for r in rows] == list(range(1, 51))
        assert all(value(r)["after"]["aa"] == value(r)["after"]["id"] - 1 for r in rows)

    def test_a_stop_signal_ends_the_snapshot_keeping_what_was_read(self, db: SnapshotDb) -> None:
        """`stop-snapshot` mid-way: the rows read so far stay, no more are read, the offsets drop the snapshot."""
        topic = db.topic("a")
        with db.started(**STEPWISE) as h:
            db.snapshot(db.qualified("a"))
            poll_until(h, lambda rs: len(reads(rs, topic)) >= 30, "30 rows read")
            db.signal("stop-snapshot", {"data-collections": [db.qualified("a")], "type": "incremental"})
            poll_until(h, lambda rs: "ABORTED" in notes(rs, db), "the ABORTED notification")
            records = poll_past(h, db, 1)
        rows = read_keys(records, topic)
        assert 30 <= len(rows) < ROWS and rows == ALL[: len(rows)]
        aborted = next(
            i for i, r in enumerate(records) if r.topic == db.notifications and value(r)["type"] == "ABORTED"
        )
        assert read_places(records, topic)[-1] < aborted
        assert notes(records, db)[-1] == "ABORTED"
        assert COLLECTIONS not in (records[-1].source_offset or {})

    def test_pause_then_resume_reads_nothing_while_paused_and_every_row_once(self, db: SnapshotDb) -> None:
        """`pause-snapshot`: the window open closes, then no row is read while the stream goes on;
        `resume-snapshot`: the snapshot reads on from there, every row once."""
        topic = db.topic("a")
        with db.started(**STEPWISE) as h:
            db.snapshot(db.qualified("a"))
            poll_until(h, lambda rs: len(reads(rs, topic)) >= 30, "30 rows read")
            db.signal("pause-snapshot")
            poll_until(h, lambda rs: "PAUSED" in notes(rs, db), "the PAUSED notification")
            paused = len(reads(poll_past(h, db, 1), topic))
            records = poll_past(h, db, 2)  # the stream went on past a change committed while paused
            assert len(reads(records, topic)) == paused < ROWS
            assert COLLECTIONS in (records[-1].source_offset or {})  # still in progress
            db.signal("resume-snapshot")
            records = poll_until_completed(h, db)
        assert read_keys(records, topic) == ALL
        kinds = notes(records, db)
        assert kinds.index("PAUSED") < kinds.index("RESUMED") < kinds.index("COMPLETED")

    def test_a_second_execute_snapshot_while_one_runs_queues_its_tables(self, db: SnapshotDb) -> None:
        """An `execute-snapshot` of `b` while `a`'s runs: `b` is queued and read after `a`, in the same snapshot."""
        db.create("b", range(1, 101))
        with db.started(**STEPWISE) as h:
            db.snapshot(db.qualified("a"))
            poll_until(h, lambda rs: len(reads(rs, db.topic("a"))) >= 30, "30 rows read")
            db.snapshot(db.qualified("b"))
            records = poll_until_completed(h, db)
        assert read_keys(records, db.topic("a")) == ALL
        assert read_keys(records, db.topic("b")) == [(n,) for n in range(1, 101)]
        assert read_places(records, db.topic("a"))[-1] < read_places(records, db.topic("b"))[0]
        kinds = notes(records, db)
        assert (kinds.count("STARTED"), kinds.count("TABLE_SCAN_COMPLETED"), kinds.count("COMPLETED")) == (1, 2, 1)

    @pytest.mark.parametrize("strategy", ["insert_insert", "insert_delete"])
    def test_the_watermarking_strategy_decides_what_stays_in_the_signal_table(
        self, db: SnapshotDb, strategy: str
    ) -> None:
        """incremental.snapshot.watermarking.strategy: `insert_insert` leaves each window's two watermark rows
        in the signal table, `insert_delete` none (the open one deleted closes the window)."""
        with db.started(**{"incremental.snapshot.watermarking.strategy": strategy}) as h:
            db.snapshot(db.qualified("a"))
            records = poll_until_completed(h, db)
        assert read_keys(records, db.topic("a")) == ALL
        left = dict(db.query(f"SELECT type, count(*) FROM {SIGNAL_TABLE} GROUP BY type"))
        windows = ROWS // 10 + 1
        if strategy == "insert_delete":
            assert left == {"execute-snapshot": 1}
        else:
            assert left == {"execute-snapshot": 1, OPEN: windows, CLOSE: windows}
