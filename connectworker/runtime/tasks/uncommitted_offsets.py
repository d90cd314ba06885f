"""What a task says when it stops with records whose offsets were not committed (the cluster did not
acknowledge them in time, or the offset store could not be written): how many, and for each source
partition where its committed offset stays and up to which offset the records are produced again
after a restart. At least once: nothing is lost, some records come twice (exactly once for a
transactional task, whose uncommitted records were aborted)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

MAX_PARTITIONS_SHOWN = 5


def _shown(offset: Any) -> str:
    return "nothing committed yet" if offset is None else json.dumps(offset, separators=(",", ":"), sort_keys=True)


def uncommitted_report(
    task: str,
    records: int,
    pending: Mapping[str, Any],
    committed: Mapping[str, Any],
    flush_timeout_ms: int,
    not_written: int,
    *,
    transactional: bool = False,
) -> str:
    """The warning for task `task`, which stopped with the offsets of `records` records not committed.

    `pending` holds the newest offset per source partition (canonical JSON keys) of the records the
    cluster did not acknowledge; `committed` the task's committed offsets; `not_written` counts
    acknowledged records whose offsets the offset store failed to write. A `transactional` task's are
    in an aborted transaction: they come again, but only once."""
    again = "exactly once: their transaction was aborted" if transactional else "at least once"
    parts = [
        f"Task {task} stopped with the offsets of {records} record(s) not committed; those records are "
        f"produced again after a restart ({again})."
    ]
    if pending:
        partitions = [
            f"source partition {key} stays at {_shown(committed.get(key))} (not committed: up to {_shown(offset)})"
            for key, offset in list(pending.items())[:MAX_PARTITIONS_SHOWN]
        ]
        more = len(pending) - MAX_PARTITIONS_SHOWN
        if more > 0:
            partitions.append(f"and {more} more source partition(s)")
        parts.append(
            f"Kafka did not acknowledge {records - not_written} of them within "
            f"offset.flush.timeout.ms ({flush_timeout_ms} ms): {'; '.join(partitions)}."
        )
    if not_written:
        parts.append(
            f"The offset store could not be written for {not_written} acknowledged record(s) (the reason was logged)."
        )
    return " ".join(parts)
