"""pydantic-core's serializer (`native_dumps`) writes what the standard library's encoder writes for the
values `writes_alike` lets it write, so that the JSON converter's output does not depend on which wrote it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectworker.api.schema import FLOAT64_SCHEMA, INT32_SCHEMA, STRING_SCHEMA, Schema, SchemaType
from connectworker.converters import JsonConverter
from connectworker.converters.fast_json import CompactJson, native_dumps, writes_alike
from connectworker.converters.logical import DATE

_STDLIB = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_COMPACT = CompactJson(_STDLIB)


def stdlib_bytes(value: Any) -> bytes:
    return _COMPACT.one(value).encode()


# -- native_dumps writes what the standard library writes ------------------------------------------
def test_every_code_point_is_written_alike_in_values_and_keys() -> None:
    for start in range(0, 0x110000, 0x1000):
        text = "".join(chr(c) for c in range(start, min(start + 0x1000, 0x110000)) if not 0xD800 <= c <= 0xDFFF)
        assert native_dumps(text) == stdlib_bytes(text), hex(start)
        assert native_dumps({text: [text]}) == stdlib_bytes({text: [text]}), hex(start)


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "\ud83d\ude00"])
def test_a_lone_surrogate_fails_both(text: str) -> None:
    with pytest.raises(UnicodeEncodeError):
        stdlib_bytes(text)
    with pytest.raises(ValueError):
        native_dumps(text)


@pytest.mark.parametrize("number", [0, 1, -1, 2**31 - 1, -(2**31), 2**53 + 1, 2**63 - 1, -(2**63)])
def test_integers_of_every_connect_width_are_written_alike(number: int) -> None:
    assert native_dumps(number) == stdlib_bytes(number)
    assert native_dumps([number, True, False, None]) == stdlib_bytes([number, True, False, None])


exact_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=16,
)


@settings(max_examples=400)
@given(exact_values)
def test_exact_dicts_lists_strings_ints_bools_and_none_are_written_alike(value: Any) -> None:
    assert native_dumps(value) == stdlib_bytes(value)


def test_schemas_with_floats_or_none_keyed_maps_are_left_to_the_standard_library() -> None:
    assert writes_alike(Schema.struct("s", ("a", INT32_SCHEMA), ("b", Schema.array(STRING_SCHEMA))))
    assert writes_alike(Schema(SchemaType.INT32, name=DATE))
    assert not writes_alike(Schema.struct("s", ("a", INT32_SCHEMA), ("f", FLOAT64_SCHEMA)))
    assert not writes_alike(Schema.array(Schema(SchemaType.FLOAT32)))
    assert not writes_alike(Schema.map(Schema(SchemaType.STRING, optional=True), INT32_SCHEMA))
    assert not writes_alike(Schema.map(STRING_SCHEMA, FLOAT64_SCHEMA))
    assert writes_alike(Schema.map(INT32_SCHEMA, Schema.map(STRING_SCHEMA, STRING_SCHEMA)))


def test_a_poll_of_float_free_values_is_written_as_the_checking_path_writes_it() -> None:
    schema = Schema.struct("k", ("id", Schema(SchemaType.INT64)), ("note", Schema(SchemaType.STRING, optional=True)))
    values = [{"id": n, "note": None if n % 3 else f"n\u00e9\n{n}\x01"} for n in range(-5, 20)]
    for schemas in ("true", "false"):
        converter = JsonConverter()
        converter.configure({"schemas.enable": schemas}, is_key=False)
        one_by_one = [converter.from_connect_data("t", schema, value) for value in values]
        assert converter.from_connect_values(["t"] * len(values), [schema] * len(values), values) == one_by_one


FLOAT_FREE = Schema.struct(
    "row",
    ("id", Schema(SchemaType.INT64)),
    ("flag", Schema(SchemaType.BOOLEAN, optional=True)),
    ("raw", Schema(SchemaType.BYTES, optional=True)),
    ("day", Schema(SchemaType.INT32, optional=True, name=DATE)),
    ("inner", Schema.struct("inner", ("s", STRING_SCHEMA), optional=True)),
    ("tags", Schema.array(Schema(SchemaType.STRING, optional=True), optional=True)),
    ("labels", Schema.map(STRING_SCHEMA, Schema(SchemaType.INT16, optional=True), optional=True)),
    ("pairs", Schema.map(INT32_SCHEMA, STRING_SCHEMA, optional=True)),
)
rows = st.fixed_dictionaries(
    {
        "id": st.integers(-(2**63), 2**63 - 1),
        "flag": st.none() | st.booleans(),
        "raw": st.none() | st.binary(max_size=4),
        "day": st.none() | st.dates(),
        "inner": st.none() | st.fixed_dictionaries({"s": st.text()}),
        "tags": st.none() | st.lists(st.none() | st.text(), max_size=3),
        "labels": st.none() | st.dictionaries(st.text(), st.none() | st.integers(-(2**15), 2**15 - 1), max_size=3),
        "pairs": st.none() | st.dictionaries(st.integers(-(2**31), 2**31 - 1), st.text(), max_size=3),
    }
)


@settings(max_examples=200)
@given(st.lists(rows, min_size=1, max_size=5), st.booleans())
def test_polls_of_a_float_free_schema_are_written_as_one_by_one(values: list[dict[str, Any]], schemas: bool) -> None:
    assert writes_alike(FLOAT_FREE)
    converter = JsonConverter()
    converter.configure({"schemas.enable": str(schemas).lower()}, is_key=False)
    one_by_one = [converter.from_connect_data("t", FLOAT_FREE, value) for value in values]
    assert converter.from_connect_values(["t"] * len(values), [FLOAT_FREE] * len(values), values) == one_by_one
