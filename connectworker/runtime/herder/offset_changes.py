"""Asking a connector about offsets an operator alters or resets through the REST API (KIP-875).

Kafka Connect calls `SourceConnector.alterOffsets` before it writes such offsets: the connector may
refuse them (a partition it never writes, an offset its task could not resume from) or apply them to a
system of its own. Here the same hook is `SourceConnector.alter_offsets`, asked on a fresh instance of the
connector's class (the connector is STOPPED), with its config as its task would receive it.
"""

from __future__ import annotations

from collections.abc import Sequence

from connectworker.api.errors import ConnectError
from connectworker.runtime.herder.errors import InvalidRequestError
from connectworker.runtime.herder.values import OffsetChanges
from connectworker.runtime.worker import Worker


def ask_connector(worker: Worker, name: str, changes: OffsetChanges) -> None:
    """Let connector `name` check `changes`; its refusal is an `InvalidRequestError` (REST 400) naming it,
    with its reason. An exception that is not a refusal (a bug in the hook) is a `ConnectError` (500)."""
    running = worker.get(name)
    config = worker.resolver.connector(running.config)
    try:
        config.connector_class().alter_offsets(config.props, changes)
    except ConnectError as exc:
        raise InvalidRequestError(f"Connector {name} refused the offsets: {exc}") from None
    except Exception as exc:
        raise ConnectError(
            f"Connector {name}'s alter_offsets() raised {type(exc).__name__}: {exc}; no offset was changed"
        ) from exc


def unused_offset_reasons(worker: Worker, name: str, offsets: Sequence[tuple[object, object]]) -> list[str | None]:
    """For each committed `(partition, offset)` of connector `name`, why no task of its current config
    would resume from it (the connector's `unused_offset_reason`), or None. A hook that raises is said so
    in the reason: the page shows what it could not check rather than hiding it."""
    running = worker.get(name)
    config = running.resolved or running.config
    connector = config.connector_class()
    reasons: list[str | None] = []
    for partition, offset in offsets:
        if not isinstance(partition, dict) or not isinstance(offset, dict):
            reasons.append("not a JSON object: no task reads it")
            continue
        try:
            reasons.append(connector.unused_offset_reason(config.props, partition, offset))
        except Exception as exc:
            reasons.append(f"not checked: {name}'s unused_offset_reason() raised {type(exc).__name__}: {exc}")
    return reasons
