"""Losing the Kafka cluster: unreachable at start-up (exit 1 with one clear line, nothing started),
and cut off mid-stream through a TCP proxy the test controls (the task waits, recovers by itself,
and no record is lost)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from connectworker.embedded_broker import free_loopback_port
from connectworker.runtime.status import State
from connectworker.runtime.tasks.source_task import WorkerSourceTask
from tests.integration.harness import running_worker, wait_committed, wait_until, worker_config
from tests.integration.numbered_records import assert_none_lost, consume_keys
from tests.tcp_proxy import ProxiedBroker

OUTAGE_S = 30.0  # the figure: the cluster is gone for 30 s while a connector produces
START_UP_BOUND_MS = 3000
STOP_MARGIN_S = 10.0  # giving up and exiting on a loaded 2-core machine, on top of the bound


# -- unreachable at start-up ---------------------------------------------------------------------


def test_an_unreachable_cluster_at_start_up_exits_1_within_the_bound_with_one_line_and_starts_nothing(
    tmp_path: Path,
) -> None:
    servers = f"127.0.0.1:{free_loopback_port()}"  # nothing listens: every connection is refused
    offsets = tmp_path / "offsets.json"
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={servers}\nbootstrap.timeout.ms={START_UP_BOUND_MS}\n"
        f"offset.storage.file.filename={offsets}\nlisteners=http://127.0.0.1:0\n"
    )
    connector = tmp_path / "gen.properties"
    connector.write_text("name=gen\nconnector.class=DataGen\nrate=1000\n")

    result = subprocess.run(
        [sys.executable, "-m", "connectworker.cli", "standalone", str(worker), str(connector)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    ended = time.time()

    err = result.stderr
    assert result.returncode == 1, err
    # From the worker's own line saying it contacts the cluster (its interpreter start and imports, which a
    # loaded machine stretched to 30 s, are not the bound's business) to its exit.
    contacting = re.search(r"^\[([\d-]+ [\d:]+),(\d+)\] INFO Contacting the Kafka cluster at ", err, re.MULTILINE)
    assert contacting is not None, err
    began = datetime.strptime(contacting.group(1), "%Y-%m-%d %H:%M:%S").timestamp() + int(contacting.group(2)) / 1000
    assert ended - began < START_UP_BOUND_MS / 1000 + STOP_MARGIN_S, f"took {ended - began:.1f} s after contacting"
    naming = [line for line in err.splitlines() if f"bootstrap.servers={servers}" in line]
    assert len(naming) == 1 and naming[0].startswith("connectworker: Cannot reach the Kafka cluster"), err
    assert f"bootstrap.timeout.ms={START_UP_BOUND_MS}" in naming[0] and "Connection refused" in naming[0]
    assert "Traceback" not in err
    assert not re.search(r"^%\d\|", err, re.MULTILINE), err  # librdkafka's own stderr format
    kafka_lines = [line for line in err.splitlines() if line.endswith("(connectworker.kafka)")]
    assert len(kafka_lines) <= 2, err  # the refused connection once (and its repeat count), not a flood
    assert "Connector gen" not in err and "Task gen-0" not in err
    assert not offsets.exists()


# -- cut off mid-stream --------------------------------------------------------------------------


def outage_note_in_status(task: WorkerSourceTask) -> str | None:
    """The note a RUNNING task's status carries while its cluster is unreachable (None otherwise)."""
    state, trace = task.status.snapshot()
    return trace if state is State.RUNNING and trace and "Kafka cluster unreachable" in trace else None


@pytest.mark.long(seconds=36)
def test_a_30_s_outage_mid_stream_is_waited_out_and_no_record_is_lost(
    proxied_broker: ProxiedBroker, tmp_path: Path, unique: str
) -> None:
    records, name, topic = 6000, f"outage-{unique}", f"outage-{unique}"
    config = worker_config(proxied_broker.bootstrap_servers, tmp_path)
    connector = {
        "name": name,
        "connector.class": "DataGen",
        "topic.pattern": topic,
        "topic.count": "1",
        "records": str(records),
        "rate": "2000",
        "batch.size": "200",
        "format": "string",
    }
    with running_worker(config, connector) as runtime:
        assert runtime.worker is not None
        wait_committed(runtime.worker, name, 500)  # producing, and the topic exists
        task = runtime.worker.get(name).tasks[0]

        proxied_broker.proxy.cut()
        states: set[State] = set()
        notes: list[str] = []
        outage_ends = time.monotonic() + OUTAGE_S
        while time.monotonic() < outage_ends:
            states.add(task.status.snapshot()[0])
            if (note := outage_note_in_status(task)) is not None:
                notes.append(note)
            time.sleep(0.1)
        proxied_broker.proxy.restore()

        assert states == {State.RUNNING}, f"task states during the outage: {states}: {task.status.snapshot()}"
        assert notes and f"bootstrap.servers={proxied_broker.bootstrap_servers}" in notes[-1]
        wait_committed(runtime.worker, name, records, timeout=60)  # recovered by itself: nobody restarted it
        assert task.status.snapshot()[0] is State.RUNNING
        wait_until(lambda: outage_note_in_status(task) is None, 30, "the outage note to clear")

    assert_none_lost(consume_keys(proxied_broker.bootstrap_servers, topic, records), records)
