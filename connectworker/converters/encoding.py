"""Per-schema value encoders shared by the JSON and Avro converters.

Checking a value against its schema and reshaping it for a wire format is done by a function compiled
once per `Schema` (a tree of closures), so that the per-record cost is one call per value with no schema
dispatch. A `Dialect` says what the format needs: how bytes are written and how maps whose keys are not
strings are represented. Encoders raise `InvalidValue`, which records the path to the bad value on its
way up so the converter can name the field.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.converters import logical

Encoder = Callable[[Any], Any]
T = TypeVar("T")
K = TypeVar("K")


class InvalidValue(Exception):
    """A value does not match its schema. `path` lists the steps to it, innermost first."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[str] = []

    @property
    def location(self) -> str | None:
        """Dotted path of the bad value (`customer.tags[2]`), or None when it is the whole value."""
        return "".join(reversed(self.path)).lstrip(".") or None

    def describe(self) -> str:
        where = self.location
        return f"field '{where}' {self.problem}" if where else f"the value {self.problem}"


@dataclass(frozen=True, slots=True)
class Dialect:
    """What a wire format needs done to the values a schema describes."""

    encode_bytes: Callable[[bytes], Any]
    # True when a map with this schema is written as an object keyed by string, else as a list of entries.
    string_keyed: Callable[[Schema], bool]
    map_entry: Callable[[Any, Any], Any]


_INT_RANGES = {
    SchemaType.INT8: (-(2**7), 2**7 - 1),
    SchemaType.INT16: (-(2**15), 2**15 - 1),
    SchemaType.INT32: (-(2**31), 2**31 - 1),
    SchemaType.INT64: (-(2**63), 2**63 - 1),
}
_PYTHON_TYPE = {
    SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "float",
    SchemaType.BOOLEAN: "bool",
    SchemaType.STRING: "str",
    SchemaType.BYTES: "bytes",
    SchemaType.ARRAY: "list",
    SchemaType.MAP: "dict",
    SchemaType.STRUCT: "dict",
}


def describe_schema(schema: Schema) -> str:
    kind = "optional" if schema.optional else "non-optional"
    named = f" '{schema.name}'" if schema.name else ""
    return f"{kind} {schema.type.value}{named} schema"


def convert_elements(convert: Callable[[Any], Any], elements: Iterable[Any]) -> list[Any]:
    """`convert` each element of an array; a failure's path gains the element's index."""
    out = []
    index = 0
    try:
        for index, element in enumerate(elements):  # noqa: B007 - index is read when an element fails
            out.append(convert(element))
    except InvalidValue as exc:
        exc.path.append(f"[{index}]")
        raise
    return out


def wrong_type(schema: Schema, value: Any) -> InvalidValue:
    if value is None:
        return InvalidValue(f"is required ({describe_schema(schema)}) but the value is None")
    expected = _PYTHON_TYPE.get(schema.type, "int")
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return InvalidValue(f"expected {expected} for a {schema.type.value} schema, got {type(value).__name__} {shown}")


def compile_encoder(schema: Schema, dialect: Dialect) -> Encoder:
    """A function that checks a value against `schema` and returns its plain form for `dialect`."""
    name = logical.logical_name(schema)
    if name is not None:
        return _logical(schema, name)
    builder = _BUILDERS[schema.type]
    return builder(schema, dialect)


def _logical(schema: Schema, name: str) -> Encoder:
    optional = schema.optional

    def encode(value: Any) -> Any:
        if value is None:
            if optional:
                return None
            raise wrong_type(schema, value)
        try:
            return logical.to_wire(name, value)
        except (logical.LogicalValueError, OverflowError) as exc:
            raise InvalidValue(str(exc)) from None

    return encode


def _integer(schema: Schema, dialect: Dialect) -> Encoder:
    low, high = _INT_RANGES[schema.type]
    optional = schema.optional

    def encode(value: Any) -> Any:
        if value.__class__ is int and low <= value <= high:
            return value
        if value is None and optional:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            if low <= value <= high:
                return int(value)
            raise InvalidValue(f"value {value} is out of range for {schema.type.value} [{low}, {high}]")
        raise wrong_type(schema, value)

    return encode


def _floating(schema: Schema, dialect: Dialect) -> Encoder:
    optional = schema.optional

    def encode(value: Any) -> Any:
        if value.__class__ is float:
            return value
        if value is None and optional:
            return None
        if isinstance(value, float | int) and not isinstance(value, bool):
            return float(value)
        raise wrong_type(schema, value)

    return encode


def _boolean(schema: Schema, dialect: Dialect) -> Encoder:
    optional = schema.optional

    def encode(value: Any) -> Any:
        if value is True or value is False:
            return value
        if value is None and optional:
            return None
        raise wrong_type(schema, value)

    return encode


def _string(schema: Schema, dialect: Dialect) -> Encoder:
    optional = schema.optional

    def encode(value: Any) -> Any:
        if value.__class__ is str:
            return value
        if value is None and optional:
            return None
        if isinstance(value, str):
            return str.__str__(value)
        raise wrong_type(schema, value)

    return encode


