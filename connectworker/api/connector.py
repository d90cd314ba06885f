"""`SourceConnector`: configures and splits work into `SourceTask`s."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef, ConfigValue
from connectworker.api.connector_context import ConnectorContext
from connectworker.api.errors import ConnectError
from connectworker.api.exactly_once import ConnectorTransactionBoundaries, ExactlyOnceSupport
from connectworker.api.task import SourceTask


class SourceConnector(ABC):
    """Subclass this, declare `config_def()`, and say which `SourceTask` does the work.

    The worker calls `initialize` with a `ConnectorContext` before `start`; the connector reaches it
    as `self.context` (to ask for a task reconfiguration, or to fail)."""

    _context: ConnectorContext | None = None

    def initialize(self, context: ConnectorContext) -> None:
        self._context = context

    @property
    def context(self) -> ConnectorContext:
        """The context `initialize` was given; raises ConnectError when used before it was called."""
        if self._context is None:
            raise ConnectError(
                f"{type(self).__name__}.context was used before the worker initialised the "
                f"connector (initialize(context) is called before start())"
            )
        return self._context

    @abstractmethod
    def version(self) -> str: ...

    @abstractmethod
    def config_def(self) -> ConfigDef:
        """The connector's own keys (the worker adds the common ones: name, tasks.max, topic.creation.*)."""

    @abstractmethod
    def start(self, props: Mapping[str, str]) -> None: ...

    @abstractmethod
    def task_class(self) -> type[SourceTask]: ...

    @abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """At most `max_tasks` task configurations; one task is started per entry."""

    @abstractmethod
    def stop(self) -> None: ...

    def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        """Validate the connector's own keys; override to add cross-key checks."""
        return self.config_def().validate_all(props)

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Whether this connector, configured with `props`, can deliver exactly once. None (the
        default, as in Kafka) means unknown: a connector with `exactly.once.support=required` then
        fails validation."""
        return None

    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        """Whether its tasks can use `transaction.boundary=connector` (a `TransactionContext`)."""
        return ConnectorTransactionBoundaries.UNSUPPORTED
