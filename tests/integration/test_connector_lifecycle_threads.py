"""A worker that creates and deletes connectors all day keeps the same threads: nothing of a deleted
connector's task stays behind, in the worker or in the task process that ran it (a task process lives
on to run later tasks)."""

from __future__ import annotations

from pathlib import Path

import httpx
from confluent_kafka.admin import AdminClient

from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.standalone_process import standalone_process
from tests.kafka_helpers import delete_topics
from tests.process_checks import children_of

CYCLES = 6


def threads_of(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


def thread_counts(worker: int) -> dict[str, int]:
    """The worker's threads, and those of every process under it, by process (command line's name)."""
    counts = {"worker": threads_of(worker)}
    pending = children_of(worker)
    while pending:
        pid = pending.pop()
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
            counts[f"{name} ({pid})"] = threads_of(pid)
            pending.extend(children_of(pid))
        except FileNotFoundError:  # ended meanwhile
            continue
    return counts


def test_connectors_created_and_deleted_through_rest_leave_no_thread_behind(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    (tmp_path / "worker.properties").write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\n"
        f"offset.storage.file.filename={tmp_path / 'connect.offsets'}\n"
        "offset.flush.interval.ms=500\n"
        "listeners=http://127.0.0.1:0\n"
        "topic.creation.enable=true\n"
    )
    topic = f"threads-{unique}"
    config = {
        "connector.class": "DataGen",
        "tasks.max": "1",
        "topic.pattern": topic,
        "topic.count": "1",
        "rate": "50",
        "format": "json",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }
    with standalone_process(tmp_path) as worker, httpx.Client(base_url=worker.url, timeout=30) as api:

        def lifecycle(cycle: int) -> None:
            """Create a connector, wait until its task produced, delete it, wait until it is gone."""
            name = f"cycle-{unique}-{cycle}"
            assert api.post("/connectors", json={"name": name, "config": config}).status_code == 201

            def producing() -> bool:
                status = api.get(f"/connectors/{name}/status").json()
                topics = api.get(f"/connectors/{name}/topics").json()[name]["topics"]
                return bool(status.get("tasks")) and status["tasks"][0]["state"] == "RUNNING" and bool(topics)

            wait_until(producing, 30, what=f"{name}'s task running and producing")
            assert api.delete(f"/connectors/{name}").status_code == 204
            wait_until(lambda: api.get("/connectors").json() == [], 30, what=f"{name} gone")

        lifecycle(0)
        baseline = thread_counts(worker.pid)
        seen = [baseline]
        for cycle in range(1, CYCLES):
            lifecycle(cycle)
            # a task's threads end as it stops, a moment after its connector is deleted
            wait_until(
                lambda: thread_counts(worker.pid) == baseline,
                30,
                what=lambda: (
                    f"the threads back to those after the first cycle: {baseline}, now {thread_counts(worker.pid)}"
                ),
            )
            seen.append(thread_counts(worker.pid))
    assert seen == [baseline] * CYCLES
    delete_topics(admin, [topic])
