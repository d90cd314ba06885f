"""The `OffsetBackingStore` contract, checked against every store: the file store in the unit tests,
the Kafka topic store in the integration tests. `open_store()` opens a new instance over the same
storage each call (a restart, or another process)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from connectworker.runtime.offsets.backing_store import OffsetBackingStore, read_committed
from connectworker.runtime.offsets.file_store import OffsetStoreError, partition_key
from connectworker.runtime.tasks.task_context import TaskOffsetReader

OpenStore = Callable[[], OffsetBackingStore]
A, B, C = {"file": "a.txt"}, {"file": "b.txt"}, None
KA, KB, KC = partition_key(A), partition_key(B), partition_key(C)


def reopened(open_store: OpenStore) -> OffsetBackingStore:
    store = open_store()
    store.refresh()
    return store


def check_empty_store_reads_nothing(open_store: OpenStore) -> None:
    store = reopened(open_store)
    try:
        assert store.offsets("c") == {}
        assert store.offset("c", A) is None
        assert "c" not in store.connectors()
    finally:
        store.close()


def check_flushed_offsets_survive_a_new_instance(open_store: OpenStore) -> None:
    store = open_store()
    try:
        store.put("c", {KA: {"pos": 1}, KC: {"pos": 7}})
        store.put("c", {KA: {"pos": 2}})  # the newest wins
        store.put("d", {KB: {"pos": 3, "nested": {"x": [1, "y", None, 1.5, True]}}})
        assert store.offset("c", A) == {"pos": 2}  # puts are visible before the flush
        store.flush()
    finally:
        store.close()
    again = reopened(open_store)
    try:
        assert again.offsets("c") == {KA: {"pos": 2}, KC: {"pos": 7}}
        assert again.offset("c", None) == {"pos": 7}
        assert again.offsets("d") == {KB: {"pos": 3, "nested": {"x": [1, "y", None, 1.5, True]}}}
        assert {"c", "d"} <= set(again.connectors())
        reader = TaskOffsetReader(again, "c")
        assert reader.offset(A) == {"pos": 2}
        assert reader.offsets([A, B]) == {KA: {"pos": 2}, KB: None}
    finally:
        again.close()


def check_removals_are_durable(open_store: OpenStore) -> None:
    store = open_store()
    try:
        store.put("c", {KA: {"pos": 1}, KB: {"pos": 2}, KC: {"pos": 3}})
        store.put("d", {KA: {"pos": 4}})
        store.flush()
        store.put("c", {KA: None})  # a None offset removes the partition (a tombstone)
        store.remove("c", [KB])
        store.remove("d")
        assert store.offsets("c") == {KC: {"pos": 3}}
        store.flush()
    finally:
        store.close()
    again = reopened(open_store)
    try:
        assert again.offsets("c") == {KC: {"pos": 3}}
        assert again.offsets("d") == {}
        assert "d" not in again.connectors()
    finally:
        again.close()


def check_unstorable_offsets_are_refused_whole(open_store: OpenStore) -> None:
    store = open_store()
    try:
        with pytest.raises(OffsetStoreError, match="connector c"):
            store.put("c", {KA: {"pos": 1}, KB: {"when": object()}})
        assert store.offsets("c") == {}
        store.flush()
    finally:
        store.close()


def check_refresh_sees_other_writers_and_keeps_own_changes(open_store: OpenStore) -> None:
    writer, reader = open_store(), open_store()
    try:
        assert read_committed(reader, "c") == {}
        writer.put("c", {KA: {"pos": 1}, KB: {"pos": 1}})
        writer.flush()
        reader.put("c", {KB: {"pos": 9}})  # not flushed: newer than what the refresh reads
        assert read_committed(reader, "c") == {KA: {"pos": 1}, KB: {"pos": 9}}
        reader.flush()
        assert read_committed(writer, "c") == {KA: {"pos": 1}, KB: {"pos": 9}}
    finally:
        writer.close()
        reader.close()


CONTRACT = [
    check_empty_store_reads_nothing,
    check_flushed_offsets_survive_a_new_instance,
    check_removals_are_durable,
    check_unstorable_offsets_are_refused_whole,
    check_refresh_sees_other_writers_and_keeps_own_changes,
]
