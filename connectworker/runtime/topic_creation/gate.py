"""The interface between the record path and topic creation.

Before a task produces to topics it has not used yet, it asks a `TopicGate` to make them ready. The
gate created for a connector decides what "ready" means: with topic creation off it only notes the
topics (the broker's auto-create applies); with it on, it checks and creates them (service.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol

from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.topic_creation.service import AdminOpener, TopicCreationService
from connectworker.topics.admin import TopicAdmin
from connectworker.topics.decisions import NewTopicHook

ConnectorAdmins = Callable[[ConnectorConfig], AdminOpener | None]
"""Opens a connector's own Admin client when its `admin.override.*` keys ask for one (else None)."""


class TopicGate(Protocol):
    def ensure(self, topics: Collection[str], hook: NewTopicHook | None, task_name: str) -> None:
        """Return once `topics` may be produced to; raise ConnectError if one can never be.

        `hook` (the task's `settings_for_new_topic`; None: none) may adjust or veto a topic about to
        be created; `task_name` names the task in messages."""
        ...

    def forget(self, topic: str) -> None:
        """`topic` vanished (e.g. deleted at run time): check it again on next use."""
        ...

    @property
    def recreates_missing_topics(self) -> bool:
        """Whether a record that met 'unknown topic' should be re-sent after `ensure` again."""
        ...


def connector_admins(worker: WorkerConfig, request_timeout_s: float) -> ConnectorAdmins:
    """Each connector with `admin.override.*` keys gets an Admin client of its own for its topic creation
    (named `connector-adminclient-<connector>` unless it sets client.id), with the worker's Admin settings
    and its overrides over them, as Kafka gives each source task; the others share the worker's."""

    def admin_for(connector: ConnectorConfig) -> AdminOpener | None:
        if not connector.admin_overrides:
            return None

        def open_admin() -> TopicAdmin:
            settings = {
                "client.id": f"connector-adminclient-{connector.name}",
                **worker.client_settings("admin", connector.admin_overrides),
            }
            return open_topic_admin(
                worker.bootstrap_servers,
                settings,
                request_timeout_s=request_timeout_s,
                client_name=f"Connector {connector.name} admin",
            )

        return open_admin

    return admin_for


def connector_gates(
    service: TopicCreationService, admins: ConnectorAdmins | None = None
) -> Callable[[ConnectorConfig], TopicGate]:
    """The worker's gate factory: each connector's gate, from its name, props and parsed rules, and its
    own Admin client if `admins` opens one for it."""

    def gate_for(config: ConnectorConfig) -> TopicGate:
        admin = admins(config) if admins is not None else None
        return service.gate_for_rules(config.name, config.props, config.topic_rules, admin)

    return gate_for
