"""`DropHeaders`: remove every header whose name is listed.

Kafka's key: `headers` (required, a non-empty list of header names). Every header of a listed name goes,
however many there are; the others keep their order. Names are compared exactly (case-sensitive).
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, non_empty_list
from connectworker.api.record import SourceRecord
from connectworker.api.transform import Transformation
from connectworker.transforms.side import with_headers

__all__ = ["DropHeaders"]

HEADERS_CONFIG = "headers"


class DropHeaders(Transformation):
    """Removes one or more headers from each record."""

    def __init__(self) -> None:
        self._names: frozenset[str] = frozenset()

    def config_def(self) -> ConfigDef:
        return ConfigDef().define(
            HEADERS_CONFIG,
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="The name of the headers to be removed.",
        )

    def configure(self, props: Mapping[str, str]) -> None:
        self._names = frozenset(self.config_def().parse(props)[HEADERS_CONFIG])

    def apply(self, record: SourceRecord) -> SourceRecord:
        kept = [header for header in record.headers if header[0] not in self._names]
        return with_headers(record, kept)