def _bytes(schema: Schema, dialect: Dialect) -> Encoder:
    optional = schema.optional
    encode_bytes = dialect.encode_bytes

    def encode(value: Any) -> Any:
        if value.__class__ is bytes:
            return encode_bytes(value)
        if value is None and optional:
            return None
        if isinstance(value, bytes | bytearray | memoryview):
            return encode_bytes(bytes(value))
        raise wrong_type(schema, value)

    return encode


def _array(schema: Schema, dialect: Dialect) -> Encoder:
    if schema.value_schema is None:
        raise ValueError("an array schema needs an items schema (value_schema)")
    optional = schema.optional
    item = compile_encoder(schema.value_schema, dialect)

    def encode(value: Any) -> Any:
        if value.__class__ is not list and not isinstance(value, list | tuple):
            if value is None and optional:
                return None
            raise wrong_type(schema, value)
        return convert_elements(item, value)

    return encode


def _map(schema: Schema, dialect: Dialect) -> Encoder:
    if schema.key_schema is None or schema.value_schema is None:
        raise ValueError("a map schema needs both a key_schema and a value_schema")
    optional = schema.optional
    encode_key = compile_encoder(schema.key_schema, dialect)
    encode_value = compile_encoder(schema.value_schema, dialect)
    string_keyed = dialect.string_keyed(schema)
    entry = dialect.map_entry

    def encode(value: Any) -> Any:
        if value.__class__ is not dict and not isinstance(value, Mapping):
            if value is None and optional:
                return None
            raise wrong_type(schema, value)
        out: Any = {} if string_keyed else []
        key = None
        try:
            for key, element in value.items():
                if string_keyed:
                    out[encode_key(key)] = encode_value(element)
                else:
                    out.append(entry(encode_key(key), encode_value(element)))
        except InvalidValue as exc:
            exc.path.append(f"[{key!r}]")
            raise
        return out

    return encode


_SAME_OBJECT: dict[SchemaType, type] = {
    SchemaType.STRING: str,
    SchemaType.BOOLEAN: bool,
    SchemaType.FLOAT32: float,
    SchemaType.FLOAT64: float,
}
"""The class of the values each plain (not logical) schema type's encoder returns unchanged."""
_MAX_SHAPES = 256  # field-type signatures remembered per struct schema (optional fields make several)

FieldPlan = tuple[tuple[tuple[str, int, int], ...], tuple[tuple[str, Encoder], ...]]


def _field_plan(fields: tuple[tuple[Field, Encoder], ...], kinds: tuple[type, ...]) -> FieldPlan:
    """For struct values whose fields hold values of the classes `kinds` (in field order): the int fields
    whose range is to be checked, and the fields whose encoder must run. Every other field's encoder
    would return its value unchanged (a `str` for a string schema, None for an optional one, ...)."""
    ranges: list[tuple[str, int, int]] = []
    calls: list[tuple[str, Encoder]] = []
    for (field, encode_field), kind in zip(fields, kinds, strict=True):
        schema = field.schema
        if logical.logical_name(schema) is None:
            if kind is type(None) and schema.optional:
                continue
            if _SAME_OBJECT.get(schema.type) is kind:
                continue
            if kind is int and schema.type in _INT_RANGES:
                ranges.append((field.name, *_INT_RANGES[schema.type]))
                continue
        calls.append((field.name, encode_field))  # nested, converted, logical, or a value it refuses
    return tuple(ranges), tuple(calls)


def _struct(schema: Schema, dialect: Dialect) -> Encoder:
    """The struct encoder. Its fast path, for a `dict` whose keys are the schema's fields in order: the
    fields' value classes (their signature) pick a plan made once per signature, which checks only what
    needs checking (int ranges, nested values); when every field's plain form is its value, the plain form
    of the struct is the dict itself, not a copy. Anything else takes the field-by-field path, which
    also says what is wrong."""
    optional = schema.optional
    fields = tuple((f.name, compile_encoder(f.schema, dialect)) for f in schema.fields)
    names = frozenset(name for name, _ in fields)
    order = tuple(name for name, _ in fields)
    typed_fields = tuple(zip(schema.fields, (encode_field for _, encode_field in fields), strict=True))
    plans: dict[tuple[type, ...], FieldPlan] = {}

    def encode(value: Any, shared: dict[str, tuple[Any, Any]] | None = None) -> Any:
        if value.__class__ is dict and tuple(value) == order:
            kinds = tuple(map(type, value.values()))
            plan = plans.get(kinds)
            if plan is None:
                plan = _field_plan(typed_fields, kinds)
                if len(plans) < _MAX_SHAPES:
                    plans[kinds] = plan
            ranges, calls = plan
            for name, low, high in ranges:
                if not low <= value[name] <= high:
                    break  # the field-by-field path below says which and why
            else:
                out = value
                name = ""
                try:
                    for name, encode_field in calls:
                        item = value[name]
                        if shared is None or name not in shared:
                            converted = encode_field(item)
                        else:  # a field the poll's values share: its last value's plain form, if it is that value
                            last, converted = shared[name]
                            if last is not item:
                                converted = encode_field(item)
                                shared[name] = (item, converted)
                        if converted is not item:
                            if out is value:
                                out = value.copy()
                            out[name] = converted
                except InvalidValue as exc:
                    exc.path.append(f".{name}")
                    raise
                return out
        return field_by_field(value)

    def field_by_field(value: Any) -> Any:
        if value.__class__ is not dict and not isinstance(value, Mapping):
            if value is None and optional:
                return None
            raise wrong_type(schema, value)
        get = value.get
        out = {}
        name = ""
        try:
            for name, encode_field in fields:
                out[name] = encode_field(get(name))
        except InvalidValue as exc:
            exc.path.append(f".{name}")
            raise
        if not names.issuperset(value):
            extra = next(key for key in value if key not in names)
            problem = InvalidValue(f"is not in the {describe_schema(schema)}")
            problem.path.append(f".{extra}")
            raise problem
        return out

    return encode


