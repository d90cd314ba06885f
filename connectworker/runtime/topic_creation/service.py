"""Making a task's topics ready before it produces to them.

`TopicCreationService` is worker-wide: it owns the Admin client and the known-topic cache that all
tasks share. It hands each connector a gate (see runtime/topic_creation/gate.py):

- `AutoCreateGate` when the worker's `topic.creation.enable` is false or the connector did not opt
  in: nothing is asked of the broker, its auto-create (or an existing topic) applies.
- `CreatingGate` otherwise. For the not-yet-known topics of one poll batch it sends one
  DescribeTopics, builds `TopicSettings` for the missing ones from the connector's rules, lets the
  hook the caller passes (a task's `settings_for_new_topic`; none for a Spark DataFrame write) adjust
  or veto them, creates the rest in one CreateTopics, and waits until they are visible. Retriable
  failures are retried with backoff until `topic.creation.timeout.ms`; then, like every fatal error,
  the task fails with the reason.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.api.topic_settings import TopicSettings
from connectworker.topics.admin import Outcome, TopicAdmin, TopicAdminError
from connectworker.topics.decisions import (
    Decision,
    NewTopicHook,
    TopicCreationError,
    check_replication,
    decide,
    error_kind,
)
from connectworker.topics.names import validate_topic_name
from connectworker.topics.rule_parser import has_topic_creation_keys
from connectworker.topics.rules import TopicCreationRules

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CreatedTopic:
    """A topic this worker created: for the status page, drift checks and the latency metric."""

    name: str
    connector: str
    rule: str | None
    settings: TopicSettings
    created_at: float  # wall clock (time.time()) when it became visible
    seconds: float  # from the existence check of its batch until it was visible


CreationListener = Callable[[CreatedTopic], None]
"""Called on the creating task's thread after each topic the worker created is visible."""


class KnownTopics:
    """Topics the worker knows it may produce to (exist, were created, or are left to auto-create)."""

    def __init__(self) -> None:
        self._topics: set[str] = set()
        self._lock = threading.Lock()

    def __contains__(self, topic: object) -> bool:
        return topic in self._topics  # set membership is atomic under the GIL

    def unknown(self, topics: Iterable[str]) -> list[str]:
        return [t for t in topics if t not in self._topics]

    def size(self) -> int:
        return len(self._topics)

    def add(self, topics: Iterable[str]) -> None:
        with self._lock:
            self._topics.update(topics)

    def discard(self, topic: str) -> None:
        with self._lock:
            self._topics.discard(topic)


class AutoCreateGate:
    """Topic creation off: produce, and let the broker auto-create (or find) the topic."""

    recreates_missing_topics = False

    def ensure(self, topics: Collection[str], hook: NewTopicHook | None, task_name: str) -> None:
        return None

    def forget(self, topic: str) -> None:
        return None


@dataclass
class Backoff:
    """Retry delays (doubling to 2 s) until `deadline`, then the error that kept failing."""

    deadline: float
    delay: float = 0.1

    def wait_or_raise(self, what: str, error: str) -> None:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TopicCreationError(f"Gave up {what} after topic.creation.timeout.ms: {error}", kind="timeout")
        log.warning("%s failed, retrying in %.1fs: %s", what.capitalize(), min(self.delay, remaining), error)
        time.sleep(min(self.delay, remaining))
        self.delay = min(self.delay * 2, 2.0)


AdminOpener = Callable[[], TopicAdmin]
"""Opens the Admin client of one connector whose settings differ from the worker's (`admin.override.*`)."""


