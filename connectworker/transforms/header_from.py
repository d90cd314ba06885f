"""`HeaderFrom$Key` / `HeaderFrom$Value`: copy or move fields of the key (or value) into headers.

Kafka's keys: `fields` and `headers` (required, non-empty lists of the same length: field *i* goes to
header *i*), `operation` (required, `copy` or `move`, lower case) and `replace.null.with.default`
(boolean, default true; accepted without effect, as schemas here carry no default values). Each field
adds a header after the existing ones, even when a header of that name is already there, as Kafka's
does. A field absent from a schemaless map gives a null header. With a schema, `move` rebuilds the
struct schema without the moved fields, keeping its name, version and doc but not its optionality
(as Kafka's `SchemaUtil.copySchemaBasics` does); a field the schema lacks is a `DataError` (Kafka fails
with a NullPointerException).

Header values. Kafka keeps a field's value and schema in the header, and the worker's default header
converter, `SimpleHeaderConverter`, writes them as text (`Values.convertToString`). Headers here are
written as given, so `header_text` makes that text here, the same as Kafka's default writes:

- null stays null (a header without a value); a string is written as it is;
- booleans and integers as Java prints them, floats as `Double.toString` (or `Float.toString` for a
  float32 field) prints them: ``true``, ``42``, ``1.0``, ``1.0E10``;
- bytes in base64, as text (not the raw bytes);
- a Date, Time or Timestamp as ISO 8601 in UTC: ``2020-01-31``, ``10:15:30.000Z`` or
  ``2020-01-31T10:15:30.000Z``, chosen by the instant as Kafka chooses (a time before the second day of
  1970, a date at a midnight, else a timestamp);
- arrays, maps and structs in Kafka's JSON-like form, strings inside them quoted and escaped (``\\`` and
  ``"``): ``[1,2]``, ``{"a":1,"b":null}``; a struct's fields in schema order.
"""

from __future__ import annotations

import base64
import math
import struct
from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, one_of
from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters import logical
from connectworker.converters.encoding import SchemaCache
from connectworker.transforms.cast import java_float_text
from connectworker.transforms.java_date_format import JavaDateFormat, TimestampOutOfRange
from connectworker.transforms.side import Side, require_map, require_struct, with_headers, with_side

__all__ = ["HeaderFromKey", "HeaderFromValue", "header_text"]

FIELDS_CONFIG = "fields"
HEADERS_CONFIG = "headers"
OPERATION_CONFIG = "operation"
REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
MOVE, COPY = "move", "copy"

_MILLIS_PER_DAY = 86_400_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
# Kafka's `Values` formats: by instant, a time of day, a date or a timestamp.
_TIME_TEXT = JavaDateFormat.compile("HH:mm:ss.SSS'Z'")
_DATE_TEXT = JavaDateFormat.compile("yyyy-MM-dd")
_TIMESTAMP_TEXT = JavaDateFormat.compile("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")


# -- header values as text ----------------------------------------------------------------------
def header_text(value: Any, schema: Schema | None) -> str | None:
    """`value` (described by `schema`, or schemaless) as Kafka's `SimpleHeaderConverter` writes it;
    `DataError` for a value Connect has no type for."""
    if value is None:
        return None
    out: list[str] = []
    _append(out, value, schema, embedded=False)
    return "".join(out)


def _append(out: list[str], value: Any, schema: Schema | None, *, embedded: bool) -> None:
    """`embedded`: inside an array, map or struct, where strings and bytes are quoted."""
    kind = schema.type if schema is not None else None
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int | float) and kind is SchemaType.FLOAT32:
        # Python holds a float32 field in a double (or an int); Java holds, and prints, a Float.
        out.append(java_float_text(_float32(value), single=True))
    elif isinstance(value, int | float) and kind is SchemaType.FLOAT64:
        out.append(java_float_text(float(value), single=False))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(java_float_text(value, single=False))
    elif isinstance(value, str):
        out.append('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if embedded else value)
    elif isinstance(value, bytes | bytearray | memoryview):
        encoded = base64.b64encode(bytes(value)).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, list | tuple):
        items = schema.value_schema if schema is not None else None
        out.append("[")
        for i, item in enumerate(value):
            out.append("," if i else "")
            _append(out, item, items, embedded=True)
        out.append("]")
    elif isinstance(value, dict) and schema is not None and schema.type is SchemaType.STRUCT:
        out.append("{")
        for i, field in enumerate(schema.fields):
            out.append("," if i else "")
            _append(out, field.name, None, embedded=True)
            out.append(":")
            _append(out, value.get(field.name), field.schema, embedded=True)
        out.append("}")
    elif isinstance(value, dict):
        keys, values = (schema.key_schema, schema.value_schema) if schema is not None else (None, None)
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append("," if i else "")
            _append(out, key, keys, embedded=True)
            out.append(":")
            _append(out, item, values, embedded=True)
        out.append("}")
    elif isinstance(value, date | time):
        out.append(_instant_text(value))
    else:
        raise DataError(f"Failed to serialize unexpected value type {type(value).__name__}: {value!r}")


