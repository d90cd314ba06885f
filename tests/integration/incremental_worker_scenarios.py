"""The incremental snapshot test cases that need a whole worker, for both CDC connectors
(test_incremental_snapshot_postgres.py, test_incremental_snapshot_mysql.py): the signal channels other than
the signal table, a blocking snapshot, and a worker killed mid-snapshot. What they check is read back from
the topics and the committed offsets, as a user finds them."""

from __future__ import annotations

import json
import signal as signals
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from tests.broker import Broker
from tests.integration.cdc_helpers import read_all
from tests.integration.harness import running_worker, wait_until, worker_config
from tests.integration.incremental_helpers import COLLECTIONS, PRIMARY_KEY, ROWS, WORKER, SnapshotDb
from tests.integration.test_repeated_sigkill import run_to_completion, start_worker


def topic_reads(bootstrap: str, topic: str) -> list[int]:
    """The pk of each snapshot read (`op: r`) the topic holds, in order."""
    return [k["pk"] for k, v in read_all(bootstrap, topic) if v is not None and v["op"] == "r"]


def topic_notes(bootstrap: str, db: SnapshotDb) -> list[str]:
    return [v["type"] for _, v in read_all(bootstrap, db.notifications) if v is not None]


def committed(offsets: Path, connector: str) -> dict[str, Any]:
    """The connector's committed offset in a worker's offsets file (its one source partition's)."""
    stored = json.loads(offsets.read_text()).get(connector, {}) if offsets.exists() else {}
    assert len(stored) <= 1, stored
    return dict(next(iter(stored.values()), {}))


def committed_key(offsets: Path, connector: str) -> int:
    """The pk of the last snapshot row the committed offset names (0: none)."""
    key = committed(offsets, connector).get(PRIMARY_KEY)
    return int(json.loads(key)[0]) if key else 0


