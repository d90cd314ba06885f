"""The one pass over a poll that decides how it is sent: each fact checked on the kinds of polls that
take the slower paths, and the byte count and topic set the send path takes from the converted poll."""

from __future__ import annotations

import pytest

from connectworker.api import SourceRecord
from connectworker.runtime.offsets.source_offsets import newest_offsets
from connectworker.runtime.tasks.poll_survey import PollSurvey, survey
from connectworker.runtime.tasks.record_sending import _byte_count, _topics_of

P = {"file": "a"}


def rec(n: int, **fields: object) -> SourceRecord:
    partition, topic = fields.pop("partition_dict", P), fields.pop("topic", "t")
    return SourceRecord(partition, {"n": n}, topic, f"v{n}", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([], PollSurvey(True, False, True)),
        ([rec(1), rec(2)], PollSurvey(True, False, True, topic="t")),
        ([rec(1), rec(2, topic="u")], PollSurvey(True, False, True)),  # two topics: no one topic to repeat
        ([rec(1), rec(2, partition=0)], PollSurvey(False, False, True)),  # partition 0 is set, though falsy
        ([rec(1, timestamp=5), rec(2)], PollSurvey(False, False, True)),
        ([rec(1), rec(2, headers=[("h", "x")])], PollSurvey(False, True, True)),
        ([rec(1), rec(2, partition_dict={"file": "a"})], PollSurvey(True, False, False)),  # equal, not the same
        ([rec(1, partition=1), rec(2, partition_dict={"file": "b"})], PollSurvey(False, False, False)),
    ],
)
def test_survey_tells_how_a_poll_is_sent(records: list[SourceRecord], expected: PollSurvey) -> None:
    assert survey(records) == expected


def test_offsets_of_a_poll_naming_two_partitions_are_found_for_each() -> None:
    other = {"file": "b"}
    records = [rec(1), rec(2, partition_dict=other), rec(3), rec(4, partition_dict=other)]
    surveyed = survey(records)
    assert not surveyed.one_partition
    assert newest_offsets(records, one_partition=surveyed.one_partition) == {
        '{"file":"a"}': {"n": 3},
        '{"file":"b"}': {"n": 4},
    }


def test_bytes_out_count_null_keys_and_values_as_nothing() -> None:
    assert _byte_count([b"ab", b"cde"]) == 5
    assert _byte_count([b"ab", None, b"c"]) == 3
    assert _byte_count([]) == 0


def test_the_topics_of_a_poll_are_each_topic_once() -> None:
    assert _topics_of(["a"] * 3) == {"a"}
    assert _topics_of(["a", "a", "b"]) == {"a", "b"}
    assert _topics_of([]) == set()
    assert _topics_of(("a", "b")) == {"a", "b"}
