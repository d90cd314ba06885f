"""The worker's Admin API client for topics: batched describe and create, and broker errors turned
into messages that tell the operator what to change.

Existence checks use DescribeTopics (a metadata request that never auto-creates), and the client is
configured with ``allow.auto.create.topics=false``: a plain metadata request naming a topic would make
a broker with auto-create enabled create it (see docs/topic-creation.md).

Where the client's log lines go is the caller's choice: the runtime builds every TopicAdmin through
`connectworker.runtime.topic_admin.open_topic_admin`, which passes the ``logger`` setting and polls
the client in the background so librdkafka's lines reach the ``connectworker.kafka`` logger.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient

# confluent_kafka.admin re-exports these without declaring them; imported from where they are defined
# (and typed), so that the strict checks of this package (pyproject.toml) check their use.
from confluent_kafka.admin._config import AlterConfigOpType, ConfigEntry, ConfigResource
from confluent_kafka.admin._resource import ResourceType
from confluent_kafka.admin._topic import TopicDescription
from confluent_kafka.cimpl import NewPartitions, NewTopic

from connectworker.api.errors import ConnectError
from connectworker.api.topic_settings import TopicSettings
from connectworker.topics.drift import TopicState

log = logging.getLogger(__name__)

RETRIABLE_CODES = frozenset(
    {
        KafkaError.REQUEST_TIMED_OUT,
        KafkaError._TIMED_OUT,
        KafkaError.NOT_CONTROLLER,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.NETWORK_EXCEPTION,
        KafkaError._TRANSPORT,
        KafkaError._ALL_BROKERS_DOWN,
        KafkaError.COORDINATOR_NOT_AVAILABLE,
        KafkaError.BROKER_NOT_AVAILABLE,
        KafkaError.THROTTLING_QUOTA_EXCEEDED,
        KafkaError._WAIT_COORD,
    }
)
UNSUPPORTED_CODES = frozenset({KafkaError.UNSUPPORTED_VERSION, KafkaError._UNSUPPORTED_FEATURE})
MISSING_CODES = frozenset({KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC})
"""Codes meaning "no such topic", from the broker or from librdkafka's own metadata."""


