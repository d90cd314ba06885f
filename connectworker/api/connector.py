"""`SourceConnector`: configures and splits work into `SourceTask`s."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

from connectworker.api.config_def import ConfigDef, ConfigValue
from connectworker.api.connector_context import ConnectorContext
from connectworker.api.errors import ConnectError, DryRunUnsupported
from connectworker.api.exactly_once import ConnectorTransactionBoundaries, ExactlyOnceSupport
from connectworker.api.required_topics import RequiredTopic
from connectworker.api.task import SourceTask


class SourceConnector(ABC):
    """Subclass this, declare `config_def()`, and say which `SourceTask` does the work.

    The worker calls `initialize` with a `ConnectorContext` before `start`; the connector reaches it
    as `self.context` (to ask for a task reconfiguration, or to fail)."""

    _context: ConnectorContext | None = None

    worker_cluster_keys: ClassVar[tuple[str, ...]] = ()
    """Keys of this connector's configuration that name a Kafka cluster which must be the worker's own (the
    cluster of a topic the connector's own clients read and write, such as a schema history). Where such a
    key is absent, empty or `embedded`, the connector and its tasks receive the worker's `bootstrap.servers`
    in it: the embedded broker's address, which is new at every run, included. What the worker keeps and
    shows is the config as written."""

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

    def dry_start(self, props: Mapping[str, str]) -> None:
        """Start for a dry run (`connectworker plan`, `GET /connectors/{name}/topics/plan`, topic drift),
        so that `task_configs` can say what the tasks would be given, with **no side effect outside this
        process**: reading is allowed (a catalog query, a file's metadata); creating, locking or writing
        anything is not (no table, replication slot, lock, file, topic), and nothing may outlive `stop`
        (no thread, no open session). `stop` follows, as after `start`.

        The default refuses (raises `DryRunUnsupported`): the dry run then plans with the connector's
        `topic.creation.*` rules alone, and says that its task's `settings_for_new_topic` was not asked.
        A connector whose `start` has no such side effect implements it as `self.start(props)`."""
        raise DryRunUnsupported(
            f"{type(self).__name__} does not implement dry_start "
            "(its start may have side effects a dry run must not have)"
        )

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

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> bool:
        """Asked before the offsets of this (stopped) connector are altered or reset through the REST API, as
        Kafka's `alterOffsets` (KIP-875): `props` is the connector's config, `offsets` each source partition
        with its new offset (None: the partition's offset is removed; a reset removes every one). Raise
        `ConnectError`, saying what is wrong, to refuse them: nothing is written then. Return True when the
        connector checked them (or applied them to a system of its own), False (the default) when it takes
        no part; they are written either way."""
        return False

    def unused_offset_reason(
        self, props: Mapping[str, str], partition: Mapping[str, Any], offset: Mapping[str, Any]
    ) -> str | None:
        """Why no task of this connector, configured with `props`, would resume from this committed offset
        (a partition it no longer reads, an offset its task could not read), or None when one would or the
        connector cannot tell (the default). Asked to flag such offsets on the status page; it must only
        read, never change anything."""
        return None

    def ignored_keys(self, props: Mapping[str, str]) -> Collection[str]:
        """Optional: the keys of `props` this connector knows and ignores on purpose (another product's keys
        it does not implement, which it reports itself): the worker then does not also take them for
        misspellings of the keys it declares. Default: none."""
        return ()

    def required_topics(self, props: Mapping[str, str]) -> Sequence[RequiredTopic]:
        """The topics this connector, configured with `props`, needs before its first record, each with the
        settings it must have (none by default). The worker creates each missing one after `start()` and
        before the tasks start, and fails the connector, naming the setting, when one exists otherwise;
        `connectworker plan` and `topics drift` show them."""
        return ()

    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        """Whether its tasks can use `transaction.boundary=connector` (a `TransactionContext`)."""
        return ConnectorTransactionBoundaries.UNSUPPORTED


def offset_refusal(
    connector: SourceConnector, props: Mapping[str, str], partition: Mapping[str, Any], offset: Mapping[str, Any]
) -> str | None:
    """What `connector.alter_offsets` says against this one offset, or None if it takes it: for a connector
    whose `alter_offsets` only checks (changes nothing) to reuse its checks in `unused_offset_reason`."""
    try:
        connector.alter_offsets(props, [(partition, offset)])
    except ConnectError as exc:
        return str(exc)
    return None
