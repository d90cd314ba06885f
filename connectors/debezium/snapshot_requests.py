"""What an `execute-snapshot` signal asks for, read as Debezium reads it (`ExecuteSnapshot`,
`AbstractSnapshotSignal`): the tables its `data-collections` regexes name among those captured, each with
the `additional-conditions` filter that matches it and the `surrogate-key`; a malformed request logged with
the signal's id and skipped (None), never raised."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .signal_types import Signal

log = logging.getLogger(__name__)

OPEN, CLOSE = "snapshot-window-open", "snapshot-window-close"  # the watermarks' signal types


@dataclass(frozen=True)
class Collection:
    """A table queued for the snapshot, with the signal's condition and surrogate key."""

    id: str  # "<schema or database>.<table>"
    condition: str | None = None
    surrogate_key: str | None = None
    correlation_id: str | None = None


def snapshot_request(
    signal: Signal, data: Mapping[str, Any], tables: Sequence[str]
) -> tuple[str, list[Collection], list[tuple[re.Pattern[str], str]]] | None:
    """(incremental or blocking, the tables asked for, the conditions); None for a malformed request."""
    patterns = data.get("data-collections")
    if not isinstance(patterns, list) or not patterns:
        log.warning(
            "Execute snapshot signal '%s' has arrived but the requested field 'data-collections' is missing "
            "from data or is empty",
            signal.id,
        )
        return None
    if not all(isinstance(p, str) for p in patterns):
        log.warning(
            "Execute snapshot signal '%s' has arrived but the requested field 'data-collections' contains a "
            "non-string data collection",
            signal.id,
        )
        return None
    kind = str(data.get("type") or "incremental").lower()
    if kind not in ("incremental", "blocking"):
        log.warning("Signal '%s': unexpected snapshot type '%s', skipped (incremental or blocking)", signal.id, kind)
        return None
    conditions = _conditions(signal.id, data)
    if conditions is None:
        return None
    surrogate = str(data.get("surrogate-key") or "").strip() or None
    collections = [
        Collection(table, _condition_for(table, conditions), surrogate, signal.id)
        for table in expand(patterns, tables, case_sensitive=kind == "incremental")
    ]
    log.info(
        "Requested '%s' snapshot of data collections '%s' with additional conditions '%s' and surrogate key '%s'",
        kind.upper(),
        [c.id for c in collections],
        conditions,
        surrogate or "PK of table will be used",
    )
    return kind, collections, conditions


def expand(patterns: Sequence[str], tables: Sequence[str], *, case_sensitive: bool) -> list[str]:
    """Each regex's whole matches among `tables` (a regex matching none is kept as written: it is skipped
    later, naming it), without repeats, in order."""
    out: list[str] = []
    for pattern in patterns:
        try:
            compiled = re.compile(pattern.strip(), 0 if case_sensitive else re.IGNORECASE)
        except re.error as exc:
            log.warning("Data collection '%s' is not a valid regular expression (%s): skipped", pattern, exc)
            continue
        found = [t for t in tables if compiled.fullmatch(t)] or [pattern.strip()]
        out.extend(t for t in found if t not in out)
    return out


def _conditions(signal_id: str | None, data: Mapping[str, Any]) -> list[tuple[re.Pattern[str], str]] | None:
    items = data.get("additional-conditions") or []
    out = []
    if not isinstance(items, list):
        log.warning("Signal '%s': 'additional-conditions' is not a list: skipped", signal_id)
        return None
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("data-collection"), str):
            log.warning("Signal '%s': an additional condition lacks its 'data-collection': skipped", signal_id)
            return None
        try:
            out.append((re.compile(item["data-collection"], re.IGNORECASE), str(item.get("filter") or "")))
        except re.error as exc:
            log.warning(
                "Signal '%s': additional condition's data-collection is not a regex (%s): skipped", signal_id, exc
            )
            return None
    return out


def _condition_for(table: str, conditions: Sequence[tuple[re.Pattern[str], str]]) -> str | None:
    return next((flt for pattern, flt in conditions if pattern.fullmatch(table) and flt), None)


def signal_data(signal: Signal) -> dict[str, Any] | None:
    """A signal's `data` as a JSON object (none: {}); None when it is not one, logged as Debezium logs it."""
    try:
        data = json.loads(signal.data) if signal.data else {}
    except ValueError:
        log.warning("Signal '%s' has been received but the data '%s' cannot be parsed", signal.id, signal.data)
        return None
    if not isinstance(data, dict):
        log.warning("Signal '%s' has been received but its data '%s' is not a JSON object", signal.id, signal.data)
        return None
    return data


def signal_from_row(op: str, row: Mapping[str, Any]) -> Signal | None:
    """The signal a change of the signal table carries: an insert's (id, type, data), by position as Debezium
    reads them; a delete of an open watermark (`insert_delete`) closes its window. None (logged) for a row
    that is no signal."""
    values = list(row.values())
    if len(values) != 3:
        log.warning("The signal event %s should have 3 fields but has %d", dict(row), len(values))
        return None
    id_, kind, data = (None if v is None else str(v) for v in values)
    if op == "d":  # by its id alone, as Debezium: a delete's before may hold only the key (PostgreSQL's default)
        if id_ is None:
            return None
        id_, kind = id_.replace("open", "close"), CLOSE
    if kind is None:
        log.warning("Signal %r has been received without a type", id_)
        return None
    return Signal(id_, kind, data, "source")


def watermark_data(meta: Mapping[str, Any]) -> str:
    """A watermark's `data`, as Debezium's `SignalMetadata` writes it (its spacing, the nulls left out)."""
    return json.dumps({k: v for k, v in meta.items() if v is not None}, separators=(", ", ": "))