class TopicAdminError(ConnectError):
    """A topic operation failed; `message` says why and what to do. `retriable` errors may pass."""

    def __init__(self, message: str, *, code: int | None = None, retriable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.retriable = retriable


class UnsupportedCallError(TopicAdminError):
    """The broker does not support an Admin request (e.g. CreatePartitions on the Tansu test broker)."""


class Outcome(Enum):
    CREATED = "created"
    ALREADY_EXISTS = "already exists"
    UNSUPPORTED = "unsupported"  # the broker has no CreateTopics: rely on its auto-create
    FAILED = "failed"


@dataclass(frozen=True)
class CreateResult:
    topic: str
    outcome: Outcome
    error: TopicAdminError | None = None


def _broker_text(err: KafkaError) -> str:
    return err.str() or err.name()


def explain_create_error(
    topic: str, err: KafkaError, settings: TopicSettings | None = None, broker_count: int | None = None
) -> TopicAdminError:
    """An actionable message for a CreateTopics error on `topic`."""
    code = err.code()
    text = _broker_text(err)
    if code == KafkaError.POLICY_VIOLATION:
        msg = (
            f"The broker's create-topic policy rejected topic {topic!r}: {text}. Change the "
            f"connector's topic.creation.* settings to satisfy the policy, or have an administrator "
            f"create the topic."
        )
    elif code == KafkaError.TOPIC_AUTHORIZATION_FAILED:
        msg = (
            f"Not authorized to create topic {topic!r}: the worker's principal needs the ACL "
            f"CREATE on TOPIC {topic!r} (or CREATE on the CLUSTER), e.g. "
            f"kafka-acls --add --allow-principal User:<worker> --operation Create --topic {topic}. "
            f"Broker said: {text}"
        )
    elif code == KafkaError.CLUSTER_AUTHORIZATION_FAILED:
        msg = (
            f"Not authorized to create topic {topic!r}: the worker's principal needs the ACL "
            f"CREATE on the CLUSTER resource (or CREATE on TOPIC {topic!r}), e.g. "
            f"kafka-acls --add --allow-principal User:<worker> --operation Create --cluster. "
            f"Broker said: {text}"
        )
    elif code == KafkaError.INVALID_REPLICATION_FACTOR:
        rf = settings.replication_factor if settings else "?"
        brokers = f"{broker_count} broker(s)" if broker_count is not None else "fewer brokers"
        msg = (
            f"Cannot create topic {topic!r} with replication factor {rf}: the cluster has {brokers}. "
            f"Set topic.creation.<group>.replication.factor to at most the number of brokers, or -1 "
            f"for the broker's default. Broker said: {text}"
        )
    elif code == KafkaError.INVALID_CONFIG:
        configs = ", ".join(f"{k}={v}" for k, v in (settings.configs() if settings else {}).items())
        msg = (
            f"The broker rejected a topic config of {topic!r}: {text}. Configs sent: {configs or 'none'}. "
            f"Fix or remove that key under topic.creation.<group>."
        )
    elif code == KafkaError.TOPIC_EXCEPTION:
        msg = (
            f"{topic!r} is not a valid topic name: {text}. Topic names use [a-zA-Z0-9._-], at most "
            f"249 characters, and may not be '.' or '..'."
        )
    elif code == KafkaError.INVALID_PARTITIONS:
        parts = settings.partitions if settings else "?"
        msg = (
            f"Cannot create topic {topic!r} with {parts} partitions: {text}. Partitions must be "
            f"positive, or -1 for the broker's default."
        )
    elif code in RETRIABLE_CODES:
        msg = f"Creating topic {topic!r} failed temporarily: {text} ({err.name()})"
    else:
        msg = f"Creating topic {topic!r} failed: {text} ({err.name()})"
    return TopicAdminError(msg, code=code, retriable=code in RETRIABLE_CODES or err.retriable())


def explain_describe_error(topic: str, err: KafkaError) -> TopicAdminError:
    code = err.code()
    if code in (KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.CLUSTER_AUTHORIZATION_FAILED):
        return TopicAdminError(
            f"Not authorized to describe topic {topic!r}: the worker's principal needs the ACL DESCRIBE on "
            f"TOPIC {topic!r} to check whether it exists, e.g. kafka-acls --add --allow-principal "
            f"User:<worker> --operation Describe --topic {topic}. Broker said: {_broker_text(err)}",
            code=code,
        )
    retriable = code in RETRIABLE_CODES or err.retriable()
    return TopicAdminError(
        f"Checking whether topic {topic!r} exists failed: {_broker_text(err)} ({err.name()})",
        code=code,
        retriable=retriable,
    )


# Futures are read with .exception(), never .result(): a raised exception would carry a traceback whose
# frames (holding the futures, which hold the exception) form a cycle that keeps clients alive.
def _kafka_error(exc: BaseException) -> KafkaError:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return exc.args[0]
    return KafkaError(KafkaError._FAIL, str(exc))


class _ClosedClient:
    """Stands in for the AdminClient of a closed `TopicAdmin`: every request fails saying so."""

    def __getattr__(self, name: str) -> Any:
        raise TopicAdminError(f"The Admin client was closed (its worker stopped); {name}() was not sent")


class TopicAdmin:
    """A thin, counted wrapper over confluent-kafka's AdminClient for the topic operations we need."""

    def __init__(
        self,
        bootstrap_servers: str,
        config: Mapping[str, Any] | None = None,
        request_timeout_s: float = 30.0,
        *,
        client_settings: Mapping[str, Any] | None = None,
    ) -> None:
        """`config` holds the operator's client settings (``admin.*``); `client_settings`, the caller's
        own (e.g. the ``logger``), override them. Nobody polls this client unless the caller does
        (see `poll`): a ``logger``'s lines wait for it."""
        self._client: AdminClient | _ClosedClient = AdminClient(
            {
                **(config or {}),
                **(client_settings or {}),
                "bootstrap.servers": bootstrap_servers,
                "allow.auto.create.topics": False,
            }
        )
        self.request_timeout_s = request_timeout_s
        self._lock = threading.Lock()
        self.requests = 0  # Admin requests sent; the benchmark checks it stays 0 on known topics

    def poll(self, timeout: float = 0.0) -> int:
        """Serve the client's queued callbacks (log lines, ``error_cb``); returns how many were served."""
        return 0 if self.closed else self._client.poll(timeout)

    def close(self) -> None:
        """Let go of the client now: librdkafka stops connecting once nothing holds it, even while this
        wrapper lives on in a reference cycle (its owner's stop), so no "connection refused" lines follow
        a stopped worker. Any call after this is a `TopicAdminError`."""
        self._client = _ClosedClient()

    @property
    def closed(self) -> bool:
        return isinstance(self._client, _ClosedClient)

    def _count(self) -> None:
        with self._lock:
            self.requests += 1

    def _cluster_metadata(self, doing: str) -> Any:
        """Whole-cluster metadata (naming no topic, so nothing is auto-created); a failure says what it
        was `doing` ("count brokers")."""
        self._count()
        try:
            return self._client.list_topics(timeout=self.request_timeout_s)
        except KafkaException as exc:
            err = _kafka_error(exc)
            raise TopicAdminError(
                f"Cannot reach the Kafka cluster to {doing}: {_broker_text(err)}", code=err.code(), retriable=True
            ) from None

    def broker_count(self) -> int:
        """Live brokers, from whole-cluster metadata."""
        return len(self._cluster_metadata("count brokers").brokers)

    def cluster_id(self) -> str | None:
        self._count()
        try:
            return self._client.list_topics(timeout=self.request_timeout_s).cluster_id
        except KafkaException:
            return None

    def describe(self, topics: Iterable[str]) -> tuple[set[str], set[str]]:
        """Split `topics` into (existing, missing) with one DescribeTopics request."""
        described = self._described(topics)
        return (
            {name for name, d in described.items() if d is not None},
            {name for name, d in described.items() if d is None},
        )

    def _described(self, topics: Iterable[str]) -> dict[str, TopicDescription | None]:
        """Each topic's description (None: it does not exist), from one DescribeTopics request."""
        names = sorted(set(topics))
        if not names:
            return {}
        self._count()
        futures = self._client.describe_topics(TopicCollection(names), request_timeout=self.request_timeout_s)
        described: dict[str, TopicDescription | None] = {}
        for name, future in futures.items():
            exc = future.exception()
            if exc is None:
                described[name] = future.result()
            elif (err := _kafka_error(exc)).code() in MISSING_CODES:
                described[name] = None
            else:
                raise explain_describe_error(name, err)
        return described

    def create(
        self, settings: Iterable[TopicSettings], *, validate_only: bool = False, broker_count: int | None = None
    ) -> dict[str, CreateResult]:
        """Create (or with `validate_only`, only validate) every topic in one CreateTopics request."""
        by_name = {s.name: s for s in settings}
        if not by_name:
            return {}
        self._count()
        new_topics = [
            NewTopic(s.name, num_partitions=s.partitions, replication_factor=s.replication_factor, config=s.configs())
            for s in by_name.values()
        ]
        futures = self._client.create_topics(
            new_topics,
            operation_timeout=self.request_timeout_s,
            request_timeout=self.request_timeout_s,
            validate_only=validate_only,
        )
        results = {}
        for name, future in futures.items():
            exc = future.exception()
            if exc is None:
                results[name] = CreateResult(name, Outcome.CREATED)
                continue
            err = _kafka_error(exc)
            if err.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                results[name] = CreateResult(name, Outcome.ALREADY_EXISTS)
            elif err.code() in UNSUPPORTED_CODES:
                results[name] = CreateResult(name, Outcome.UNSUPPORTED)
            else:
                results[name] = CreateResult(
                    name, Outcome.FAILED, explain_create_error(name, err, by_name[name], broker_count)
                )
        return results

    def delete(self, topics: Iterable[str]) -> None:
        """Delete topics (used by tests and benchmarks to free the broker's memory)."""
        names = list(topics)
        if not names:
            return
        self._count()
        for name, future in self._client.delete_topics(names, operation_timeout=self.request_timeout_s).items():
            exc = future.exception()
            if exc is not None and (err := _kafka_error(exc)).code() not in MISSING_CODES:
                raise TopicAdminError(f"Deleting topic {name!r} failed: {_broker_text(err)}", code=err.code())

    # -- drift: reading and changing existing topics ------------------------------------------------
    def topic_names(self) -> set[str]:
        """Every topic of the cluster, from whole-cluster metadata."""
        return set(self._cluster_metadata("list its topics").topics)

    def describe_states(self, topics: Iterable[str]) -> dict[str, TopicState | None]:
        """Partitions, replication factor and configs of each topic (None: it does not exist): one
        DescribeTopics and one DescribeConfigs request."""
        described = self._described(topics)
        names = sorted(name for name, d in described.items() if d is not None)
        states: dict[str, TopicState | None] = dict.fromkeys(described)
        if not names:
            return states
        self._count()
        configs = self._client.describe_configs(
            [ConfigResource(ResourceType.TOPIC, name) for name in names], request_timeout=self.request_timeout_s
        )
        values: dict[str, dict[str, str]] = {}
        for resource, future in configs.items():
            if (exc := future.exception()) is not None:
                raise self._call_error("DescribeConfigs", resource.name, exc)
            values[resource.name] = {
                key: entry.value for key, entry in future.result().items() if entry.value is not None
            }
        for name in names:
            description = described[name]
            assert description is not None
            partitions = description.partitions
            replicas = len(partitions[0].replicas) if partitions else 0
            states[name] = TopicState(name, len(partitions), replicas, values.get(name, {}))
        return states

    def add_partitions(self, totals: Mapping[str, int], *, validate_only: bool = False) -> None:
        """Grow each topic to its total partition count (CreatePartitions)."""
        if not totals:
            return
        self._count()
        futures = self._client.create_partitions(
            [NewPartitions(name, total) for name, total in totals.items()],
            operation_timeout=self.request_timeout_s,
            request_timeout=self.request_timeout_s,
            validate_only=validate_only,
        )
        for name, future in futures.items():
            if (exc := future.exception()) is not None:
                raise self._call_error("CreatePartitions", name, exc)

    def set_configs(self, configs: Mapping[str, Mapping[str, str]], *, validate_only: bool = False) -> None:
        """Set these configs of each topic, leaving the others as they are (IncrementalAlterConfigs)."""
        if not configs:
            return
        self._count()
        resources = [
            ConfigResource(
                ResourceType.TOPIC,
                name,
                incremental_configs=[
                    ConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)
                    for key, value in values.items()
                ],
            )
            for name, values in configs.items()
        ]
        futures = self._client.incremental_alter_configs(
            resources, request_timeout=self.request_timeout_s, validate_only=validate_only
        )
        for resource, future in futures.items():
            if (exc := future.exception()) is not None:
                raise self._call_error("IncrementalAlterConfigs", resource.name, exc)

    @staticmethod
    def _call_error(request: str, topic: str, exc: BaseException) -> TopicAdminError:
        err = _kafka_error(exc)
        if err.code() in UNSUPPORTED_CODES:
            return UnsupportedCallError(f"The broker does not support {request} ({_broker_text(err)})", code=err.code())
        return TopicAdminError(
            f"{request} for topic {topic!r} failed: {_broker_text(err)} ({err.name()})",
            code=err.code(),
            retriable=err.code() in RETRIABLE_CODES,
        )
