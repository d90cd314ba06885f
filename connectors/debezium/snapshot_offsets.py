"""An incremental snapshot's state in the connector's offsets, which every offset carries while it runs:
`incremental_snapshot_collections` (a JSON list of the tables queued, each with its condition, surrogate
key and requesting signal's id, under Debezium's names), `incremental_snapshot_primary_key` (the key of the
last row sent), `incremental_snapshot_maximum_key` and `incremental_snapshot_correlation_id`.

The keys are the database's own values of the key columns, as JSON, each keeping its type so that a restart
binds them as the first run did. Debezium writes a serialized Java `Object[]` in hex; connectworker writes a
JSON array: a JSON string, integer or null stands for itself, any other value is an object naming its type:
`{"decimal": "1.50"}`, `{"float": "2.5"}`, `{"bytes": "00ff"}`, `{"datetime": "2024-01-02T03:04:05"}`,
`{"date": "2024-01-02"}`, `{"time": "03:04:05"}`, `{"timedelta": 12.5}`."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from .snapshot_requests import Collection

log = logging.getLogger(__name__)

COLLECTIONS, PRIMARY_KEY = "incremental_snapshot_collections", "incremental_snapshot_primary_key"
MAXIMUM_KEY, CORRELATION_ID = "incremental_snapshot_maximum_key", "incremental_snapshot_correlation_id"
KAFKA_POSITION = "signal_kafka_offset"  # the next record of the signal topic's partition 0 to act on
_ID, _CONDITION = "incremental_snapshot_collections_id", "incremental_snapshot_collections_additional_condition"
_SURROGATE = "incremental_snapshot_collections_surrogate_key"
_CORRELATION = "incremental_snapshot_collections_correlation_id"

Key = tuple[Any, ...]


def state_offset(
    queue: Sequence[Collection], sent: Key | None, maximum: Key | None, correlation: str | None
) -> dict[str, Any]:
    items = [
        {_ID: c.id, _CONDITION: c.condition, _SURROGATE: c.surrogate_key, _CORRELATION: c.correlation_id} for c in queue
    ]
    return {
        COLLECTIONS: json.dumps(items, separators=(",", ":")),
        PRIMARY_KEY: encode_key(sent),
        MAXIMUM_KEY: encode_key(maximum),
        CORRELATION_ID: correlation,
    }


class StateOffsets:
    """`state_offset` asked for every record while a snapshot runs: all but the last key sent is made once per
    change of it (the records of a chunk differ by that key alone). Not to keep: the dict changes."""

    __slots__ = ("_ground", "_key", "_state")

    def __init__(self) -> None:
        self._ground: tuple[Any, ...] | None = None  # what `_state` was made of, but the last key sent
        self._state: dict[str, Any] = {}
        self._key: Any = ()  # the last key sent `_state` holds (not a key: none yet)

    def of(
        self,
        queue: Sequence[Collection],
        positions: Mapping[str, Any],
        sent: Key | None,
        maximum: Key | None,
        correlation: str | None,
    ) -> dict[str, Any]:
        """The offsets' state: the signal channels' `positions` and the snapshot's (`queue` not empty)."""
        ground = (id(queue), len(queue), queue[0], maximum, correlation, positions.get(KAFKA_POSITION))
        if self._ground != ground:
            self._ground, self._key = ground, ()
            self._state = {**positions, **state_offset(queue, None, maximum, correlation)}
        if self._key != sent:
            self._key, self._state[PRIMARY_KEY] = sent, encode_key(sent)
        return self._state


def state_from_offset(
    offset: Mapping[str, Any] | None,
) -> tuple[list[Collection], Key | None, Key | None, str | None] | None:
    """(the tables queued, the last key sent, the maximum key, the correlation id) an offset holds; None when
    it holds no snapshot, or one it cannot read (logged: the snapshot is dropped, not half resumed)."""
    if not offset or not offset.get(COLLECTIONS):
        return None
    try:
        queue = [
            Collection(item[_ID], item.get(_CONDITION), item.get(_SURROGATE), item.get(_CORRELATION))
            for item in json.loads(offset[COLLECTIONS])
        ]
        return (
            queue,
            decode_key(offset.get(PRIMARY_KEY)),
            decode_key(offset.get(MAXIMUM_KEY)),
            offset.get(CORRELATION_ID),
        )
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("The committed incremental snapshot state cannot be read (%s): the snapshot is dropped", exc)
        return None


def encode_key(values: tuple[Any, ...] | None) -> str | None:
    """The key's JSON text; None for no key."""
    if values is None:
        return None
    if len(values) == 1:  # the common keys (an integer; PostgreSQL's text of one): without the JSON encoder
        value = values[0]
        if type(value) is int:
            return f"[{value}]"
        if type(value) is str and value.isascii() and value.isalnum():
            return f'["{value}"]'

    return json.dumps([_encode(v) for v in values], separators=(",", ":"))


def decode_key(text: Any) -> tuple[Any, ...] | None:
    """The key `encode_key` wrote; raises ValueError naming what is malformed."""
    if text is None:
        return None
    items = json.loads(text) if isinstance(text, str) else text
    if not isinstance(items, list):
        raise ValueError(f"an incremental snapshot key is a JSON array; got {text!r}")
    return tuple(_decode(item) for item in items)


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, Decimal):
        return {"decimal": str(value)}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, date):
        return {"date": value.isoformat()}
    if isinstance(value, time):
        return {"time": value.isoformat()}
    if isinstance(value, timedelta):
        return {"timedelta": value.total_seconds()}
    raise ValueError(f"an incremental snapshot key holds a {type(value).__name__}, which its offsets cannot keep")


_DECODERS: dict[str, Any] = {
    "float": float,
    "decimal": Decimal,
    "bytes": bytes.fromhex,
    "datetime": datetime.fromisoformat,
    "date": date.fromisoformat,
    "time": time.fromisoformat,
    "timedelta": lambda seconds: timedelta(seconds=seconds),
}


def _decode(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    ((kind, text),) = item.items()
    if kind not in _DECODERS:
        raise ValueError(f"an incremental snapshot key holds a value of unknown type {kind!r}")
    return _DECODERS[kind](text)


def joined_key(values: tuple[Any, ...] | None) -> str:
    """A key as Debezium's notifications write it: its values joined by ',', a null as `<null>`."""
    return "<null>" if values is None else ",".join("<null>" if v is None else str(v) for v in values)


def array_key(values: tuple[Any, ...] | None) -> str | None:
    """A key as Debezium's metrics show it (Java's `Arrays.toString`: `[1, 5]`)."""
    return None if values is None else "[" + ", ".join("null" if v is None else str(v) for v in values) + "]"
