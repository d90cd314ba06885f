"""A source connector written the ordinary way, for the record-path benchmark: each poll returns a
`list[SourceRecord]` built one record at a time, each with its own offset dict, as most connectors do
(compare DataGen's columnar `SourceRecordBatch`).

`format=string`: 100-byte string values; `format=json`: schemaless dict values (for JsonConverter with
`schemas.enable=false`). `records` bounds the total, so a run ends by itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api import ConfigDef, ConfigType, SourceConnector, SourceRecord, SourceTask, one_of

BATCH = 1000
VARIANTS = 1000
CONFIG_DEF = (
    ConfigDef()
    .define("topic", ConfigType.STRING)
    .define("records", ConfigType.INT)
    .define("format", ConfigType.STRING, "string", validator=one_of("string", "json"))
    .define("value.size", ConfigType.INT, 100)
)


def string_values(size: int) -> list[str]:
    return [(f"value-{i:04d};" + "x" * size)[:size] for i in range(VARIANTS)]


def json_value(seq: int) -> dict[str, Any]:
    return {
        "id": seq,
        "region": "eu-west",
        "amount": seq % 10_000 / 100,
        "ts": 1_700_000_000_000 + seq,
        "payload": "p" * 40,
    }


class OrdinarySourceTask(SourceTask):
    def version(self) -> str:
        return "bench"

    def start(self, props: Mapping[str, str]) -> None:
        config = CONFIG_DEF.parse(props)
        self.topic: str = config["topic"]
        self.limit: int = config["records"]
        self.json = config["format"] == "json"
        self.values = string_values(config["value.size"])
        self.partition = {"source": "bench"}
        offset = self.context.offset_storage_reader.offset(self.partition)
        self.seq: int = offset["seq"] if offset else 0
        self.stopped = False

    def poll(self) -> list[SourceRecord] | None:
        if self.stopped or self.seq >= self.limit:
            return None
        stop = min(self.seq + BATCH, self.limit)
        topic, partition, values = self.topic, self.partition, self.values
        records = []
        for seq in range(self.seq, stop):
            value: Any = json_value(seq) if self.json else values[seq % VARIANTS]
            records.append(SourceRecord(partition, {"seq": seq + 1}, topic, value, str(seq)))
        self.seq = stop
        return records

    def stop(self) -> None:
        self.stopped = True


class OrdinarySource(SourceConnector):
    def version(self) -> str:
        return "bench"

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return OrdinarySourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        return None
