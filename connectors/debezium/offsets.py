"""What the CDC connectors' offsets share: Debezium's one source partition `{"server": <topic.prefix>}`,
and exactly-once delivery offered only where a restart resumes exactly (streaming; a snapshot cut short
is read again from its start)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.errors import ConnectError
from connectworker.api.exactly_once import ExactlyOnceSupport
from connectworker.api.record import as_json

TOPIC_PREFIX = "topic.prefix"
SNAPSHOTLESS_MODES = ("no_data", "never")


def exactly_once_support(props: Mapping[str, str]) -> ExactlyOnceSupport:
    """SUPPORTED for the `snapshot.mode`s that take no snapshot, UNSUPPORTED otherwise."""
    mode = (props.get("snapshot.mode") or "initial").strip().lower()
    return ExactlyOnceSupport.SUPPORTED if mode in SNAPSHOTLESS_MODES else ExactlyOnceSupport.UNSUPPORTED


def require_server_partition(props: Mapping[str, str], partition: Mapping[str, Any]) -> None:
    """Raises ConnectError unless `partition` is the connector's own: `{"server": <its topic.prefix>}`."""
    prefix = props.get(TOPIC_PREFIX, "")
    if dict(partition) != {"server": prefix}:
        raise ConnectError(
            f'The partition of this connector is {{"server": "{prefix}"}} (its {TOPIC_PREFIX}); '
            f"got {as_json(partition)}"
        )
