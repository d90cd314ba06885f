"""`SourceRecordBatch`: the columnar form of a poll's records reads like a list of `SourceRecord`s."""

from __future__ import annotations

import pytest

from connectworker.api import SourceRecord, SourceRecordBatch
from connectworker.api.schema import STRING_SCHEMA


def batch() -> SourceRecordBatch:
    return SourceRecordBatch(
        {"file": "a"},
        [{"pos": 1}, None, {"pos": 3}, None],
        ["t1", "t2", "t1", "t2"],
        ["k0", "k1", "k2", "k3"],
        ["v0", "v1", "v2", "v3"],
        key_schema=STRING_SCHEMA,
        value_schema=STRING_SCHEMA,
    )


def test_a_batch_reads_as_source_records() -> None:
    records = list(batch())
    assert len(batch()) == 4
    assert records[2] == SourceRecord({"file": "a"}, {"pos": 3}, "t1", "v2", "k2", None, STRING_SCHEMA, STRING_SCHEMA)
    assert batch()[-1].key == "k3"
    assert [r.topic for r in batch()[1:3]] == ["t2", "t1"]


def test_the_offset_to_commit_is_the_newest_one_given() -> None:
    assert batch().newest_offset() == {"pos": 3}
    assert SourceRecordBatch(None, [None], ["t"], ["k"], ["v"]).newest_offset() is None


def test_columns_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="2 topics, 1 keys"):
        SourceRecordBatch(None, [None, None], ["a", "b"], ["k"], ["v", "w"])
