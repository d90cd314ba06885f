"""`HoistField$Key` / `HoistField$Value`: wrap the whole key (or value) in a one-field struct or map.

Kafka's key: `field` (required), the name of that one field. With a schema, the result schema is an
unnamed, required struct whose one field has the original schema; without one, the result is a map. A
null is wrapped too (``{"field": None}``), except under a required schema, where Kafka's struct refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema
from connectworker.api.transform import Transformation
from connectworker.transforms.side import Side, schema_of, value_of, with_side

__all__ = ["HoistFieldKey", "HoistFieldValue"]

FIELD_CONFIG = "field"


class HoistField(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they wrap."""

    _side: Side

    def __init__(self) -> None:
        self._field = ""

    def config_def(self) -> ConfigDef:
        return ConfigDef().define(
            FIELD_CONFIG,
            ConfigType.STRING,
            importance=Importance.MEDIUM,
            documentation="Field name for the single field that will be created in the resulting Struct or Map.",
        )

    def configure(self, props: Mapping[str, str]) -> None:
        self._field = self.config_def().parse(props)[FIELD_CONFIG]

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema, value = schema_of(record, self._side), value_of(record, self._side)
        if schema is None:
            return with_side(record, self._side, {self._field: value}, None)
        if value is None and not schema.optional:
            raise DataError(
                f'Invalid value: null used for required field: "{self._field}", '
                f"schema type: {schema.type.name} (record {self._side.value} on topic {record.topic!r})"
            )
        # Schemas are immutable and cheap to build: no cache needed, unlike Kafka's SchemaBuilder.
        return with_side(record, self._side, {self._field: value}, Schema.struct(None, (self._field, schema)))


class HoistFieldKey(HoistField):
    """Wraps the record key (Kafka's `HoistField$Key`)."""

    _side = Side.KEY


class HoistFieldValue(HoistField):
    """Wraps the record value (Kafka's `HoistField$Value`)."""

    _side = Side.VALUE