def _properties(path: Path, props: Mapping[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


class IncrementalSnapshotWorkerCases:
    """The cases, run by a test module's `class Test...(IncrementalSnapshotWorkerCases)` with its `db` fixture
    (a `SnapshotDb`, `setup()` done) and the broker."""

    def test_signals_from_a_kafka_topic_and_a_file_start_snapshots_acted_on_once(
        self, broker: Broker, db: SnapshotDb, tmp_path: Path
    ) -> None:
        """The kafka channel reads `<topic.prefix>-signal`'s partition 0, keyed by topic.prefix, from where the
        offsets say it stopped: a signal is acted on once, not again after a restart. The file channel reads and
        empties signal.file."""
        bootstrap, topic, signal_file = broker.bootstrap_servers, db.topic("a"), tmp_path / "signals.txt"
        config = worker_config(bootstrap, tmp_path, **WORKER)
        connector = db.worker_props(
            bootstrap,
            **{
                "signal.enabled.channels": "source,kafka,file",
                "signal.kafka.bootstrap.servers": bootstrap,
                "signal.file": str(signal_file),
                "signal.poll.interval.ms": "200",
                "incremental.snapshot.chunk.size": "1000",
            },
        )
        data = {"data-collections": [db.qualified("a")]}
        with running_worker(config, connector):  # the worker creates the signal topic, with one partition
            db.streaming(bootstrap)
            producer = Producer({"bootstrap.servers": bootstrap})
            producer.produce(
                f"{db.prefix}-signal",
                key=db.prefix,
                value=json.dumps({"id": "k1", "type": "execute-snapshot", "data": data}),
                partition=0,
            )
            producer.flush(30)
            wait_until(lambda: topic_notes(bootstrap, db).count("COMPLETED") == 1, 90, "the Kafka signal's snapshot")
        assert sorted(topic_reads(bootstrap, topic)) == list(range(1, ROWS + 1))
        signal_file.write_text(json.dumps({"id": "f1", "type": "execute-snapshot", "data": data}) + "\n")
        with running_worker(config, connector):  # the Kafka signal is not acted on again; the file's is
            wait_until(lambda: topic_notes(bootstrap, db).count("COMPLETED") == 2, 90, "the file signal's snapshot")
            assert signal_file.read_text() == ""
        assert sorted(topic_reads(bootstrap, topic)) == sorted(2 * list(range(1, ROWS + 1)))
        assert topic_notes(bootstrap, db).count("STARTED") == 2

    def test_a_blocking_snapshot_pauses_the_stream_reads_the_table_and_streams_on(
        self, broker: Broker, db: SnapshotDb, tmp_path: Path
    ) -> None:
        """An `execute-snapshot` of type `blocking`: the stream waits while the table is read as an initial
        snapshot reads it (markers first ... last), then streams on."""
        bootstrap, topic = broker.bootstrap_servers, db.topic("a")
        with running_worker(worker_config(bootstrap, tmp_path, **WORKER), db.worker_props(bootstrap)):
            db.streaming(bootstrap)
            db.snapshot(db.qualified("a"), type="blocking")
            db.insert("a", [ROWS + 1])
            wait_until(lambda: any(k["pk"] == ROWS + 1 for k, v in read_all(bootstrap, topic) if v), 60, "the insert")
        messages = [v for _, v in read_all(bootstrap, topic) if v is not None]
        read = [v for v in messages if v["op"] == "r"]
        # the row inserted right after the signal may be read too: the snapshot starts once the stream stops,
        # and reads the table as it is then (Debezium: events around the pause may come twice)
        assert set(range(1, ROWS + 1)) <= {v["after"]["pk"] for v in read} <= set(range(1, ROWS + 2))
        assert len(read) == len({v["after"]["pk"] for v in read})  # each row once
        markers = [v["source"]["snapshot"] for v in read]
        assert markers[0] == "first" and markers[-1] == "last" and set(markers[1:-1]) == {"true"}
        assert [v["after"]["pk"] for v in messages if v["op"] == "c"] == [ROWS + 1]  # and the stream went on

    def test_a_snapshot_stopped_mid_way_reads_on_after_the_last_row_committed_not_from_the_start(
        self, broker: Broker, db: SnapshotDb, tmp_path: Path
    ) -> None:
        """The worker stopped mid-snapshot and started again from its offsets: the snapshot carries on at the
        row after the last one committed (the rows before it are not read again), and every row comes."""
        rows = 20_000  # in chunks of 10: long enough that an offset is committed mid-way
        db.insert("a", range(ROWS + 1, rows + 1))
        topic, bootstrap, offsets = db.topic("a"), broker.bootstrap_servers, tmp_path / "connect.offsets"
        config = worker_config(bootstrap, tmp_path, **WORKER)
        connector = db.worker_props(bootstrap, **{"incremental.snapshot.chunk.size": "10", "max.batch.size": "50"})
        name = connector["name"]
        with running_worker(config, connector):
            db.streaming(bootstrap)
            db.snapshot(db.qualified("a"))
            wait_until(lambda: committed_key(offsets, name) > 0, 60, "a committed row of the snapshot")
        stopped_at = committed_key(offsets, name)
        first = topic_reads(bootstrap, topic)
        assert 0 < stopped_at < rows and first == list(range(1, stopped_at + 1))  # stopped mid-way, all committed
        with running_worker(config, connector):
            wait_until(lambda: COLLECTIONS not in committed(offsets, name), 90, "the snapshot's end")
        assert topic_reads(bootstrap, topic) == list(range(1, rows + 1))  # each row once

    @pytest.mark.long(seconds=40)
    def test_a_worker_sigkilled_mid_snapshot_reads_on_after_the_last_committed_row_and_loses_none(
        self, broker: Broker, db: SnapshotDb, tmp_path: Path
    ) -> None:
        """The worker SIGKILLed mid-snapshot and started again on its offsets: the snapshot reads on from the
        row after the last one committed, every row ends up in the topic, and the rows committed before the kill
        are not read again."""
        rows, bootstrap = 10 * ROWS, broker.bootstrap_servers
        db.insert("a", range(ROWS + 1, rows + 1))
        topic, offsets, log = db.topic("a"), tmp_path / "offsets.json", tmp_path / "worker.log"
        worker = _properties(
            tmp_path / "worker.properties",
            {
                "bootstrap.servers": bootstrap,
                "offset.storage.file.filename": str(offsets),
                "offset.flush.interval.ms": "100",
                "listeners": "",
                **WORKER,
            },
        )
        props = db.worker_props(bootstrap, **{"incremental.snapshot.chunk.size": "100", "max.batch.size": "100"})
        connector, name = _properties(tmp_path / "connector.properties", props), props["name"]
        proc = start_worker(worker, connector, log)
        try:
            db.streaming(bootstrap)
            db.snapshot(db.qualified("a"))
            wait_until(
                lambda: committed_key(offsets, name) >= 1000 or proc.poll() is not None, 90, "1000 rows committed"
            )
            assert proc.poll() is None, log.read_text()[-3000:]
        finally:
            proc.send_signal(signals.SIGKILL)
            proc.wait(timeout=30)
        at_kill = committed_key(offsets, name)
        assert at_kill < rows, "the kill should land mid-snapshot"
        before = topic_reads(bootstrap, topic)
        assert set(before) >= set(range(1, at_kill + 1))

        run_to_completion(worker, connector, log, lambda: COLLECTIONS not in committed(offsets, name), 180)
        after = topic_reads(bootstrap, topic)
        assert set(after) == set(range(1, rows + 1)), "every row in the topic"
        # the restarted task read on at the row after the last one committed, in order: none before it again
        assert after[len(before) :] == list(range(at_kill + 1, rows + 1))
