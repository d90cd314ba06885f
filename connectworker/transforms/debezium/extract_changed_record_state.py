"""`io.debezium.transforms.ExtractChangedRecordState`: headers listing the columns an update changed and
those it left as they were.

Debezium's keys, neither set by default: `header.changed.name` and `header.unchanged.name`, the names of
the two headers. Each is a list of column names (in the row's order) under an optional array schema named
like the header; a change event that is not an update with both rows (an insert, a read, a delete) gets
both headers, empty, so that every event of a topic carries them. Tombstones and records that are not
change events pass unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import OPTIONAL_STRING_SCHEMA, Schema, SchemaAndValue, SchemaType
from connectworker.api.transform import Transformation
from connectworker.transforms.debezium.envelope import AFTER, BEFORE, field_schema, is_envelope
from connectworker.transforms.side import with_headers

__all__ = ["ExtractChangedRecordState"]

HEADER_CHANGED_NAME = "header.changed.name"
HEADER_UNCHANGED_NAME = "header.unchanged.name"

CONFIG_DEF = (
    ConfigDef()
    .define(
        HEADER_CHANGED_NAME,
        ConfigType.STRING,
        None,
        importance=Importance.LOW,
        documentation="The header listing the columns an update changed (not set: no such header).",
    )
    .define(
        HEADER_UNCHANGED_NAME,
        ConfigType.STRING,
        None,
        importance=Importance.LOW,
        documentation="The header listing the columns an update left unchanged (not set: no such header).",
    )
)


def _list_schema(name: str) -> Schema:
    return Schema(SchemaType.ARRAY, optional=True, name=name, value_schema=OPTIONAL_STRING_SCHEMA)


class ExtractChangedRecordState(Transformation):
    """Debezium's `io.debezium.transforms.ExtractChangedRecordState`."""

    def __init__(self) -> None:
        self._changed: tuple[str, Schema] | None = None
        self._unchanged: tuple[str, Schema] | None = None

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, props: Mapping[str, str]) -> None:
        config = CONFIG_DEF.parse(props)
        changed, unchanged = config[HEADER_CHANGED_NAME], config[HEADER_UNCHANGED_NAME]
        self._changed = (changed, _list_schema(changed)) if changed else None
        self._unchanged = (unchanged, _list_schema(unchanged)) if unchanged else None

    def apply(self, record: SourceRecord) -> SourceRecord:
        envelope = record.value
        if envelope is None or not is_envelope(record.value_schema) or not (self._changed or self._unchanged):
            return record
        if not isinstance(envelope, dict):
            raise DataError(f"A change event of topic {record.topic!r} is not a struct: {type(envelope).__name__}")
        before, after = envelope.get(BEFORE), envelope.get(AFTER)
        changed: list[str] = []
        unchanged: list[str] = []
        row_schema = field_schema(record.value_schema, AFTER)
        if before is not None and after is not None and row_schema is not None:
            for field in row_schema.fields:
                (unchanged if before.get(field.name) == after.get(field.name) else changed).append(field.name)
        headers = list(record.headers)
        if self._changed is not None:
            headers.append((self._changed[0], SchemaAndValue(self._changed[1], changed)))
        if self._unchanged is not None:
            headers.append((self._unchanged[0], SchemaAndValue(self._unchanged[1], unchanged)))
        return with_headers(record, headers)
