"""The offset backing stores without a broker: the contract on the file store, the file store's
shared mode and failed writes, the Kafka store's record format (Kafka Connect's), and the one task
offset reader."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from connectworker.api.errors import ConfigError
from connectworker.config.loading import load_worker_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.offsets.backing_store import OffsetBackingStore, read_committed
from connectworker.runtime.offsets.file_store import FileOffsetStore, partition_key
from connectworker.runtime.offsets.kafka_store import BARRIER, parse_record, record_key, record_value
from connectworker.runtime.offsets.source_offsets import newest_indexed
from connectworker.runtime.tasks.task_context import TaskOffsetReader
from connectworker.runtime.topic_planning.plan_context import PlanTaskContext
from tests.offset_store_contract import CONTRACT, KA, KB


@pytest.mark.parametrize("shared", [False, True], ids=["exclusive", "shared"])
@pytest.mark.parametrize("check", CONTRACT, ids=lambda c: c.__name__.removeprefix("check_"))
def test_file_store_keeps_the_contract(
    check: Callable[[Callable[[], OffsetBackingStore]], None], shared: bool, tmp_path: Path
) -> None:
    path = tmp_path / "offsets.json"
    check(lambda: FileOffsetStore(path, shared=shared))


def test_a_shared_file_store_merges_its_changes_into_the_file_as_it_is_at_flush(tmp_path: Path) -> None:
    path = tmp_path / "offsets.json"
    one, two = FileOffsetStore(path, shared=True), FileOffsetStore(path, shared=True)
    one.put("a", {KA: {"n": 1}})
    two.put("b", {KA: {"n": 2}})
    one.flush()
    two.flush()  # an exclusive store would overwrite connector a with what it holds (nothing)
    two.remove("a")
    two.flush()
    assert json.loads(path.read_text()) == {"b": {KA: {"n": 2}}}


def test_a_failed_file_write_keeps_the_changes_and_newer_ones_win(tmp_path: Path) -> None:
    blocker = tmp_path / "dir"
    store = FileOffsetStore(blocker / "offsets.json")
    store.put("c", {KA: {"n": 1}, KB: {"n": 1}})
    blocker.write_text("a file where the directory should be")
    with pytest.raises(OSError):
        store.flush()
    store.put("c", {KB: {"n": 2}})
    blocker.unlink()
    store.flush()
    assert FileOffsetStore(blocker / "offsets.json").offsets("c") == {KA: {"n": 1}, KB: {"n": 2}}


def test_a_file_store_without_changes_does_not_write(tmp_path: Path) -> None:
    store = FileOffsetStore(tmp_path / "offsets.json")
    store.remove("nobody")
    store.flush()
    assert not store.path.exists()
    assert store.describe() == f"file {store.path}"


# -- the Kafka store's records: Kafka Connect's format --------------------------------------------
def test_record_key_is_kafka_connects_connector_and_partition_in_canonical_json() -> None:
    key = record_key("gen", partition_key({"b": 2, "a": "x"}))
    assert key == b'["gen",{"a":"x","b":2}]'
    assert json.loads(key) == ["gen", {"a": "x", "b": 2}]
    assert record_key("gen", partition_key(None)) == b'["gen",null]'


def test_record_value_is_the_offset_json_or_a_tombstone() -> None:
    assert record_value({"seq": 3, "file": "a"}) == b'{"file":"a","seq":3}'
    assert record_value(None) is None


def test_records_written_by_kafka_connect_parse_to_the_same_keys() -> None:
    # Java's JsonConverter writes no canonical order or spacing; the key must still match ours.
    connector, key, offset = parse_record(b'["gen", {"b": 2, "a": "x"}]', b'{"seq": 5}')
    assert (connector, key, offset) == ("gen", partition_key({"a": "x", "b": 2}), {"seq": 5})
    assert parse_record(*_round_trip("gen", partition_key({"t": 1}), {"seq": 1})) == (
        "gen",
        partition_key({"t": 1}),
        {"seq": 1},
    )
    assert parse_record(b'["gen",{"t":1}]', None) == ("gen", partition_key({"t": 1}), None)
    assert parse_record(json.dumps([BARRIER, "id"]).encode(), None) == (BARRIER, "", None)  # skipped


def _round_trip(connector: str, key: str, offset: dict[str, int]) -> tuple[bytes, bytes | None]:
    return record_key(connector, key), record_value(offset)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (b"not json", b"{}"),
        (b'{"connector": "gen"}', b"{}"),
        (b'["gen"]', b"{}"),
        (b'[1, {"t": 1}]', b"{}"),
        (b'["gen", [1, 2]]', b"{}"),
        (b'["gen", {"t": 1}]', b"[1, 2]"),
        (b'["gen", {"t": 1}]', b"not json"),
        (None, b"{}"),
    ],
)
def test_records_that_are_not_offsets_are_rejected(key: bytes | None, value: bytes) -> None:
    with pytest.raises(ValueError):
        parse_record(key, value)


# -- one reader and one context for every mode ---------------------------------------------------
def test_the_task_offset_reader_reads_a_store_live_or_a_fixed_mapping(tmp_path: Path) -> None:
    store = FileOffsetStore(tmp_path / "offsets.json")
    live = TaskOffsetReader(store, "c")
    assert live.offset({"file": "a.txt"}) is None
    store.put("c", {partition_key({"file": "a.txt"}): {"pos": 4}})
    assert live.offset({"file": "a.txt"}) == {"pos": 4}
    fixed = TaskOffsetReader({partition_key({"file": "a.txt"}): {"pos": 1}})  # a Spark task's offsets
    assert fixed.offsets([{"file": "a.txt"}, {"file": "b"}]) == {
        partition_key({"file": "a.txt"}): {"pos": 1},
        partition_key({"file": "b"}): None,
    }
    plan = PlanTaskContext({"k": "v"})
    assert plan.offset_storage_reader.offset({"file": "a.txt"}) is None
    assert plan.configs() == {"k": "v"}
    assert read_committed(store, "c") == {partition_key({"file": "a.txt"}): {"pos": 4}}  # unflushed, kept


def test_newest_indexed_keeps_the_highest_index_per_key_and_skips_offsetless_rows() -> None:
    newest = newest_indexed([("p0", 3, "c"), ("p0", 1, "a"), ("p1", 0, "x"), ("p1", 5, None)])
    assert newest == {"p0": (3, "c"), "p1": (0, "x")}
    assert newest_indexed([("p1", 2, "y"), ("p0", 2, "b")], into=newest) == {"p0": (3, "c"), "p1": (2, "y")}


# -- the worker keys -------------------------------------------------------------------------------
def test_offsets_topic_keys_default_to_kafkas_and_refuse_a_zero_replication_factor() -> None:
    config = WorkerConfig.from_properties({"offset.storage.topic": "connect-offsets"})
    assert (config.offset_storage_partitions, config.offset_storage_replication_factor) == (25, 3)
    assert (
        WorkerConfig.from_properties({"offset.storage.replication.factor": "-1"}).offset_storage_replication_factor
        == -1
    )
    with pytest.raises(ConfigError) as bad:
        WorkerConfig.from_properties({"offset.storage.replication.factor": "0"})
    assert "offset.storage.replication.factor" in bad.value.problems


def test_standalone_still_needs_the_file_key_with_a_topic_to_place_the_connector_store(tmp_path: Path) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_text("bootstrap.servers=localhost:9092\noffset.storage.topic=connect-offsets\n")
    with pytest.raises(ConfigError, match="connector store") as missing:
        load_worker_config(worker)
    assert "offset.storage.file.filename" in missing.value.problems
