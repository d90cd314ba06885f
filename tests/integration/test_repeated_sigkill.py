"""`connectworker standalone` killed with SIGKILL again and again mid-stream, restarted each time on
the same offsets file: at least once means every record ends up in Kafka, some more than once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.numbered_records import assert_none_lost, committed_seq, consume_keys
from tests.kafka_helpers import delete_topics

pytestmark = pytest.mark.heavy(seconds=45)

RECORDS = 50_000
KILLS = 10
KILL_DELAY_S = (0.0, 0.6)  # after the run's first commit, so every kill lands mid-stream
SEED = 8


def start_worker(worker: Path, connector: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:  # a file, not a pipe: nobody reads while the worker runs
        return subprocess.Popen(
            [sys.executable, "-m", "connectworker.cli", "standalone", str(worker), str(connector)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )


UP = b"Worker running with"  # logged once the worker has started its connectors, its signal handlers in place


def run_to_completion(worker: Path, connector: Path, log: Path, done: Callable[[], bool], timeout: float = 60) -> None:
    """Start the worker, wait until it is up and `done()` (or it exits), stop it with SIGTERM: it must exit
    with 0. (`done()` may hold from the start, the earlier runs having committed everything: the signal must
    still reach a worker that has started, not one still importing, which it would kill.)"""
    logged_before = log.stat().st_size if log.exists() else 0
    proc = start_worker(worker, connector, log)
    try:
        wait_until(
            lambda: (UP in log.read_bytes()[logged_before:] and done()) or proc.poll() is not None,
            timeout,
            "the last run to start and commit every record",
        )
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def wait_for_commit(
    proc: subprocess.Popen[bytes], offsets: Path, connector: str, *, beyond: int, log: Path, timeout: float = 120
) -> None:
    """Wait until the worker committed a DataGen seq above `beyond`; fail at once if it exited."""
    wait_until(
        lambda: committed_seq(offsets, connector) > beyond or proc.poll() is not None,
        timeout,
        f"a commit beyond seq {beyond}",
    )
    assert proc.poll() is None, f"the worker exited with {proc.returncode}:\n{log.read_text()[-3000:]}"


@pytest.mark.long(seconds=40)
def test_ten_sigkills_at_random_points_lose_no_record(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    name, topic = f"kill-{unique}", f"kill-{unique}"
    offsets = tmp_path / "offsets.json"
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\noffset.storage.file.filename={offsets}\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "offset.flush.interval.ms=100\nlisteners=http://127.0.0.1:0\n"
    )
    connector = tmp_path / "gen.properties"
    connector.write_text(
        f"name={name}\nconnector.class=DataGen\ntopic.pattern={topic}\ntopic.count=1\n"
        f"records={RECORDS}\nrate=5000\nbatch.size=500\nformat=string\n"
    )
    log = tmp_path / "worker.log"
    rng = random.Random(SEED)

    progress = [0]
    for _ in range(KILLS):
        proc = start_worker(worker, connector, log)
        try:
            wait_for_commit(proc, offsets, name, beyond=committed_seq(offsets, name), log=log)
            time.sleep(rng.uniform(*KILL_DELAY_S))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        progress.append(committed_seq(offsets, name))
    assert progress == sorted(progress), f"committed offsets went backwards: {progress}"
    assert progress[-1] < RECORDS, f"every kill should land mid-stream, committed after each: {progress}"

    run_to_completion(worker, connector, log, lambda: committed_seq(offsets, name) >= RECORDS)  # the last run
    assert committed_seq(offsets, name) == RECORDS

    seen = consume_keys(broker.bootstrap_servers, topic, RECORDS)
    assert_none_lost(seen, RECORDS)
    # At least once: what was produced after the last commit before a kill is produced again. The
    # exactly-once counterpart (test_exactly_once_sigkill.py) shows none; here the same kills must show
    # some, or that test proves nothing.
    duplicates = sum(n - 1 for n in seen.values())
    assert duplicates > 0, "ten kills mid-stream left no duplicate: the kills did not land mid-stream"
    delete_topics(admin, [topic])
