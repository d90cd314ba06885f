"""The `ConnectorContext`s the worker hands to connectors, and `RunningConnector`, the worker's record
of one connector that a context names back to the worker.

`WorkerConnectorContext` belongs to one started instance of one connector: what it asks is applied to
that instance only, so a request from a connector instance that was stopped meanwhile (its monitoring
thread still winding down) changes nothing. The requests are queued to the worker (which applies
lifecycle changes one at a time), never applied on the connector's thread: the connector may call
them from inside `start()` or from a thread the worker is about to join.

`DetachedConnectorContext` is for the places that start a connector briefly, outside a worker (the
topic-creation dry run, the DataFrame source): a reconfiguration request has nothing to restart there,
so it is logged; an error is kept for the caller to raise.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Protocol

from connectworker.api.connector import SourceConnector
from connectworker.config.connector_config import ConnectorConfig
from connectworker.runtime.runners.task_runner import TaskHandle
from connectworker.runtime.status import State, Status

log = logging.getLogger(__name__)


@dataclass
class RunningConnector:
    config: ConnectorConfig  # as written: `${provider:...}` references unresolved
    connector: SourceConnector | None = None
    status: Status = field(default_factory=Status)
    tasks: list[TaskHandle] = field(default_factory=list)
    task_configs: list[dict[str, str]] = field(default_factory=list)  # each task's own, references unresolved
    resolved: ConnectorConfig | None = None  # `config` as the running connector received it
    topics: set[str] = field(default_factory=set)
    target_state: State = State.RUNNING

    def kept_task_config(self, task_id: int) -> dict[str, str] | None:
        """Task `task_id`'s props as kept (references unresolved): the connector's config with the task's
        own config laid over it, as the task receives them once resolved; None for an unknown task."""
        if not 0 <= task_id < len(self.task_configs):
            return None
        return {**self.config.props, **self.task_configs[task_id]}


class ConnectorRequests(Protocol):
    """The worker's side of a connector's requests."""

    def request_task_reconfiguration(self, running: RunningConnector, connector: SourceConnector) -> None: ...

    def connector_failed(self, running: RunningConnector, connector: SourceConnector, exc: BaseException) -> None: ...


class WorkerConnectorContext:
    def __init__(self, worker: ConnectorRequests, running: RunningConnector, connector: SourceConnector) -> None:
        self._worker = worker
        self._running = running
        self._connector = connector
        self.error: BaseException | None = None
        """What the connector passed to `raise_error`, if anything."""

    def request_task_reconfiguration(self) -> None:
        self._worker.request_task_reconfiguration(self._running, self._connector)

    def raise_error(self, exc: BaseException) -> None:
        self.error = exc
        self._worker.connector_failed(self._running, self._connector, exc)


class DetachedConnectorContext:
    def __init__(self, connector_name: str, where: str) -> None:
        self._name = connector_name
        self._where = where
        self.error: BaseException | None = None
        self.reconfiguration_requests = 0

    def request_task_reconfiguration(self) -> None:
        self.reconfiguration_requests += 1
        log.info(
            "Connector %s asked for a task reconfiguration; %s keeps the task configs it started with",
            self._name,
            self._where,
        )

    def raise_error(self, exc: BaseException) -> None:
        self.error = exc
        log.error("Connector %s raised an error through its context (%s): %s", self._name, self._where, exc)