class CreatingGate:
    """Creates a connector's missing topics; shared by all tasks of that connector. With `admin`, the
    connector's own Admin client (opened at its first use) sends the requests instead of the worker's."""

    recreates_missing_topics = True

    def __init__(
        self, service: TopicCreationService, connector: str, rules: TopicCreationRules, admin: AdminOpener | None = None
    ) -> None:
        self._service = service
        self._connector = connector
        self._rules = rules
        self._open_admin = admin
        self._admin: TopicAdmin | None = None

    def _own_admin(self) -> TopicAdmin | None:
        if self._open_admin is not None and self._admin is None:
            self._admin = self._open_admin()
        return self._admin

    def forget(self, topic: str) -> None:
        self._service.known.discard(topic)

    def ensure(self, topics: Collection[str], hook: NewTopicHook | None, task_name: str) -> None:
        """Make `topics` ready for the task `task_name`, whose `hook` adjusts or vetoes new topics."""
        unknown = self._service.known.unknown(topics)
        if not unknown:
            return
        admin = self._own_admin()
        sent_before = admin.requests if admin is not None else 0
        try:
            self._ensure_unknown(unknown, hook, task_name, admin)
        except TopicCreationError as exc:
            self._service.count_failure(exc.kind)
            raise
        finally:
            if admin is not None:
                self._service.count_requests(admin.requests - sent_before)

    def _ensure_unknown(
        self, unknown: list[str], hook: NewTopicHook | None, task_name: str, admin: TopicAdmin | None
    ) -> None:
        service = self._service
        started = time.monotonic()
        bad = {t: why for t in unknown if (why := validate_topic_name(t))}
        if bad:
            details = "; ".join(f"{t!r}: {why}" for t, why in bad.items())
            raise TopicCreationError(
                f"Task {task_name} produced records for invalid topic names: {details}", kind="invalid_name"
            )
        backoff = Backoff(time.monotonic() + service.timeout_s)
        existing, missing = service.describe_with_retry(unknown, backoff, admin)
        service.known.add(existing)
        if not missing:
            return
        decisions = [decide(self._rules, t, hook, f"task {task_name}", service.policy) for t in sorted(missing)]
        skipped = [d for d in decisions if d.settings is None]
        for d in skipped:
            log.info(
                "Not creating topic %s for connector %s: %s",
                d.topic,
                self._connector,
                d.reason,
                extra={"connector": self._connector, "topic": d.topic},
            )
            if d.rule is not None:  # a rule matched and the hook said no
                service.count_veto()
        service.known.add(d.topic for d in skipped)
        to_create = [d for d in decisions if d.settings is not None]
        if to_create:
            service.create_with_retry(to_create, backoff, self._connector, started, admin)


