"""A connector counting 0, 1, 2, ... for the exactly-once tests: key "n", value "<tag>:n", source offset
{"next": n + 1}, resuming from its committed offset. It declares exactly-once support and
connector-defined transaction boundaries; with `transaction.boundary=connector` its task commits after
every `commit.every` records and aborts instead when the segment's index is a multiple of `abort.every`
(counting from 1), so `commit.every=10`, `abort.every=3` aborts records 20-29, 50-59, ...
For the transform tests: `timestamp.ms` gives record n the timestamp `timestamp.ms + n`, and
`tombstone.every=k` makes every k-th record (n % k == k - 1) a tombstone (value None).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from connectworker.api import (
    ConfigDef,
    ConfigType,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

PARTITION = {"counter": 0}


def aborted(n: int, commit_every: int, abort_every: int) -> bool:
    """Whether record `n` is in a transaction the task aborts."""
    return abort_every > 0 and (n // commit_every + 1) % abort_every == 0


class CountingTask(SourceTask):
    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.tag = props.get("tag", "")
        self.records = int(props["records"])
        self.batch = int(props.get("batch.size", "100"))
        self.pause_s = float(props.get("poll.pause.ms", "0")) / 1000
        self.commit_every = int(props.get("commit.every", "0"))
        self.abort_every = int(props.get("abort.every", "0"))
        self.timestamp = int(props["timestamp.ms"]) if props.get("timestamp.ms") else None
        self.tombstone_every = int(props.get("tombstone.every", "0"))
        offset = self.context.offset_storage_reader.offset(PARTITION)
        self.next = int(offset["next"]) if offset else 0
        self.stopping = False

    def poll(self) -> list[SourceRecord] | None:
        if self.stopping or self.next >= self.records:
            time.sleep(0.05)
            return None
        if self.pause_s:
            time.sleep(self.pause_s)
        end = min(self.next + self.batch, self.records)
        records = [
            SourceRecord(
                PARTITION,
                {"next": n + 1},
                self.topic,
                self._value(n),
                str(n),
                timestamp=None if self.timestamp is None else self.timestamp + n,
            )
            for n in range(self.next, end)
        ]
        self.next = end
        transactions = self.context.transaction_context
        if transactions is not None and self.commit_every:
            for record in records:
                n = int(record.key)
                if n % self.commit_every == self.commit_every - 1:
                    if aborted(n, self.commit_every, self.abort_every):
                        transactions.abort_transaction(record)
                    else:
                        transactions.commit_transaction(record)
        return records

    def _value(self, n: int) -> str | None:
        if self.tombstone_every and n % self.tombstone_every == self.tombstone_every - 1:
            return None
        return f"{self.tag}:{n}"

    def stop(self) -> None:
        self.stopping = True


class CountingSource(SourceConnector):
    def version(self) -> str:
        return "test"

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("topic", ConfigType.STRING)
            .define("records", ConfigType.INT)
            .define("tag", ConfigType.STRING, "")
            .define("batch.size", ConfigType.INT, 100)
            .define("poll.pause.ms", ConfigType.INT, 0)
            .define("commit.every", ConfigType.INT, 0)
            .define("abort.every", ConfigType.INT, 0)
            .define("timestamp.ms", ConfigType.LONG, None)
            .define("tombstone.every", ConfigType.INT, 0)
        )

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return CountingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.SUPPORTED

    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.SUPPORTED