def compile_batch_encoder(schema: Schema, dialect: Dialect, encode: Encoder) -> Callable[[Sequence[Any]], list[Any]]:
    """A function encoding a poll's values (`encode`: `schema`'s encoder, from `compile_encoder`). For a
    struct whose first and last values hold the same object in a field (a snapshot chunk's rows share their
    `source` block), that field's value is checked and reshaped once per run of it, not once per value:
    nothing changes the values while they are encoded. Values sharing nothing are encoded one by one as
    ever (a stream's changes each have their own `source`)."""
    if schema.type is not SchemaType.STRUCT or logical.logical_name(schema) is not None:
        return lambda values: list(map(encode, values))
    names = [field.name for field in schema.fields if field.schema.type is SchemaType.STRUCT]

    def encode_all(values: Sequence[Any]) -> list[Any]:
        first, last = (values[0], values[-1]) if len(values) > 1 else (None, None)
        if first.__class__ is not dict or last.__class__ is not dict:
            return list(map(encode, values))
        shared = {name: (_UNSEEN, None) for name in names if first.get(name) is last.get(name) is not None}
        if not shared:
            return list(map(encode, values))
        return [encode(value, shared) for value in values]  # type: ignore[call-arg]

    return encode_all


_UNSEEN = object()  # no value of a shared field seen yet


_BUILDERS: dict[SchemaType, Callable[[Schema, Dialect], Encoder]] = {
    SchemaType.INT8: _integer,
    SchemaType.INT16: _integer,
    SchemaType.INT32: _integer,
    SchemaType.INT64: _integer,
    SchemaType.FLOAT32: _floating,
    SchemaType.FLOAT64: _floating,
    SchemaType.BOOLEAN: _boolean,
    SchemaType.STRING: _string,
    SchemaType.BYTES: _bytes,
    SchemaType.ARRAY: _array,
    SchemaType.MAP: _map,
    SchemaType.STRUCT: _struct,
}


def required(schema: Schema) -> Schema:
    """`schema` with `optional=False` (Avro names and reuses the non-optional form of a struct)."""
    return schema if not schema.optional else replace(schema, optional=False)


class BoundedCache(Generic[K, T]):
    """A dict that forgets its oldest entry beyond `max_size` (0: remembers nothing). Safe across threads."""

    def __init__(self, max_size: int) -> None:
        self._max_size = max_size
        self._entries: dict[K, T] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> T | None:
        return self._entries.get(key)

    def put(self, key: K, value: T) -> None:
        if self._max_size == 0:
            return
        with self._lock:
            if key not in self._entries and len(self._entries) >= self._max_size:
                del self._entries[next(iter(self._entries))]
            self._entries[key] = value


class SchemaCache(Generic[T]):
    """Things derived from a `Schema`, built once and found again in O(1) per record.

    Lookup is by object identity first: a connector usually reuses one `Schema` object, and hashing a
    frozen dataclass walks the whole schema tree. Equal schemas that are different objects share the
    entry through a second, equality-keyed map. Both maps are bounded by `max_size` (Kafka's
    `schemas.cache.size`); 0 disables caching.
    """

    def __init__(self, build: Callable[[Schema], T], max_size: int = 1000) -> None:
        self._build = build
        self._max_size = max_size
        self._by_identity: dict[int, tuple[Schema, T]] = {}
        self._by_equality: BoundedCache[Schema, T] = BoundedCache(max_size)
        self._lock = threading.Lock()

    def get(self, schema: Schema) -> T:
        hit = self._by_identity.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        if self._max_size == 0:
            return self._build(schema)
        built = self._by_equality.get(schema)
        if built is None:
            built = self._build(schema)
            self._by_equality.put(schema, built)
        with self._lock:
            if len(self._by_identity) >= self._max_size:
                self._by_identity.clear()
            # Holding `schema` in the entry keeps its id from being reused while the entry exists.
            self._by_identity[id(schema)] = (schema, built)
        return built
