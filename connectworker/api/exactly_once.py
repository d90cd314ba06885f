"""Exactly-once delivery as a connector sees it (Kafka's KIP-618).

When the worker runs with `exactly.once.source.support=enabled`, each task's records and their
source offsets are written in one Kafka transaction. A connector says whether it can take part
(`SourceConnector.exactly_once_support`) and whether it can decide where transactions end
(`SourceConnector.can_define_transaction_boundaries`); with `transaction.boundary=connector` its tasks
find a `TransactionContext` on their context and ask for commits and aborts through it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import StrEnum

from connectworker.api.record import SourceRecord

__all__ = ["ConnectorTransactionBoundaries", "ExactlyOnceSupport", "TransactionContext"]


class ExactlyOnceSupport(StrEnum):
    """Whether a connector, as configured, can deliver exactly once: its source can be re-read from
    a committed offset and gives the same records again."""

    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"


class ConnectorTransactionBoundaries(StrEnum):
    """Whether a connector's tasks can define their own transaction boundaries."""

    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"


class TransactionContext(ABC):
    """Given to tasks of a connector configured with `transaction.boundary=connector`.

    Requests take effect when the worker reaches them: without a record, after the records of the
    current `poll()` are dispatched; with a record, right after that record is dispatched (it is part
    of the transaction). An aborted transaction's records are dropped, never retried, and their
    offsets are still committed (as in Kafka), so the task does not read them again.
    """

    @abstractmethod
    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        """Commit the current transaction after the current poll's records, or after `record`."""

    @abstractmethod
    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        """Abort the current transaction after the current poll's records, or after `record`."""
