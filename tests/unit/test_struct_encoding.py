"""The JSON converter's fast paths write what its checking path writes: the struct encoders' signature
path against their field-by-field path, values and errors alike."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectworker.api.schema import INT32_SCHEMA, STRING_SCHEMA, Schema, SchemaType
from connectworker.converters.encoding import InvalidValue, compile_batch_encoder, compile_encoder
from connectworker.converters.json import JSON_DIALECT
from connectworker.converters.logical import DATE

# -- struct encoders: the signature path against the field-by-field path ---------------------------
INNER = Schema.struct(
    "inner", ("n", Schema(SchemaType.INT8, optional=True)), ("s", Schema(SchemaType.STRING, optional=True))
)
OUTER = Schema.struct(
    "outer",
    ("id", Schema(SchemaType.INT64)),
    ("small", Schema(SchemaType.INT16, optional=True)),
    ("flag", Schema(SchemaType.BOOLEAN, optional=True)),
    ("ratio", Schema(SchemaType.FLOAT64, optional=True)),
    ("raw", Schema(SchemaType.BYTES, optional=True)),
    ("day", Schema(SchemaType.INT32, optional=True, name=DATE)),
    ("inner", INNER.as_optional()),
    ("tags", Schema.array(STRING_SCHEMA, optional=True)),
    ("labels", Schema.map(STRING_SCHEMA, INT32_SCHEMA, optional=True)),
    ("name", STRING_SCHEMA),
)
_ENCODE = compile_encoder(OUTER, JSON_DIALECT)

junk = (
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats(allow_nan=False)
    | st.text(max_size=3)
    | st.binary(max_size=3)
    | st.dates()
    | st.fixed_dictionaries({"n": st.none() | st.integers(-200, 200) | st.text(max_size=1), "s": st.none()})
    | st.lists(st.text(max_size=2) | st.integers(), max_size=2)
    | st.dictionaries(st.text(max_size=2), st.integers(-5, 5) | st.none(), max_size=2)
)
valid = {
    "id": st.integers(-(2**63), 2**63 - 1),
    "small": st.none() | st.integers(-(2**15), 2**15 - 1),
    "flag": st.none() | st.booleans(),
    "ratio": st.none() | st.floats(allow_nan=False) | st.integers(-5, 5),
    "raw": st.none() | st.binary(max_size=3),
    "day": st.none() | st.dates(),
    "inner": st.none() | st.fixed_dictionaries({"n": st.none() | st.integers(-128, 127), "s": st.none() | st.text()}),
    "tags": st.none() | st.lists(st.text(max_size=2), max_size=2),
    "labels": st.none() | st.dictionaries(st.text(max_size=2), st.integers(-(2**31), 2**31 - 1), max_size=2),
    "name": st.text(max_size=3),
}
# Mostly every field, valid (the signature path's ground); else a junk value in one field, a missing
# field, or one field too many.
every_field = st.fixed_dictionaries(valid)
one_junk = st.sampled_from(sorted(valid)).flatmap(
    lambda bad: st.fixed_dictionaries({name: junk if name == bad else strategy for name, strategy in valid.items()})
)
some_fields = st.fixed_dictionaries({}, optional={name: strategy | junk for name, strategy in valid.items()})
extra_field = st.fixed_dictionaries(valid | {"extra": st.integers()})
structs = st.one_of(every_field, every_field, every_field, every_field, one_junk, one_junk, some_fields, extra_field)


class NotADict(dict[str, Any]):
    """A struct value the signature path leaves alone (it takes exact dicts only)."""


def by_fields(value: dict[str, Any]) -> NotADict:
    """`value` with its structs (itself, its `inner`) as `NotADict`: every struct takes the field-by-field
    path. Values in other fields stay as they are, so that an error naming one names the same class."""
    inner = value.get("inner")
    return NotADict(value | ({"inner": NotADict(inner)} if type(inner) is dict else {}))


def outcome(value: Any) -> tuple[str, Any]:
    try:
        return "ok", json.dumps(_ENCODE(value), default=repr)
    except InvalidValue as exc:
        return "error", exc.describe()


@settings(max_examples=600)
@given(structs, st.randoms(use_true_random=False))
def test_the_signature_path_gives_the_field_by_field_result_and_error(value: dict[str, Any], rng: Any) -> None:
    names = [field.name for field in OUTER.fields]
    ordered = {name: value[name] for name in names if name in value} | value  # schema order, then the extra
    shuffled = dict(rng.sample(sorted(value.items()), len(value)))
    for candidate in (value, ordered, shuffled):
        assert outcome(candidate) == outcome(by_fields(candidate))


def test_a_valid_struct_in_schema_order_is_its_own_plain_form_and_a_converted_field_copies_it() -> None:
    inner = {"n": 3, "s": None}
    value = {"id": 1, "small": None, "flag": True, "ratio": 0.5, "raw": None, "day": None}
    value |= {"inner": inner, "tags": None, "labels": None, "name": "x"}
    assert _ENCODE(value) is value
    with_bytes = value | {"raw": b"\x00"}
    plain = _ENCODE(with_bytes)
    assert plain is not with_bytes and plain["raw"] == "AA==" and with_bytes["raw"] == b"\x00"
    assert list(plain) == list(with_bytes)


# -- a poll's values at once: a nested value they share is checked once per poll, and again at the next ----------
def test_a_nested_value_several_values_share_is_encoded_once_per_poll_and_checked_again_at_the_next() -> None:
    encode_all = compile_batch_encoder(OUTER, JSON_DIALECT, _ENCODE)
    shared = {"n": 5, "s": "snapshot"}  # as a chunk's rows share their `source` block
    values = [{"id": n, "name": f"row {n}", "inner": shared, "raw": b"\x00"} for n in range(3)]
    assert encode_all(values) == [_ENCODE(value) for value in values]
    shared["n"] = 500  # changed between two polls: out of INT8's range, and the next poll says so
    with pytest.raises(InvalidValue) as refused:
        encode_all(values)
    assert refused.value.describe() == "field 'inner.n' value 500 is out of range for int8 [-128, 127]"
