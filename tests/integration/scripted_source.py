"""A connector whose one poll is spelled out in its config, for failure tests against a real broker.

`values=a,b,@big,c` emits one record per item, with source offsets {"n": 1}, {"n": 2}, ..., then idles.
Special items: `@big` a value of 2 MB (over librdkafka's default message.max.bytes), `@set` a value
that JSON cannot encode, `@badoffset` a record whose offset cannot be stored, `@p<N>` a record the task
pins to partition N.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api import ConfigDef, ConfigType, SourceConnector, SourceRecord, SourceTask

PARTITION = {"source": "scripted"}


def _record(topic: str, n: int, item: str) -> SourceRecord:
    offset: dict[str, Any] = {"n": n}
    value: Any = item
    if item == "@big":
        value = "x" * 2_000_000
    elif item == "@set":
        value = {"tags": {"a", "b"}}
    elif item == "@badoffset":
        offset = {"n": n, "when": object()}
    partition = int(item[2:]) if item.startswith("@p") else None
    return SourceRecord(PARTITION, offset, topic, value, str(n), partition=partition)


class ScriptedTask(SourceTask):
    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.items = props["values"].split(",")
        self.done = False

    def poll(self) -> list[SourceRecord] | None:
        if self.done:
            return None
        self.done = True
        return [_record(self.topic, n, item) for n, item in enumerate(self.items, start=1)]

    def stop(self) -> None:
        self.done = True


class ScriptedSource(SourceConnector):
    def version(self) -> str:
        return "test"

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("topic", ConfigType.STRING).define("values", ConfigType.STRING)

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return ScriptedTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        return None
