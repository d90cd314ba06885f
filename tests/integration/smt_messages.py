"""Reading back what Debezium's transforms wrote: each message's key, value, headers, timestamp and
partition, JSON-decoded."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.integration.cdc_helpers import consume_until


@dataclass(frozen=True)
class Message:
    key: Any
    value: Any  # None: a tombstone
    headers: dict[str, str]
    timestamp: int
    partition: int


def read_messages(
    bootstrap: str, topic: str, done: Callable[[list[Message]], bool], timeout: float = 90
) -> list[Message]:
    """The topic's messages from its start (every partition, in each one's order) until `done(messages)`."""
    out: list[Message] = []

    def take(message: Any) -> bool:
        out.append(
            Message(
                json.loads(message.key()) if message.key() else None,
                json.loads(message.value()) if message.value() is not None else None,
                {name: value.decode() for name, value in message.headers() or []},
                message.timestamp()[1],
                message.partition(),
            )
        )
        return done(out)

    consume_until(bootstrap, topic, take, timeout, lambda: f"{topic}'s messages ({len(out)} read: {out[-3:]})")
    return out
