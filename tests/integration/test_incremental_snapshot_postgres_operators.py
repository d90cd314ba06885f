"""Incremental snapshots on PostgreSQL seen by operators: the REST status, `POST /connectors/NAME/signals`,
`/metrics` and Debezium's notifications while one runs, and the start refused when the signal table is
missing or outside the publication. (The cases both connectors share: incremental_scenarios.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceRecord
from tests.broker import Broker
from tests.integration.cdc_helpers import CdcDatabase, cdc_database, harness, read_all
from tests.integration.harness import wait_until
from tests.postgres import Postgres

ROWS = 100
SIGNALS = "public.debezium_signal"


@pytest.fixture
def db(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        database.execute(
            "CREATE TABLE a (pk int PRIMARY KEY, aa int)",
            f"INSERT INTO a SELECT n, n - 1 FROM generate_series(1, {ROWS}) n",
            "CREATE TABLE debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))",
        )
        yield database


def signal(db: CdcDatabase, data: str, kind: str = "execute-snapshot", id_: str = "ad-hoc") -> None:
    db.execute(f"INSERT INTO debezium_signal VALUES ('{id_}', '{kind}', '{data}')")


def props(**overrides: str) -> dict[str, str]:
    return {
        "snapshot.mode": "no_data",
        "signal.data.collection": SIGNALS,
        "incremental.snapshot.chunk.size": "10",
        **overrides,
    }


def poll_until(h: Any, done: Any, polls: int = 600) -> list[SourceRecord]:
    for _ in range(polls):
        h.poll()
        if done(h.records):
            return list(h.records)
    raise AssertionError(f"not done after {polls} polls: {len(h.records)} records")


def final_rows(records: list[SourceRecord], topic: str) -> dict[int, Any]:
    """Each row's last state by key, as a compacted topic keeps it (None: deleted)."""
    rows: dict[int, Any] = {}
    for r in records:
        if r.topic == topic and r.key is not None:
            rows[r.key["pk"]] = None if r.value is None or r.value["op"] == "d" else r.value["after"]["aa"]
    return rows


def reads(records: list[SourceRecord], topic: str) -> list[SourceRecord]:
    return [r for r in records if r.topic == topic and r.value is not None and r.value["op"] == "r"]


def test_operators_see_the_snapshot_pause_and_resume_it_through_rest_and_get_debezium_s_notifications(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    """The REST status shows the snapshot in progress (table, chunk, rows), `POST /connectors/NAME/signals`
    pauses and resumes it, `/metrics` carries Debezium's snapshot metrics, and the notifications land on
    notification.sink.topic.name with Debezium's types and additional_data."""
    from tests.integration.test_rest_harness import rest_worker, rest_worker_config, status_of

    db.execute(f"INSERT INTO a SELECT n, n - 1 FROM generate_series({ROWS + 1}, 3000) n")
    topic, bootstrap, notes = f"{db.name}.public.a", broker.bootstrap_servers, f"{db.name}.notifications"
    connector = db.props(
        **props(
            **{
                "incremental.snapshot.chunk.size": "10",
                "max.batch.size": "20",
                "notification.enabled.channels": "sink,log",
                "notification.sink.topic.name": notes,
            }
        )
    )
    name = connector["name"]

    def snapshot() -> dict[str, Any]:
        tasks = status_of(api, name)["tasks"]
        return (tasks[0].get("progress") or {}).get("snapshot") or {} if tasks else {}

    with rest_worker(rest_worker_config(bootstrap, tmp_path, **JSON), connector) as api:
        _streaming(db)
        signal(db, '{"data-collections": ["public.a"]}')
        wait_until(lambda: snapshot().get("table") == "public.a", 60, "the snapshot in the status")
        assert api.client.post(f"/connectors/{name}/signals", json={"type": "pause-snapshot"}).status_code == 202
        wait_until(lambda: snapshot().get("paused") is True, 30, "the pause in the status")
        shown = snapshot()
        assert shown["table_to"] == "[3000]" and shown["running"] is True
        metrics = api.client.get("/metrics").text
        assert "connectworker_snapshot_paused" in metrics and "connectworker_snapshot_running" in metrics
        assert api.client.post(f"/connectors/{name}/signals", json={"type": "resume-snapshot"}).status_code == 202
        wait_until(lambda: len(set(_read_keys(bootstrap, topic))) == 3000, 120, "every row")
        wait_until(lambda: snapshot() == {}, 30, "the snapshot gone from the status")
    kinds = [v["type"] for k, v in read_all(bootstrap, notes) if v is not None]
    assert kinds[0] == "STARTED" and kinds[-2:] == ["TABLE_SCAN_COMPLETED", "COMPLETED"]
    assert {"PAUSED", "RESUMED", "IN_PROGRESS"} <= set(kinds)
    scan = next(v for k, v in read_all(bootstrap, notes) if v is not None and v["type"] == "TABLE_SCAN_COMPLETED")
    assert scan["aggregate_type"] == "Incremental Snapshot" and scan["id"] == "ad-hoc"
    assert scan["additional_data"]["total_rows_scanned"] == "3000" and scan["additional_data"]["status"] == "SUCCEEDED"


def test_a_signal_table_that_is_missing_or_not_in_the_publication_fails_the_start_naming_the_fix(
    db: CdcDatabase,
) -> None:
    with (
        pytest.raises(ConnectError, match=r"The signal table public\.nope \(signal\.data\.collection\) does not exist"),
        harness(db, **props(**{"signal.data.collection": "public.nope"})),
    ):
        pass
    db.execute("CREATE PUBLICATION only_a FOR TABLE a")
    outside = props(**{"publication.name": "only_a", "publication.autocreate.mode": "disabled"})
    with (
        pytest.raises(ConnectError, match=r"is not in publication only_a.*ALTER PUBLICATION only_a ADD TABLE"),
        harness(db, **outside),
    ):
        pass


JSON = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "false",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
}


def _streaming(db: CdcDatabase) -> None:
    """The task reads its slot: changes from now on are streamed."""
    query = f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{db.slot}' AND active"
    wait_until(lambda: db.query(query) == [(1,)], 30, "the slot read")


def _read_keys(bootstrap: str, topic: str) -> list[int]:
    return [k["pk"] for k, v in read_all(bootstrap, topic) if v is not None and v["op"] == "r"]
