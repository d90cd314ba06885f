"""The record path's column-at-a-time fast paths give what record-at-a-time conversion gives, and fall
back to it (with its messages, its `errors.tolerance`) whenever a record does not fit them."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectworker.api import SourceRecord, SourceRecordBatch
from connectworker.api.schema import FLOAT64_SCHEMA, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Schema
from connectworker.config.error_handling import ErrorHandling
from connectworker.converters import ConversionError, JsonConverter, StringConverter
from connectworker.converters.fast_json import CompactJson
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.offsets.source_offsets import InvalidSourceOffsetError, newest_offsets
from connectworker.runtime.tasks.error_tolerance import ToleranceExceededError, ToleranceOperator
from connectworker.runtime.tasks.record_conversion import RecordSerializer
from tests.unit.fake_producer import FakeProducer
from tests.unit.test_worker_source_task import PARTITION, Harness, ScriptedTask, rec


def json_converter(schemas: bool) -> JsonConverter:
    converter = JsonConverter()
    converter.configure({"schemas.enable": str(schemas).lower()}, is_key=False)
    return converter


def one_by_one(converter: JsonConverter, schemas: list[Schema | None], values: list[Any]) -> list[bytes | None]:
    return [converter.from_connect_data("t", schema, value) for schema, value in zip(schemas, values, strict=True)]


# -- newest offsets --------------------------------------------------------------------------------
def test_records_sharing_one_partition_object_commit_the_last_offset_that_is_not_none() -> None:
    records = [SourceRecord(PARTITION, {"n": n}, "t", "v") for n in (1, 2)] + [SourceRecord(PARTITION, None, "t", "v")]
    assert newest_offsets(records) == {partition_key(PARTITION): {"n": 2}}
    assert newest_offsets([SourceRecord(PARTITION, None, "t", "v")]) == {}
    assert newest_offsets([]) == {}


def test_equal_partitions_in_different_objects_and_interleaved_partitions_keep_one_newest_each() -> None:
    a, b = {"p": "a"}, {"p": "b"}
    equal = [SourceRecord({"p": "a"}, {"n": n}, "t", "v") for n in (1, 2, 3)]
    assert newest_offsets(equal) == {partition_key(a): {"n": 3}}
    mixed = [
        SourceRecord(a, {"n": 1}, "t", "v"),
        SourceRecord(b, {"n": 7}, "t", "v"),
        SourceRecord(a, {"n": 2}, "t", "v"),
        SourceRecord(b, None, "t", "v"),
    ]
    assert newest_offsets(mixed) == {partition_key(a): {"n": 2}, partition_key(b): {"n": 7}}


def test_a_shared_partition_that_cannot_be_stored_is_still_named() -> None:
    bad = ["not", "a", "dict"]
    with pytest.raises(InvalidSourceOffsetError, match="a source_partition is a list"):
        newest_offsets([SourceRecord(bad, {"n": 1}, "t", "v"), SourceRecord(bad, {"n": 2}, "t", "v")])  # type: ignore[arg-type]
    with pytest.raises(InvalidSourceOffsetError, match=r"source_offset\['at'\] is a Event"):
        newest_offsets([SourceRecord(PARTITION, {"at": threading.Event()}, "t", "v")])


# -- JSON, a poll at a time ------------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300)
@given(json_values)
def test_the_compact_encoder_writes_what_json_writes(value: Any) -> None:
    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    fast = CompactJson(encoder)
    assert fast.one(value) == encoder.encode(value)
    assert fast.many([value, value]) == [encoder.encode(value)] * 2


def test_the_compact_encoder_without_the_c_encoder_is_the_encoder_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    from json import encoder as stdlib

    monkeypatch.setattr(stdlib, "c_make_encoder", None)
    fast = CompactJson(json.JSONEncoder(separators=(",", ":")))
    assert fast.one({"a": [1, 2.5]}) == '{"a":[1,2.5]}'
    assert fast.many([1, "x"]) == ["1", '"x"']


@pytest.mark.parametrize("schemas", [False, True])
def test_a_poll_of_schemaless_values_converts_as_its_records_do_one_by_one(schemas: bool) -> None:
    converter = json_converter(schemas)
    values = [{"id": 1, "amount": 2.5, "name": "grüße ✓"}, None, [1, "null", None], "null", b"\x00\xff", 10**30, True]
    for poll in (values, [*values, {"nan": math.nan}]):  # NaN: Jackson's spelling, written record by record
        expected = one_by_one(converter, [None] * len(poll), poll)
        assert converter.from_connect_values(["t"] * len(poll), [None] * len(poll), poll) == expected
        assert expected[1] is None and expected[3] is not None  # a tombstone stays a Kafka null, "null" stays text


@pytest.mark.parametrize("schemas", [False, True])
def test_a_poll_sharing_one_schema_or_mixing_schemas_converts_as_one_by_one(schemas: bool) -> None:
    converter = json_converter(schemas)
    same = [OPTIONAL_STRING_SCHEMA] * 3
    values3 = ["a", None, "c"]
    assert converter.from_connect_values(["t"] * 3, same, values3) == one_by_one(converter, same, values3)
    mixed: list[Schema | None] = [STRING_SCHEMA, FLOAT64_SCHEMA, None, Schema.array(STRING_SCHEMA)]
    values = ["a", math.inf, {"k": 1}, ["x"]]
    assert converter.from_connect_values(["t"] * 4, mixed, values) == one_by_one(converter, mixed, values)
    runs: list[Schema | None] = [*[STRING_SCHEMA] * 3, *[FLOAT64_SCHEMA] * 2, None, None, STRING_SCHEMA]
    run_values = ["a", "b", "c", 1.5, math.nan, {"k": 1}, None, "d"]  # NaN sends its run one by one
    assert converter.from_connect_values(["t"] * 8, runs, run_values) == one_by_one(converter, runs, run_values)


def test_a_value_that_cannot_be_written_raises_what_the_record_alone_raises() -> None:
    converter = json_converter(False)
    circular: list[Any] = []
    circular.append(circular)
    for bad in (circular, {"when": threading.Event()}, "\ud800"):
        with pytest.raises(ConversionError) as alone:
            converter.from_connect_data("t", None, bad)
        with pytest.raises(ConversionError) as in_poll:
            converter.from_connect_values(["t", "t"], [None, None], [{"ok": 1}, bad])
        assert str(in_poll.value) == str(alone.value)
    with pytest.raises(ConversionError, match="Circular reference detected"):
        converter.from_connect_data("t", None, circular)
    with pytest.raises(ConversionError, match="'street'"):
        converter.from_connect_values(["t"], [Schema.struct("A", ("street", STRING_SCHEMA))], [{"street": None}])


# -- the serializer's text fast path --------------------------------------------------------------
def serializer(key: StringConverter, value: Any) -> RecordSerializer:
    return RecordSerializer(key, value, ToleranceOperator(ErrorHandling(), "task", threading.Event()))


def string_converter(encoding: str = "UTF-8", is_key: bool = False) -> StringConverter:
    converter = StringConverter()
    converter.configure({"converter.encoding": encoding}, is_key)
    return converter


def test_keys_mixing_text_none_and_numbers_convert_as_the_converter_does() -> None:
    records = [SourceRecord(PARTITION, None, "t", "v", key) for key in ("a", None, 7, b"raw", "é")]
    converted = serializer(string_converter(is_key=True), string_converter()).convert_records(records)
    assert converted.keys == [b"a", None, b"7", b"raw", "é".encode()]
    assert converted.values == [b"v"] * 5 and converted.topics == ["t"] * 5


def test_a_converter_encoding_other_than_utf8_applies_to_a_whole_poll() -> None:
    records = [SourceRecord(PARTITION, None, "t", "café", "ß")]
    latin = serializer(string_converter("ISO-8859-1", True), string_converter("ISO-8859-1"))
    converted = latin.convert_records(records)
    assert converted.keys == ["ß".encode("latin-1")] and converted.values == ["café".encode("latin-1")]
    batch = SourceRecordBatch(PARTITION, [None], ["t"], ["ß"], ["café"])
    columns = serializer(string_converter("ISO-8859-1", True), string_converter("ISO-8859-1")).convert_batch(batch)
    assert columns.keys == ["ß".encode("latin-1")] and columns.values == ["café".encode("latin-1")]


def test_text_the_encoding_cannot_hold_fails_with_the_converters_message() -> None:
    records = [SourceRecord(PARTITION, None, "t", "ok"), SourceRecord(PARTITION, None, "t", "日本")]
    with pytest.raises(ToleranceExceededError, match="text cannot be encoded as iso8859-1") as failed:
        serializer(string_converter(is_key=True), string_converter("ISO-8859-1")).convert_records(records)
    assert isinstance(failed.value.__cause__, ConversionError)


# -- producing from a C loop -----------------------------------------------------------------------
class FlakyQueue(FakeProducer):
    """`produce()` raises BufferError (a full local queue) the first time it sees each listed value."""

    full_once: set[bytes]

    def produce(
        self, topic: str, value: bytes | None = None, key: bytes | None = None, *args: Any, **kwargs: Any
    ) -> None:
        if value in self.full_once:
            self.full_once.discard(value)
            raise BufferError("Local: Queue full")
        if value == b"boom":
            raise TypeError("the producer cannot take this record")
        super().produce(topic, value, key, *args, **kwargs)


def flaky_harness(tmp_path: Path, full_once: set[bytes]) -> Harness:
    h = Harness(tmp_path, ScriptedTask())

    def factory(config: dict[str, Any]) -> FlakyQueue:
        producer = FlakyQueue(config)
        producer.full_once = full_once
        h.producer = producer
        return producer

    h.worker_task._producer_factory = factory  # type: ignore[assignment]
    return h.start()


def test_a_full_queue_midway_through_a_poll_sends_every_record_once_and_in_order(tmp_path: Path) -> None:
    h = flaky_harness(tmp_path, {b"v1", b"v3", b"v5"})
    h.task.polls.put([rec(n) for n in range(1, 6)])
    h.wait_committed({"n": 5})
    assert h.sent() == ["v1", "v2", "v3", "v4", "v5"]
    h.stop()


def test_a_record_the_producer_raises_on_fails_the_task_committing_only_the_records_before_it(tmp_path: Path) -> None:
    h = flaky_harness(tmp_path, {b"v2"})
    h.task.polls.put([rec(1), rec(2), rec(3, "boom"), rec(4)])
    trace = h.wait_failed()
    assert "source offset {'n': 3}" in trace and "the producer cannot take this record" in trace
    assert h.sent() == ["v1", "v2"]
    assert h.committed() == {"n": 2}


def test_a_poll_of_keyless_records_gets_null_keys_from_the_string_converter() -> None:
    converter = StringConverter()
    converter.configure({}, True)
    assert converter.from_connect_values(["t"] * 3, [None] * 3, [None, None, None]) == [None, None, None]
    mixed = [None, "a", 1.5, b"\x00"]
    assert converter.from_connect_values(["t"] * 4, [None] * 4, mixed) == one_by_one(converter, [None] * 4, mixed)
    assert one_by_one(converter, [None] * 4, mixed) == [None, b"a", b"1.5", b"\x00"]
