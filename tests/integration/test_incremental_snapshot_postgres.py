"""Incremental snapshots on PostgreSQL (debezium/incremental_snapshot.py): a table re-read in chunks on an
`execute-snapshot` signal while its changes keep streaming, as Debezium's AbstractIncrementalSnapshotTest and
PostgreSQL's IncrementalSnapshotIT try it: ROWS rows `pk = 1..N`, `aa = pk - 1`, the connector streaming
(`snapshot.mode=no_data`). The cases both connectors share are in incremental_scenarios.py and
incremental_worker_scenarios.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.cdc_helpers import CdcDatabase, cdc_database, harness
from tests.integration.harness import wait_until
from tests.integration.incremental_helpers import (
    ROWS,
    SnapshotDb,
    final_rows,
    key,
    poll_until_completed,
    reads,
    value,
)
from tests.integration.incremental_scenarios import IncrementalSnapshotCases
from tests.integration.incremental_worker_scenarios import IncrementalSnapshotWorkerCases
from tests.postgres import Postgres


@pytest.fixture
def pg(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        yield database


@pytest.fixture
def db(pg: CdcDatabase) -> SnapshotDb:
    def connect() -> Any:
        connection = pg.connect()
        connection.autocommit = False
        return connection

    def streaming(bootstrap: str) -> None:
        """The worker's task reads its slot: changes from now on are streamed."""
        query = f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{pg.slot}' AND active"
        wait_until(lambda: pg.query(query) == [(1,)], 30, "the slot read")

    database = SnapshotDb(
        namespace="public",
        prefix=pg.name,
        connect=connect,
        task=lambda **props: harness(pg, **props),
        connector=lambda bootstrap, **props: pg.props(**props),
        streaming=streaming,
    )
    database.setup()
    return database


def test_a_signal_snapshots_the_table_in_chunks_as_incremental_reads(db: SnapshotDb) -> None:
    with db.started() as h:
        db.snapshot(db.qualified("a"))
        records = poll_until_completed(h, db)
    rows = reads(records, db.topic("a"))
    assert [key(r) for r in rows] == [(n,) for n in range(1, ROWS + 1)]
    assert {value(r)["source"]["snapshot"] for r in rows} == {"incremental"}
    assert all(value(r)["before"] is None and value(r)["after"]["aa"] == r.key["pk"] - 1 for r in rows)
    assert value(rows[0])["source"]["lsn"] is None and value(rows[0])["source"]["txId"] is None
    assert "incremental_snapshot_collections" in (rows[0].source_offset or {})


def test_changes_during_the_snapshot_win_over_the_chunks_copies(db: SnapshotDb) -> None:
    with db.started(**{"incremental.snapshot.chunk.size": "5"}) as h:
        db.snapshot(db.qualified("a"))
        for n in range(1, ROWS + 1, 7):
            db.run(f"UPDATE a SET aa = {n + 1000} WHERE pk = {n}")
        db.run("DELETE FROM a WHERE pk IN (3, 50, 99)", f"INSERT INTO a VALUES ({ROWS + 1}, 0)")
        records = poll_until_completed(h, db)
    expected = {(n,): n - 1 for n in range(1, ROWS + 1)}
    expected.update({(n,): n + 1000 for n in range(1, ROWS + 1, 7)})
    expected.update({(ROWS + 1,): 0})
    for gone in (3, 50, 99):
        del expected[(gone,)]
    assert final_rows(records, db.topic("a")) == expected


class TestIncrementalSnapshot(IncrementalSnapshotCases):
    """Debezium's cases both connectors pass (incremental_scenarios.py), on this database."""


class TestIncrementalSnapshotThroughAWorker(IncrementalSnapshotWorkerCases):
    """The shared cases that run a whole worker (incremental_worker_scenarios.py), on this database."""
