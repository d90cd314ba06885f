"""A connector whose task reports a snapshot in progress and obeys its operators' signals, for the tests of
the worker's progress and signal path (not a CDC connector: its snapshot is a fixed picture).

Its task reports the incremental snapshot of `public.orders`, chunk 1…10 of a table whose maximum key is
1000, 10 rows sent, as the CDC connectors would (connectors/debezium/operator_channel.py). Each signal it
reads becomes a record on `topic` (key: the signal's id; value: its type and data as JSON) and acts on the
picture: `pause-snapshot` pauses it, `resume-snapshot` resumes it, `stop-snapshot` ends it (no progress).
With `notification.enabled.channels` (and `notification.sink.topic.name`), each of these also raises
Debezium's PAUSED, RESUMED or ABORTED notification, its id the signal's.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import replace

from connectworker.api import ConfigDef, ConfigType, SourceConnector, SourceRecord, SourceTask
from connectworker.connectors.debezium.notifications import Notifier
from connectworker.connectors.debezium.operator_channel import progress_document
from connectworker.connectors.debezium.signal_types import SnapshotProgress

PARTITION = {"source": "operated"}
SNAPSHOT = SnapshotProgress(
    kind="incremental",
    running=True,
    table="public.orders",
    tables_remaining=1,
    total_tables=1,
    chunk_id="chunk-1",
    chunk_from="1",
    chunk_to="10",
    table_from="1",
    table_to="1000",
    rows_scanned={"public.orders": 10},
    rows_sent=10,
)


class OperatedTask(SourceTask):
    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.snapshot: SnapshotProgress | None = SNAPSHOT
        self.read = 0
        self.stopping = threading.Event()
        channels = [c for c in props.get("notification.enabled.channels", "").split(",") if c]
        self.notifier = Notifier(channels, props.get("notification.sink.topic.name"), "operated")
        self.notifications = self.notifier.incremental

    def poll(self) -> list[SourceRecord]:
        self.stopping.wait(0.05)
        records = []
        for signal in self.context.operator_signals():
            self.read += 1
            value = json.dumps({"type": signal.type, "data": signal.data}, sort_keys=True)
            offset = {"signals": self.read}
            records.append(SourceRecord(PARTITION, offset, self.topic, value, signal.id, partition=0))
            tables = [SNAPSHOT.table or ""]
            if self.snapshot is not None and signal.type in ("pause-snapshot", "resume-snapshot"):
                self.snapshot = replace(self.snapshot, paused=signal.type == "pause-snapshot")
                made = self.notifications.paused if self.snapshot.paused else self.notifications.resumed
                notification = made(signal.id, tables)
            elif signal.type == "stop-snapshot":
                self.snapshot = None
                notification = self.notifications.aborted(signal.id, tables)
            else:
                continue
            if (record := self.notifier.notify(notification, PARTITION, offset)) is not None:
                records.append(record)
        self.context.report_progress(progress_document(self.snapshot))
        return records

    def stop(self) -> None:
        self.stopping.set()


class OperatedSource(SourceConnector):
    def version(self) -> str:
        return "test"

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("topic", ConfigType.STRING)

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return OperatedTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        return None
