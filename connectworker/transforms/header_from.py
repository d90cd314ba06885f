"""`HeaderFrom$Key` / `HeaderFrom$Value`: copy or move fields of the key (or value) into headers.

Kafka's keys: `fields` and `headers` (required, non-empty lists of the same length: field *i* goes to
header *i*), `operation` (required, `copy` or `move`, lower case) and `replace.null.with.default`
(boolean, default true; accepted without effect, as schemas here carry no default values). Each field
adds a header after the existing ones, even when a header of that name is already there, as Kafka's
does. A field absent from a schemaless map gives a null header. With a schema, `move` rebuilds the
struct schema without the moved fields, keeping its name, version and doc but not its optionality
(as Kafka's `SchemaUtil.copySchemaBasics` does); a field the schema lacks is a `DataError` (Kafka fails
with a NullPointerException).

Header values keep their type, as in Kafka: a field of a struct becomes a header with the field's value
and schema (a `SchemaAndValue`), a field of a schemaless map a header with the plain value. The
worker's `header.converter` writes them: `SimpleHeaderConverter`, the default, as text (``42``,
``1.0E10``, ``2020-01-31``, ``[1,2]``); JsonConverter with the schema in its envelope. Null stays null.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, non_empty_list, one_of
from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaAndValue, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters.encoding import SchemaCache
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, require_map, require_struct, with_headers, with_side

__all__ = ["HeaderFromKey", "HeaderFromValue"]

FIELDS_CONFIG = "fields"
HEADERS_CONFIG = "headers"
OPERATION_CONFIG = "operation"
MOVE, COPY = "move", "copy"


class HeaderFrom(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they read."""

    _side: Side

    def __init__(self) -> None:
        self._fields: list[str] = []
        self._headers: list[str] = []
        self._operation = COPY
        self._removed: frozenset[str] = frozenset()  # the fields a move takes out of the key (or value)
        self._move_schemas: SchemaCache[Schema] = SchemaCache(self._moved_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                FIELDS_CONFIG,
                ConfigType.LIST,
                validator=non_empty_list,
                importance=Importance.HIGH,
                documentation="Field names in the record whose values are to be copied or moved to headers.",
            )
            .define(
                HEADERS_CONFIG,
                ConfigType.LIST,
                validator=non_empty_list,
                importance=Importance.HIGH,
                documentation="Header names, in the same order as the field names listed in the fields "
                "configuration property.",
            )
            .define(
                OPERATION_CONFIG,
                ConfigType.STRING,
                validator=one_of(MOVE, COPY, case_sensitive=True),
                importance=Importance.HIGH,
                documentation="Either move if the fields are to be moved to the headers (removed from the "
                "key/value), or copy if the fields are to be copied to the headers (retained "
                "in the key/value).",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        fields, headers = config[FIELDS_CONFIG], config[HEADERS_CONFIG]
        if len(fields) != len(headers):
            raise ConfigError(
                {
                    HEADERS_CONFIG: f"'{FIELDS_CONFIG}' config must have the same number of elements "
                    f"as '{HEADERS_CONFIG}' config ({len(fields)} fields, "
                    f"{len(headers)} headers)."
                }
            )
        self._fields, self._headers = fields, headers
        self._operation = config[OPERATION_CONFIG]
        self._removed = frozenset(fields) if self._operation == MOVE else frozenset()
        self._move_schemas = SchemaCache(self._moved_schema, max_size=16)

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema = record.key_schema if self._side is Side.KEY else record.value_schema
        purpose = f"header {self._operation}"
        headers = list(record.headers)
        if schema is None:
            value = require_map(record, self._side, purpose)
            for name, header in zip(self._fields, self._headers, strict=True):
                headers.append((header, value.get(name)))
            updated = {k: v for k, v in value.items() if k not in self._removed}
            return with_headers(with_side(record, self._side, updated, None), headers)
        struct, schema = require_struct(record, self._side, purpose)
        by_name = {field.name: field for field in schema.fields}
        for name, header in zip(self._fields, self._headers, strict=True):
            field = by_name.get(name)
            if field is None:
                raise DataError(
                    f"HeaderFrom cannot {self._operation} field {name!r} to header {header!r}: the "
                    f"record {self._side.value} schema has no such field (record on topic "
                    f"{record.topic!r})"
                )
            headers.append((header, SchemaAndValue(field.schema, struct.get(name))))
        if self._removed:
            schema = self._move_schemas.get(schema)
            struct = {field.name: struct.get(field.name) for field in schema.fields}
        return with_headers(with_side(record, self._side, struct, schema), headers)

    def _moved_schema(self, schema: Schema) -> Schema:
        kept: tuple[Field, ...] = tuple(f for f in schema.fields if f.name not in self._removed)
        return Schema(SchemaType.STRUCT, name=schema.name, version=schema.version, doc=schema.doc, fields=kept)


class HeaderFromKey(HeaderFrom):
    """Reads the record key (Kafka's `HeaderFrom$Key`)."""

    _side = Side.KEY


class HeaderFromValue(HeaderFrom):
    """Reads the record value (Kafka's `HeaderFrom$Value`)."""

    _side = Side.VALUE
