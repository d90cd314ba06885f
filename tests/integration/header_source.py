"""A connector for the header tests: `records` records to `topic`, each an `Order` struct (id, amount as
float32, placed as a Date) with typed headers: a plain str, an int, a float32 and a date given with
their schemas, a list, bytes, a null, and `drop-me`; every second record also has the header `flag`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from connectworker.api import ConfigDef, SchemaAndValue, SourceConnector, SourceRecord, SourceTask
from connectworker.api.schema import INT64_SCHEMA, Schema, SchemaType
from connectworker.converters.logical import DATE

PARTITION = {"headers": 0}
FLOAT32 = Schema(SchemaType.FLOAT32)
DATE_SCHEMA = Schema(SchemaType.INT32, name=DATE)
ORDER = Schema.struct("Order", ("id", INT64_SCHEMA), ("amount", FLOAT32), ("placed", DATE_SCHEMA))


def headers_of(n: int) -> list[tuple[str, Any]]:
    headers: list[tuple[str, Any]] = [
        ("text", f"order {n}"),
        ("count", n),
        ("ratio", SchemaAndValue(FLOAT32, 0.1)),
        ("day", SchemaAndValue(DATE_SCHEMA, date(2024, 5, 17))),
        ("items", [1, "two", None]),
        ("raw", b"\x00\xff"),
        ("nothing", None),
        ("drop-me", "x"),
    ]
    return [*headers, ("flag", True)] if n % 2 else headers


class HeaderTask(SourceTask):
    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        self.topic, self.records = props["topic"], int(props["records"])
        offset = self.context.offset_storage_reader.offset(PARTITION)
        self.next = int(offset["next"]) if offset else 0

    def poll(self) -> list[SourceRecord] | None:
        if self.next >= self.records:
            return None
        records = [
            SourceRecord(
                PARTITION,
                {"next": n + 1},
                self.topic,
                {"id": n, "amount": 2.5, "placed": date(2024, 5, 17)},
                str(n),
                value_schema=ORDER,
                headers=headers_of(n),
            )
            for n in range(self.next, self.records)
        ]
        self.next = self.records
        return records

    def stop(self) -> None:
        return None


class HeaderSource(SourceConnector):
    def version(self) -> str:
        return "test"

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return HeaderTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]

    def stop(self) -> None:
        return None