class TopicCreationService:
    """Worker-wide topic creation: one Admin client and one known-topic cache for every task."""

    def __init__(
        self, admin: TopicAdmin | None, *, enabled: bool, timeout_s: float, policy: CreateTopicPolicy | None = None
    ) -> None:
        self._admin = admin
        self.policy = policy  # the worker's topic.creation.policy.class, configured
        self.enabled = enabled
        self.timeout_s = timeout_s
        self.known = KnownTopics()
        self._broker_count: int | None = None
        self._lock = threading.Lock()
        self._other_requests = 0  # sent by connectors' own Admin clients (admin.override.*)
        # what the metrics, the status page and drift checks read
        self.created = 0  # topics this worker created
        self.vetoed = 0  # topics a rule matched and settings_for_new_topic vetoed
        self.failures: dict[str, int] = {}  # creations that failed a task, by TopicCreationError.kind
        self.created_topics: dict[str, CreatedTopic] = {}  # the last creation of each name
        self._listeners: list[CreationListener] = []

    def add_listener(self, listener: CreationListener) -> None:
        """Call `listener` (on the creating task's thread) after each topic this worker created is visible."""
        self._listeners.append(listener)

    @property
    def admin_requests(self) -> int:
        """Admin requests sent so far (0 without an Admin client), connectors' own clients included."""
        return (self._admin.requests if self._admin is not None else 0) + self._other_requests

    def count_requests(self, sent: int) -> None:
        """`sent` requests of a connector's own Admin client."""
        with self._lock:
            self._other_requests += sent

    def count_veto(self) -> None:
        with self._lock:
            self.vetoed += 1

    def count_failure(self, kind: str) -> None:
        with self._lock:
            self.failures[kind] = self.failures.get(kind, 0) + 1

    def _record_created(self, decision: Decision, connector: str, started: float) -> None:
        assert decision.settings is not None
        now = time.monotonic()
        created = CreatedTopic(decision.topic, connector, decision.rule, decision.settings, time.time(), now - started)
        with self._lock:
            self.created += 1
            self.created_topics[created.name] = created
        for listener in self._listeners:
            listener(created)

    @property
    def admin(self) -> TopicAdmin:
        if self._admin is None:
            raise TopicCreationError("topic creation needs an Admin client; none is configured")
        return self._admin

    def gate_for_rules(
        self, owner: str, props: Mapping[str, str], rules: TopicCreationRules, admin: AdminOpener | None = None
    ) -> AutoCreateGate | CreatingGate:
        """The gate for a connector (or, on Spark, a DataFrame write) named `owner` with these rules;
        `admin` opens the connector's own Admin client if it needs one."""
        has_keys = has_topic_creation_keys(props)
        if not self.enabled:
            if has_keys:
                log.info(
                    "Connector %s has topic.creation.* settings, but they are ignored because the "
                    "worker's topic.creation.enable is false (connectworker's default); the broker's "
                    "auto-create applies. Set topic.creation.enable=true in the worker config to use "
                    "them.",
                    owner,
                )
            return AutoCreateGate()
        if not rules.configured:
            log.info(
                "Connector %s defines no topic.creation rules; the broker's auto-create applies to its new topics",
                owner,
            )
            return AutoCreateGate()
        for warning in rules.warnings():
            log.warning("Connector %s: %s", owner, warning)
        return CreatingGate(self, owner, rules, admin)

    def broker_count(self, admin: TopicAdmin | None = None) -> int:
        if self._broker_count is None:
            self._broker_count = (admin or self.admin).broker_count()
        return self._broker_count

    def describe_with_retry(
        self, topics: Collection[str], backoff: Backoff, admin: TopicAdmin | None = None
    ) -> tuple[set[str], set[str]]:
        while True:
            try:
                return (admin or self.admin).describe(topics)
            except TopicAdminError as exc:
                if not exc.retriable:
                    raise TopicCreationError(str(exc), kind=error_kind(exc.code)) from exc
                backoff.wait_or_raise(f"checking topics {sorted(topics)[:5]}", str(exc))

    def create_with_retry(
        self,
        decisions: list[Decision],
        backoff: Backoff,
        connector: str,
        started: float,
        admin: TopicAdmin | None = None,
    ) -> None:
        """Create the topics of `decisions` (each with settings) with `admin` (default: the worker's);
        `started` is when their existence check began, for the latency metric."""
        client = admin or self.admin
        brokers = self.broker_count(client)
        for d in decisions:
            assert d.settings is not None
            if problem := check_replication(d.settings, brokers):
                self._broker_count = None  # the cluster may grow: count again next time
                raise TopicCreationError(problem, kind="replication_factor")
        by_name = {d.topic: d for d in decisions}
        pending = {d.topic: d.settings for d in decisions if d.settings is not None}
        created: set[str] = set()
        while pending:
            results = client.create(pending.values(), broker_count=brokers)
            retry: dict[str, str] = {}
            auto_created: list[str] = []
            for name, result in results.items():
                if result.outcome is Outcome.CREATED:
                    created.add(name)
                    s = pending[name]
                    log.info(
                        "Created topic %s for connector %s: partitions=%s replication.factor=%s configs=%s",
                        name,
                        connector,
                        s.partitions,
                        s.replication_factor,
                        s.configs(),
                        extra={"connector": connector, "topic": name},
                    )
                elif result.outcome is Outcome.ALREADY_EXISTS:
                    log.info("Topic %s was created concurrently by another client; using it", name)
                elif result.outcome is Outcome.UNSUPPORTED:
                    log.warning("The broker does not support CreateTopics; relying on its auto-create for %s", name)
                    auto_created.append(name)
                else:
                    assert result.error is not None
                    if not result.error.retriable:
                        raise TopicCreationError(
                            str(result.error), kind=error_kind(result.error.code)
                        ) from result.error
                    retry[name] = str(result.error)
            self.known.add(auto_created)
            done = [n for n in pending if n not in retry and n not in auto_created]
            self.wait_until_visible(done, backoff, client)
            self.known.add(done)
            for name in done:
                if name in created:
                    self._record_created(by_name[name], connector, started)
            pending = {n: pending[n] for n in retry}
            if pending:
                backoff.wait_or_raise(f"creating topics {sorted(pending)[:5]}", "; ".join(retry.values()))

    def wait_until_visible(self, topics: list[str], backoff: Backoff, admin: TopicAdmin | None = None) -> None:
        """Return once every topic's metadata is visible, so the first produce does not race it."""
        remaining = list(topics)
        delay = 0.02
        while remaining:
            _, missing = self.describe_with_retry(remaining, backoff, admin)
            if not missing:
                return
            if time.monotonic() >= backoff.deadline:
                raise TopicCreationError(
                    f"Created topics {sorted(missing)[:5]} did not become visible within topic.creation.timeout.ms",
                    kind="not_visible",
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
            remaining = sorted(missing)
