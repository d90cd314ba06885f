"""A signal as the file and Kafka channels carry it: one JSON object `{"id": …, "type": …, "data": {…}}` (a
line of `signal.file`, or a record value of `signal.kafka.topic`), as Debezium's `FileSignalChannel` and
`KafkaSignalChannel` read it. A malformed one is logged, naming what is wrong and its id when it has one,
and skipped: a bad signal never fails the task."""

from __future__ import annotations

import json
import logging
from typing import Any

from .signal_types import Signal

log = logging.getLogger(__name__)

_SHOWN = 200  # characters of a malformed signal quoted in its warning


class _Malformed(ValueError):
    def __init__(self, problem: str, signal_id: str | None = None) -> None:
        super().__init__(problem)
        self.signal_id = signal_id


def parse_signal_line(text: str, channel: str) -> Signal | None:
    """The signal of `text` read on `channel` (`file` or `kafka`), or None when it is blank (ignored) or
    malformed (logged at WARNING and skipped). `data` must be a JSON object: the signal carries it as
    compact JSON text. `id` is required on the file channel, optional on Kafka (as Debezium's)."""
    if not text.strip():
        log.debug("Ignoring an empty signal line on the %s channel", channel)
        return None
    try:
        signal = _signal(text, channel)
    except _Malformed as exc:
        shown = text if len(text) <= _SHOWN else text[:_SHOWN] + "…"
        named = "a signal" if exc.signal_id is None else f"signal '{exc.signal_id}'"
        log.warning("Skipped %s on the %s channel: %s: %r", named, channel, exc, shown)
        return None
    log.info("Signal '%s' of type '%s' received on the %s channel: %s", signal.id, signal.type, channel, signal.data)
    return signal


def _signal(text: str, channel: str) -> Signal:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise _Malformed(f"it is not JSON ({exc})") from None
    if not isinstance(document, dict):
        raise _Malformed(f"it is {_kind(document)}, not a JSON object")
    raw_id = document.get("id")
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, str | int)):
        raise _Malformed(f"its 'id' is {_kind(raw_id)}, not a string")
    signal_id = None if raw_id is None else str(raw_id)
    if signal_id is None and channel == "file":
        raise _Malformed("it has no 'id'")
    kind = document.get("type")
    if not isinstance(kind, str) or not kind.strip():
        what = "no 'type'" if kind is None else f"a 'type' that is {_kind(kind)}, not a signal type"
        raise _Malformed(f"it has {what}", signal_id)
    data = document.get("data")
    if not isinstance(data, dict):
        what = "no 'data'" if data is None else f"a 'data' that is {_kind(data)}"
        raise _Malformed(f"it has {what}; 'data' must be a JSON object", signal_id)
    return Signal(signal_id, kind.strip(), json.dumps(data, separators=(",", ":"), ensure_ascii=False), channel)


def _kind(value: Any) -> str:
    """How a JSON value is named in a warning (a boolean is no number)."""
    if isinstance(value, str) and not value.strip():
        return "an empty string"
    names = (
        (bool, "a boolean"),
        (int | float, "a number"),
        (str, "a string"),
        (list, "an array"),
        (dict, "a JSON object"),
    )
    return next((name for kind, name in names if isinstance(value, kind)), "null")
