"""The state of every connector and task, written to `status.storage.topic` as it changes: Kafka
Connect's status topic, with its keys and record format, for tools that read it.

``status-connector-<name>`` and ``status-task-<name>-<id>`` carry ``{"state": ..., "trace": ...,
"worker_id": ..., "generation": 0}`` (a task's worker_id is where it runs: a Spark executor's host); a
connector that is deleted gets tombstones, and when the worker stops, what it ran is written UNASSIGNED
(Kafka's worker does the same when it leaves the cluster). The publisher looks at the worker's live statuses every
`interval_s` and writes what changed (secrets in traces redacted), so a state change is in the topic
within about that time; nothing on the task path waits for it. Writes that fail are tried again at the
next look, and logged once until they succeed.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import KafkaError, Message

from connectworker.api.errors import ConnectError
from connectworker.runtime.clients.compacted_topic import CompactedTopic, TopicShape
from connectworker.runtime.worker import Worker

log = logging.getLogger(__name__)

StatusRecord = dict[str, Any]


class StatusTopicError(ConnectError):
    pass


def status_records(worker: Worker, worker_id: str, redact: Callable[[str], str]) -> dict[str, StatusRecord]:
    """Kafka status-topic key -> value, for every connector and task the worker has now."""
    out: dict[str, StatusRecord] = {}
    for label, status, task in worker.status_snapshot():
        state, trace = status.shown()  # with the automatic restarts' note, as the REST status
        kind, _, name = label.partition(" ")
        where = (task.worker_id if task is not None else None) or worker_id
        out[f"status-{kind}-{name}"] = {
            "state": state.value,
            "trace": None if trace is None else redact(trace),
            "worker_id": where,
            "generation": 0,
        }
    return out


def _connector_of(key: str) -> str:
    """The connector a status key is about (`status-connector-<name>`, `status-task-<name>-<id>`)."""
    if key.startswith("status-connector-"):
        return key[len("status-connector-") :]
    return key[len("status-task-") :].rpartition("-")[0]


class StatusPublisher:
    def __init__(
        self,
        topic: str,
        kafka: Mapping[str, Any],
        worker: Worker,
        worker_id: str,
        redact: Callable[[str], str],
        *,
        partitions: int = 5,
        replication_factor: int = 3,
        interval_s: float = 0.5,
        timeout_s: float = 30.0,
    ) -> None:
        self.topic = topic
        self._log = CompactedTopic(
            topic,
            kafka,
            TopicShape(
                partitions, replication_factor, "status.storage.partitions", "status.storage.replication.factor"
            ),
            label="status topic",
            error=StatusTopicError,
            barrier_key=lambda unique: f"connectworker-barrier-{unique}".encode(),
            timeout_s=timeout_s,
        )
        self._worker = worker
        self._worker_id = worker_id
        self._redact = redact
        self._interval_s = interval_s
        self._timeout_s = timeout_s
        self._written: dict[str, StatusRecord] = {}
        self._failing = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="status-publisher", daemon=True)

    def start(self) -> StatusPublisher:
        """Create the topic if missing (a topic the worker cannot use stops start-up) and start looking."""
        self._log.read_to_end(self._note_existing)
        self._thread.start()
        return self

    def _note_existing(self, msg: Message) -> bool:
        """What an earlier worker wrote: its connectors are tombstoned at the first look if gone now."""
        key = (msg.key() or b"").decode("utf-8", "replace")
        if not key.startswith("status-"):
            return False
        raw = msg.value()
        if raw is None:
            self._written.pop(key, None)
        else:
            self._written[key] = {"stale": True}  # never equal to a live record: rewritten or tombstoned
        return True

    def _run(self) -> None:
        while not self._stop.wait(self._interval_s):
            self.publish()

    def publish(self, *, shutdown: bool = False) -> None:
        """Write every status that changed since the last write (and tombstones for those gone). At
        `shutdown`, every connector and task this worker ran is written UNASSIGNED, as Kafka's worker does
        when it leaves: nothing runs them until a worker starts them again."""
        now = status_records(self._worker, self._worker_id, self._redact)
        if shutdown:  # what the worker still has, and the tasks of its connectors that stopped with it
            live = set(self._worker.connector_names())
            kept = {key for key in self._written if _connector_of(key) in live}
            now = {
                key: {
                    **self._written.get(key, {}),
                    **now.get(key, {}),
                    "state": "UNASSIGNED",
                    "trace": None,
                    "generation": 0,
                }
                for key in {*now, *kept}
            }
            now = {key: value for key, value in now.items() if "worker_id" in value}
        changes: dict[str, StatusRecord | None] = {k: v for k, v in now.items() if self._written.get(k) != v}
        changes.update({k: None for k in self._written if k not in now})
        if not changes:
            return
        failures: list[KafkaError] = []
        try:
            for key, value in changes.items():
                data = None if value is None else json.dumps(value, separators=(",", ":")).encode()
                self._log.produce(key.encode(), data, failures)
            self._log.wait_acks(failures, f"writing {len(changes)} status record(s)", self._timeout_s)
        except ConnectError as exc:
            if not self._failing:
                log.warning(
                    "Could not write statuses to %s (tried again every %.1f s): %s", self.topic, self._interval_s, exc
                )
            self._failing = True
            return
        if self._failing:
            log.info("Statuses are written to %s again", self.topic)
            self._failing = False
        for key, value in changes.items():
            if value is None:
                self._written.pop(key, None)
            else:
                self._written[key] = value

    def stop_watching(self) -> None:
        """Stop the periodic looks (before the worker stops, so that its tasks, gone from the worker once
        stopped, are not taken for deleted ones); `stop` then writes what the worker ran UNASSIGNED."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(self._timeout_s)

    def stop(self) -> None:
        """Write the final statuses (see `publish(shutdown=True)`) and release the clients."""
        self.stop_watching()
        self.publish(shutdown=True)
        self._log.close(self._timeout_s)
