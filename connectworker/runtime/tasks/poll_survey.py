"""What one pass over a poll's records tells the send path before it converts anything.

Four facts decide how a poll is sent: whether every record names the same `source_partition` object
(its newest offset is then simply the last one), whether no record sets a partition, a timestamp or
headers (topic, key and value are then all there is to produce, from a C loop), whether any record
has headers, and whether they all go to one topic (the topic column is then one name repeated, not
read off every record). Asking each question apart walked the records up to four times; in the common
case (one topic, one reused partition dict, plain records) one Python loop answers them all, and only
a poll that is not of that kind takes the separate passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from connectworker.api.record import SourceRecord
from connectworker.runtime.offsets.source_offsets import name_one_partition


@dataclass(frozen=True, slots=True)
class PollSurvey:
    plain: bool
    """No record sets a partition, a timestamp or headers."""
    with_headers: bool
    """Some record has headers."""
    one_partition: bool
    """Every record names the same `source_partition` object (connectors usually reuse one dict)."""
    topic: str | None = None
    """The topic every record names, when the loop found them all naming one (None: not known)."""


_EMPTY = PollSurvey(plain=True, with_headers=False, one_partition=True)


def survey(records: Sequence[SourceRecord]) -> PollSurvey:
    """The facts about `records`, in one loop when the poll is the common kind."""
    if not records:
        return _EMPTY
    first, topic = records[0].source_partition, records[0].topic
    for record in records:
        if (
            record.partition is not None
            or record.timestamp is not None
            or record.headers
            or record.source_partition is not first
            or record.topic != topic
        ):
            break
    else:
        return PollSurvey(plain=True, with_headers=False, one_partition=True, topic=topic)
    plain, with_headers = scan(records)
    return PollSurvey(plain, with_headers, name_one_partition(records))


def scan(records: Sequence[SourceRecord]) -> tuple[bool, bool]:
    """Whether no record sets a partition, a timestamp or headers, and whether any record has headers.
    Plain loops: faster here than `all()` or `any(map(...))` over the records."""
    for record in records:
        if record.partition is not None or record.timestamp is not None or record.headers:
            break
    else:
        return True, False
    for record in records:
        if record.headers:
            return False, True
    return False, False
