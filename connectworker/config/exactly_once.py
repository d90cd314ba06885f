"""A connector's exactly-once keys (Kafka's KIP-618 names and defaults) and their cross-checks.

`exactly.once.support=requested|required`: with `required`, a connector that does not declare
`ExactlyOnceSupport.SUPPORTED` fails validation. `transaction.boundary=poll|interval|connector` says
where each task's transactions end: after every `poll()` that returned records, every
`transaction.boundary.interval.ms` (default: the worker's `offset.flush.interval.ms`), or where the
task asks through its `TransactionContext` (the connector must declare it can). The keys take effect
only on a worker with `exactly.once.source.support=enabled`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, one_of
from connectworker.api.connector import SourceConnector
from connectworker.api.exactly_once import ConnectorTransactionBoundaries, ExactlyOnceSupport

__all__ = [
    "EMBEDDED_BROKER_CAVEAT",
    "EXACTLY_ONCE_CONFIG_DEF",
    "SUPPORT_KEY",
    "ExactlyOnceRequest",
    "TransactionBoundary",
    "TransactionSettings",
    "exactly_once_problems",
]

SUPPORT_KEY = "exactly.once.support"
BOUNDARY_KEY = "transaction.boundary"
INTERVAL_KEY = "transaction.boundary.interval.ms"
GROUP = "Exactly Once Support"

EMBEDDED_BROKER_CAVEAT = (
    "exactly.once.source.support=enabled cannot hold with bootstrap.servers=embedded: the embedded Tansu "
    "broker shows records of aborted transactions to read_committed consumers, so they may read records "
    "twice, and a task restarted after a crash or kill may resume from the offsets of a transaction that "
    "never committed, losing records. Records and offsets are still written in transactions. For "
    "exactly-once delivery, point bootstrap.servers at an Apache Kafka cluster (host:port)."
)
"""Logged as a warning when a worker starts the embedded broker with exactly-once enabled, and printed
in docs/configuration.md and the README (Tansu 0.6 measured: produce, flush, abort, and a
read_committed consumer still reads the record)."""


class ExactlyOnceRequest(StrEnum):
    REQUESTED = "requested"
    REQUIRED = "required"


class TransactionBoundary(StrEnum):
    POLL = "poll"
    INTERVAL = "interval"
    CONNECTOR = "connector"


EXACTLY_ONCE_CONFIG_DEF = (
    ConfigDef()
    .define(
        SUPPORT_KEY,
        ConfigType.STRING,
        ExactlyOnceRequest.REQUESTED.value,
        validator=one_of(*ExactlyOnceRequest),
        importance=Importance.MEDIUM,
        group=GROUP,
        documentation="'required' makes validation fail unless the connector declares it supports "
        "exactly-once delivery; 'requested' runs it either way.",
    )
    .define(
        BOUNDARY_KEY,
        ConfigType.STRING,
        TransactionBoundary.POLL.value,
        validator=one_of(*TransactionBoundary),
        importance=Importance.MEDIUM,
        group=GROUP,
        documentation="Where a task's transactions end on an exactly-once worker: 'poll' (after "
        "every poll that returned records), 'interval' (every "
        "transaction.boundary.interval.ms) or 'connector' (the task decides).",
    )
    .define(
        INTERVAL_KEY,
        ConfigType.LONG,
        None,
        validator=at_least(0),
        importance=Importance.LOW,
        group=GROUP,
        documentation="With transaction.boundary=interval, how often transactions are "
        "committed; default: the worker's offset.flush.interval.ms.",
    )
)


@dataclass(frozen=True)
class TransactionSettings:
    """Where one connector's transactions end."""

    boundary: TransactionBoundary
    interval_ms: int | None

    @classmethod
    def per_poll(cls) -> TransactionSettings:
        """Kafka's default: a transaction per poll that returned records."""
        return cls(TransactionBoundary.POLL, None)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> TransactionSettings:
        """From the typed values of the transaction keys (a connector config's reading)."""
        return cls(TransactionBoundary(str(values[BOUNDARY_KEY]).strip().lower()), values[INTERVAL_KEY])


def exactly_once_problems(
    props: Mapping[str, str], connector: SourceConnector, worker_enabled: bool | None = None
) -> dict[str, str]:
    """Kafka's checks of the exactly-once keys against the connector and (unless `worker_enabled` is
    None, i.e. unknown) the worker, by key."""
    problems: dict[str, str] = {}
    request = props.get(SUPPORT_KEY, "").strip().lower()
    if request == ExactlyOnceRequest.REQUIRED:
        messages = []
        if worker_enabled is False:
            messages.append(
                "This worker does not have exactly-once source support enabled (exactly.once.source.support=disabled)."
            )
        support = connector.exactly_once_support(props)
        if support is not ExactlyOnceSupport.SUPPORTED:
            why = "does not say whether it supports" if support is None else "does not support"
            messages.append(
                f"The connector {why} exactly-once semantics with this configuration; "
                f"use {SUPPORT_KEY}=requested to run it without this check."
            )
        if messages:
            problems[SUPPORT_KEY] = " ".join(messages)
    defines_boundaries = props.get(BOUNDARY_KEY, "").strip().lower() == TransactionBoundary.CONNECTOR
    if defines_boundaries and (
        connector.can_define_transaction_boundaries(props) is not ConnectorTransactionBoundaries.SUPPORTED
    ):
        problems[BOUNDARY_KEY] = (
            "The connector does not support connector-defined transaction "
            "boundaries with this configuration; use 'poll' or 'interval'"
        )
    return problems