def _float32(value: float) -> float:
    """`value` rounded to the nearest float32, as a Java `Float` holding it."""
    try:
        rounded: float = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return rounded


def _instant_text(value: date | time) -> str:
    """Kafka chooses the form by the instant, so a Timestamp before 1970-01-02 (even a negative one)
    prints as a time of day; that is kept, since it is what Kafka writes."""
    if isinstance(value, datetime):
        millis = logical.to_wire(logical.TIMESTAMP, value if value.tzinfo else value.replace(tzinfo=UTC))
    elif isinstance(value, date):
        millis = (value.toordinal() - _EPOCH_ORDINAL) * _MILLIS_PER_DAY
    else:
        millis = logical.to_wire(logical.TIME, value)
    form = _TIME_TEXT if millis < _MILLIS_PER_DAY else _DATE_TEXT if millis % _MILLIS_PER_DAY == 0 else _TIMESTAMP_TEXT
    try:
        return form.format(millis)
    except TimestampOutOfRange as exc:
        raise DataError(f"Cannot write {value!r} as header text: {exc}") from None


# -- the transform ------------------------------------------------------------------------------
def _non_empty_list(key: str, value: Any) -> None:
    if not value:
        raise ValueError("Empty list")


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
        return (ConfigDef()
                .define(FIELDS_CONFIG, ConfigType.LIST, validator=_non_empty_list, importance=Importance.HIGH,
                        documentation="Field names in the record whose values are to be copied or moved to "
                                      "headers.")
                .define(HEADERS_CONFIG, ConfigType.LIST, validator=_non_empty_list, importance=Importance.HIGH,
                        documentation="Header names, in the same order as the field names listed in the fields "
                                      "configuration property.")
                .define(OPERATION_CONFIG, ConfigType.STRING, validator=one_of(MOVE, COPY, case_sensitive=True),
                        importance=Importance.HIGH,
                        documentation="Either move if the fields are to be moved to the headers (removed from the "
                                      "key/value), or copy if the fields are to be copied to the headers (retained "
                                      "in the key/value).")
                .define(REPLACE_NULL_WITH_DEFAULT_CONFIG, ConfigType.BOOLEAN, True, importance=Importance.MEDIUM,
                        documentation="Whether to replace fields that have a default value and that are null to "
                                      "the default value (no effect here: schemas carry no default values)."))

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        fields, headers = config[FIELDS_CONFIG], config[HEADERS_CONFIG]
        if len(fields) != len(headers):
            raise ConfigError({HEADERS_CONFIG: f"'{FIELDS_CONFIG}' config must have the same number of elements "
                                               f"as '{HEADERS_CONFIG}' config ({len(fields)} fields, "
                                               f"{len(headers)} headers)."})
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
                headers.append((header, header_text(value.get(name), None)))
            updated = {k: v for k, v in value.items() if k not in self._removed}
            return with_headers(with_side(record, self._side, updated, None), headers)
        struct, schema = require_struct(record, self._side, purpose)
        by_name = {field.name: field for field in schema.fields}
        for name, header in zip(self._fields, self._headers, strict=True):
            field = by_name.get(name)
            if field is None:
                raise DataError(f"HeaderFrom cannot {self._operation} field {name!r} to header {header!r}: the "
                                f"record {self._side.value} schema has no such field (record on topic "
                                f"{record.topic!r})")
            headers.append((header, header_text(struct.get(name), field.schema)))
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
