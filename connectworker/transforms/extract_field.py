"""`ExtractField$Key` / `ExtractField$Value`: the key (or value) becomes one field of the struct or map it was.

Kafka's keys: `field` (required), `field.syntax.version` (`V1`, the default, or `V2`, case-insensitive;
KIP-821) and `replace.null.with.default` (boolean, default true). Under V1 `field` names a top-level
field. Under V2 it is a dotted path into nested structs or maps; a step whose name contains dots is
wrapped in backticks (``a.`b.c`.d``), and a backtick inside such a step is escaped with a backslash
when a dot follows it.

A null key (or value) gives a null result. Without a schema, a missing field (or a null on the way to
it) gives null too; with a schema, a path the schema lacks is an error, and the result's schema is the
field's schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, one_of
from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, value_of, with_side

__all__ = ["ExtractFieldKey", "ExtractFieldValue", "parse_field_path"]

FIELD_CONFIG = "field"
FIELD_SYNTAX_VERSION_CONFIG = "field.syntax.version"
PURPOSE = "field extraction"
_NESTED_PURPOSE = "nested field access"

_BACKTICK, _DOT, _BACKSLASH = "`", ".", "\\"


def parse_field_path(path: str, version: str) -> tuple[str, ...]:
    """The steps of `path` under field syntax `version` ("V1": the whole text is one step; "V2": KIP-821's
    dotted notation). Raises `ConfigError` (on `field`) for an unclosed backtick."""
    if version.upper() == "V1" or not path:
        # V2 splits "" into no step at all, which Kafka only discovers as an index error per record; one
        # empty-named step keeps V1's meaning instead.
        return (path,)
    steps: list[str] = []
    idx = 0
    while idx < len(path):
        if path[idx] != _BACKTICK:
            dot = path.find(_DOT, idx)
            steps.append(path[idx:] if dot < 0 else path[idx:dot])
            idx = len(path) if dot < 0 else dot + 1
            continue
        idx = _quoted_step(path, idx, steps)
    if path.endswith(_DOT):
        steps.append("")
    return tuple(steps)


def _quoted_step(path: str, opening: int, steps: list[str]) -> int:
    """Append the backtick-quoted step opening at `opening`; return where the next step starts.

    The step ends at a backtick followed by a dot (or ending the path) that no backslash escapes. Other
    backticks are part of the name; an escaped one before a dot loses its backslash.
    """
    parts: list[str] = []
    start = idx = opening + 1
    while True:
        idx = path.find(_BACKTICK, idx)
        if idx < 0:
            _incomplete_backtick(path, opening)
        escaped = path[idx - 1] == _BACKSLASH
        if idx == len(path) - 1:
            if escaped:
                _incomplete_backtick(path, opening)
            steps.append("".join(parts) + path[start:idx])
            return idx + 1
        if path[idx + 1] != _DOT:
            idx += 1
            continue
        if escaped:
            parts.append(path[start : idx - 1] + _BACKTICK)
            idx += 1
            start = idx
            continue
        steps.append("".join(parts) + path[start:idx])
        return idx + 2


def _incomplete_backtick(path: str, position: int) -> None:
    raise ConfigError(
        {
            FIELD_CONFIG: f"Incomplete backtick pair in path: [{path}], consider adding a backslash "
            f"before backtick at position {position} to escape it"
        }
    )


class ExtractField(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they read."""

    _side: Side

    def __init__(self) -> None:
        self._path_text = ""
        self._steps: tuple[str, ...] = ("",)

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                FIELD_CONFIG,
                ConfigType.STRING,
                importance=Importance.MEDIUM,
                documentation="Field name to extract (a dotted path under field syntax V2).",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
            .define(
                FIELD_SYNTAX_VERSION_CONFIG,
                ConfigType.STRING,
                "V1",
                validator=one_of("V1", "V2"),
                importance=Importance.HIGH,
                documentation="V1: `field` names a top-level field. V2: `field` is a dotted path to a nested "
                "field; wrap a name containing dots in backticks, e.g. `foo.bar`.baz.",
            )
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._path_text = config[FIELD_CONFIG]
        self._steps = parse_field_path(self._path_text, config[FIELD_SYNTAX_VERSION_CONFIG])

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema, value = schema_of(record, self._side), value_of(record, self._side)
        if schema is None:
            if value is not None:
                require_map(record, self._side, PURPOSE)
            return with_side(record, self._side, None if value is None else self._from_map(value), None)
        if value is not None:
            require_struct(record, self._side, PURPOSE)
        field_schema = self._field_schema(schema)
        return with_side(record, self._side, None if value is None else self._from_struct(value), field_schema)

    def _from_map(self, value: dict[str, Any]) -> Any:
        current = value
        for step in self._steps[:-1]:
            inner = current.get(step)
            if inner is None:
                return None
            if not isinstance(inner, dict):
                raise DataError(
                    f"Only Map objects supported in absence of schema for [{_NESTED_PURPOSE}], found: "
                    f"{type(inner).__name__} (step {step!r} of {self._path_text!r})"
                )
            current = inner
        return current.get(self._steps[-1])

    def _from_struct(self, value: dict[str, Any]) -> Any:
        # `_field_schema` has already checked every step against the schema.
        current = value
        for step in self._steps[:-1]:
            inner = current.get(step)
            if inner is None:
                return None
            if not isinstance(inner, dict):
                raise DataError(
                    f"Only Struct objects supported for [{_NESTED_PURPOSE}], found: "
                    f"{type(inner).__name__} (step {step!r} of {self._path_text!r})"
                )
            current = inner
        return current.get(self._steps[-1])

    def _field_schema(self, schema: Schema) -> Schema:
        current = schema
        for step in self._steps:
            if current.type is not SchemaType.STRUCT:
                raise DataError(
                    f"Cannot look up fields on non-struct type: {current.type.name} "
                    f"(looking for {step!r} of {self._path_text!r})"
                )
            found = next((field.schema for field in current.fields if field.name == step), None)
            if found is None:
                raise DataError(f"Unknown field: {self._path_text}")
            current = found
        return current


class ExtractFieldKey(ExtractField):
    """Extracts from the record key (Kafka's `ExtractField$Key`)."""

    _side = Side.KEY


class ExtractFieldValue(ExtractField):
    """Extracts from the record value (Kafka's `ExtractField$Value`)."""

    _side = Side.VALUE
