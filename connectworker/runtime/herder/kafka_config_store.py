"""Connectors created or changed through the REST API, kept in `config.storage.topic`: Kafka
Connect's config topic, with its keys and record formats.

- ``connector-<name>``: ``{"properties": {...}}``, the connector's config as written (config provider
  references unresolved); a tombstone when the connector is deleted.
- ``target-state-<name>``: ``{"state": "STARTED" | "PAUSED", "state.v2": "STARTED" | "PAUSED" |
  "STOPPED"}``, as Kafka 3.5+ writes it (readers that predate STOPPED see PAUSED).
- ``connectworker-deleted-<name>``: ``{"file_digest": ...}``, our own: a connector named on the command
  line and deleted through the REST API stays deleted while its file is unchanged (see connector_store).
  Kafka Connect would skip it (it logs keys it does not know).

A connector's `connector-` record may carry ``"connectworker.file_digest"`` beside ``properties``: the
digest of the command-line file config a REST change overrode (Kafka ignores the extra field). The
topic has one partition (Kafka requires it of the config topic), is created compacted when missing, and
is read to its end when the store opens; every change is acknowledged before `put`/`remove` return.
Task configs (``task-<name>-<n>``, ``commit-<name>``) are not written: the worker asks the connector for
them at every start.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError, Message

from connectworker.runtime.clients.compacted_topic import CompactedTopic, TopicShape
from connectworker.runtime.herder.connector_store import ConnectorStoreBase, ConnectorStoreError, StoredConnector
from connectworker.runtime.status import State

log = logging.getLogger(__name__)

CONNECTOR, TARGET_STATE, DELETED = "connector-", "target-state-", "connectworker-deleted-"
_BARRIER = "connectworker-barrier-"
_DIGEST_FIELD = "connectworker.file_digest"
_TO_KAFKA = {State.RUNNING: "STARTED", State.PAUSED: "PAUSED", State.STOPPED: "STOPPED"}
_FROM_KAFKA = {v: k for k, v in _TO_KAFKA.items()}


def _json(value: Mapping[str, Any] | None) -> bytes | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


class KafkaConfigStore(ConnectorStoreBase):
    def __init__(
        self, topic: str, kafka: Mapping[str, Any], *, replication_factor: int = 3, timeout_s: float = 30.0
    ) -> None:
        self.topic = topic
        self._log = CompactedTopic(
            topic,
            kafka,
            TopicShape(1, replication_factor, "config.storage.partitions", "config.storage.replication.factor"),
            label="config topic",
            error=ConnectorStoreError,
            barrier_key=lambda unique: (_BARRIER + unique).encode(),
            timeout_s=timeout_s,
        )
        self._timeout_s = timeout_s
        self._lock = threading.Lock()  # the entries, and one write at a time
        self._configs: dict[str, tuple[dict[str, str], str | None]] = {}
        self._states: dict[str, State] = {}
        self._deleted: dict[str, str] = {}  # name -> digest of the deleted command-line config
        with self._lock:
            self.records_read = self._log.read_to_end(self._apply)

    def describe(self) -> str:
        return f"Kafka topic {self.topic}"

    # -- reading ---------------------------------------------------------------------------------
    def _apply(self, msg: Message) -> bool:
        key = (msg.key() or b"").decode("utf-8", "replace")
        try:
            raw = msg.value()
            value = None if raw is None else json.loads(raw)
            if value is not None and not isinstance(value, dict):
                raise ValueError("the value is not a JSON object")
            if key.startswith(CONNECTOR):
                self._apply_config(key[len(CONNECTOR) :], value)
            elif key.startswith(TARGET_STATE):
                self._apply_state(key[len(TARGET_STATE) :], value)
            elif key.startswith(DELETED):
                name = key[len(DELETED) :]
                if value is None:
                    self._deleted.pop(name, None)
                else:
                    self._deleted[name] = str(value["file_digest"])
            else:
                return False  # task configs, commits, barriers: nothing the worker reads back
        except (ValueError, KeyError, TypeError) as exc:
            log.warning(
                "Skipping record %s[%s]@%s (key %r) of the config topic: %s",
                self.topic,
                msg.partition(),
                msg.offset(),
                key,
                exc,
            )
            return False
        return True

    def _apply_config(self, name: str, value: dict[str, Any] | None) -> None:
        if value is None:
            self._configs.pop(name, None)
            return
        props = value["properties"]
        if not (isinstance(props, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in props.items())):
            raise ValueError("its properties are not a map of strings to strings")
        digest = value.get(_DIGEST_FIELD)
        self._configs[name] = (props, None if digest is None else str(digest))

    def _apply_state(self, name: str, value: dict[str, Any] | None) -> None:
        if value is None:
            self._states.pop(name, None)
            return
        state = value.get("state.v2", value["state"])
        if state not in _FROM_KAFKA:
            raise ValueError(f"unknown target state {state!r} (STARTED, PAUSED, STOPPED)")
        self._states[name] = _FROM_KAFKA[state]

    def entries(self) -> dict[str, StoredConnector]:
        with self._lock:
            out = {
                name: StoredConnector(dict(props), self._states.get(name, State.RUNNING), digest)
                for name, (props, digest) in self._configs.items()
            }
            for name, digest in self._deleted.items():
                out.setdefault(name, StoredConnector(None, State.RUNNING, digest))
            return out

    def get(self, name: str) -> StoredConnector | None:
        return self.entries().get(name)

    # -- writing ---------------------------------------------------------------------------------
    def put(self, name: str, entry: StoredConnector) -> None:
        if entry.config is None:  # a command-line connector deleted through REST: remembered as deleted
            assert entry.file_digest is not None
            records = [
                (CONNECTOR + name, None),
                (TARGET_STATE + name, None),
                (DELETED + name, {"file_digest": entry.file_digest}),
            ]
        else:
            config: dict[str, Any] = {"properties": entry.config}
            if entry.file_digest is not None:
                config[_DIGEST_FIELD] = entry.file_digest
            state = _TO_KAFKA[entry.target_state]
            records = [
                (CONNECTOR + name, config),
                (TARGET_STATE + name, {"state": "PAUSED" if state == "STOPPED" else state, "state.v2": state}),
            ]
        self._write(name, records)

    def remove(self, name: str) -> None:
        self._write(name, [(CONNECTOR + name, None), (TARGET_STATE + name, None)])

    def _write(self, name: str, records: list[tuple[str, dict[str, Any] | None]]) -> None:
        """Produce `records` and wait for them; a connector kept again is no longer remembered as deleted."""
        with self._lock:
            if name in self._deleted and not any(key == DELETED + name for key, _ in records):
                records = [*records, (DELETED + name, None)]
            failures: list[KafkaError] = []
            for key, value in records:
                self._log.produce(key.encode(), _json(value), failures)
            self._log.wait_acks(failures, f"keeping connector {name}", self._timeout_s)
            for key, value in records:  # acknowledged: now it is what the topic says
                if key.startswith(CONNECTOR):
                    self._apply_config(name, value)
                elif key.startswith(TARGET_STATE):
                    self._apply_state(name, value)
                elif value is None:
                    self._deleted.pop(name, None)
                else:
                    self._deleted[name] = str(value["file_digest"])

    def close(self) -> None:
        with self._lock:
            self._log.close(self._timeout_s)
