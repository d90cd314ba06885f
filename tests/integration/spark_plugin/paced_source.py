"""A plugin for the Spark cluster tests, loaded from a `plugin.path` directory (never from the test
package): each task emits `records` records 0, 1, 2, ... to `<topic>.<task>`, `batch.size` per poll and
a poll every `poll.pause.ms`, with key "<n>" and value "<task>:<n>:<the file this module was loaded
from>", so a test can see that executors imported it from what `connectworker spark` shipped. A task
instance that reaches record `stall.at` first writes its process id to `<stall.file>.<task>`, then
sleeps `stall.ms`: a test can kill the executor that runs it while the task certainly runs."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path

from connectworker.api import ConfigDef, SourceConnector, SourceRecord, SourceTask


class PacedSource(SourceConnector):
    def version(self) -> str:
        return "test"

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return PacedTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self.props, "task.id": str(n)} for n in range(max_tasks)]

    def stop(self) -> None:
        pass


class PacedTask(SourceTask):
    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        self.task = int(props["task.id"])
        self.partition = {"task": self.task}
        self.topic = f"{props['topic']}.{self.task}"
        self.records = int(props["records"])
        self.batch = int(props.get("batch.size", "10"))
        self.pause_s = float(props.get("poll.pause.ms", "0")) / 1000
        self.stall_at = int(props.get("stall.at", "-1"))
        self.stall_s = float(props.get("stall.ms", "0")) / 1000
        self.stall_file = Path(f"{props['stall.file']}.{self.task}") if props.get("stall.file") else None
        offset = self.context.offset_storage_reader.offset(self.partition)
        self.next = int(offset["seq"]) if offset else 0

    def poll(self) -> list[SourceRecord] | None:
        if self.next == self.stall_at:
            self.stall_at = -1
            if self.stall_file is not None:
                self.stall_file.write_text(str(os.getpid()))
            time.sleep(self.stall_s)
        time.sleep(self.pause_s)
        if self.next >= self.records:
            return None
        end = min(self.next + self.batch, self.records)
        records = [
            SourceRecord(self.partition, {"seq": n + 1}, self.topic, f"{self.task}:{n}:{__file__}", str(n))
            for n in range(self.next, end)
        ]
        self.next = end
        return records

    def stop(self) -> None:
        pass
