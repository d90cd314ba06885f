"""The topic-creation service's decisions on broker outcomes it cannot get from the test broker:
unsupported CreateTopics, retriable errors, and giving up after topic.creation.timeout.ms; and the
gate applying the hook it is given (no task needed)."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterable

import pytest
from confluent_kafka import KafkaError

from connectworker.api import TopicSettings
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.topic_creation.service import CreatingGate, TopicCreationService
from connectworker.topics.admin import CreateResult, Outcome, explain_create_error
from connectworker.topics.decisions import TopicCreationError
from connectworker.topics.rule_parser import parse_topic_creation

RULES = {
    "name": "c",
    "connector.class": "DataGen",
    "topic.creation.default.replication.factor": "1",
    "topic.creation.default.partitions": "2",
}


class ScriptedAdmin:
    """Answers describe/create from a script of outcomes, the way TopicAdmin reports them."""

    def __init__(self, create_outcomes: list[dict[str, CreateResult]]) -> None:
        self.create_outcomes = create_outcomes
        self.created: list[list[str]] = []
        self.existing: set[str] = set()
        self.requests = 0

    def broker_count(self) -> int:
        return 1

    def describe(self, topics: Iterable[str]) -> tuple[set[str], set[str]]:
        names = set(topics)
        return names & self.existing, names - self.existing

    def create(self, settings: Iterable[TopicSettings], **_: object) -> dict[str, CreateResult]:
        names = [s.name for s in settings]
        self.created.append(names)
        outcome = self.create_outcomes.pop(0) if self.create_outcomes else {}
        results = {n: outcome.get(n, CreateResult(n, Outcome.CREATED)) for n in names}
        self.existing |= {n for n, r in results.items() if r.outcome is Outcome.CREATED}
        return results


def keep(settings: TopicSettings) -> TopicSettings | None:
    """A task's default `settings_for_new_topic`: the rule's settings as they are."""
    return settings


def gate(admin: object, timeout_s: float = 5.0) -> tuple[TopicCreationService, CreatingGate]:
    service = TopicCreationService(admin, enabled=True, timeout_s=timeout_s)  # type: ignore[arg-type]
    created = service.gate_for_rules("c", RULES, parse_topic_creation(RULES))
    assert isinstance(created, CreatingGate)
    return service, created


def failed(topic: str, code: int, text: str) -> CreateResult:
    return CreateResult(topic, Outcome.FAILED, explain_create_error(topic, KafkaError(code, text)))


def test_unsupported_create_topics_falls_back_to_auto_create_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    admin = ScriptedAdmin([{"a": CreateResult("a", Outcome.UNSUPPORTED)}])
    service, g = gate(admin)
    with caplog.at_level(logging.WARNING):
        g.ensure({"a"}, keep, "c-0")
    assert "a" in service.known
    assert sum("does not support CreateTopics" in r.message for r in caplog.records) == 1


def test_retriable_create_errors_are_retried_then_succeed() -> None:
    admin = ScriptedAdmin([{"a": failed("a", KafkaError.REQUEST_TIMED_OUT, "slow")}])
    service, g = gate(admin)
    g.ensure({"a", "b"}, keep, "c-0")
    assert admin.created == [["a", "b"], ["a"]]
    assert "a" in service.known and "b" in service.known


def test_retriable_errors_give_up_after_the_timeout_with_the_reason() -> None:
    admin = ScriptedAdmin([{"a": failed("a", KafkaError.REQUEST_TIMED_OUT, "controller busy")}] * 50)
    _, g = gate(admin, timeout_s=0.5)
    with pytest.raises(TopicCreationError, match=r"Gave up creating topics.*controller busy"):
        g.ensure({"a"}, keep, "c-0")


def test_policy_violation_fails_at_once_with_the_broker_text() -> None:
    admin = ScriptedAdmin([{"a": failed("a", KafkaError.POLICY_VIOLATION, "needs 3 replicas")}])
    _, g = gate(admin)
    with pytest.raises(TopicCreationError, match="policy rejected topic 'a': needs 3 replicas"):
        g.ensure({"a"}, keep, "c-0")
    assert len(admin.created) == 1


def test_known_topics_cost_no_admin_request() -> None:
    admin = ScriptedAdmin([])
    _, g = gate(admin)
    g.ensure({"a"}, keep, "c-0")
    calls = len(admin.created)
    for _ in range(100):
        g.ensure({"a"}, keep, "c-0")
    assert len(admin.created) == calls


def test_an_unreachable_cluster_fails_within_the_timeout_instead_of_hanging() -> None:
    with socket.socket() as sock:  # a loopback port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    admin = open_topic_admin(f"127.0.0.1:{port}", request_timeout_s=0.5)
    _, g = gate(admin, timeout_s=1.5)
    with pytest.raises(TopicCreationError, match="Gave up checking topics"):
        g.ensure({"a"}, keep, "c-0")


def test_the_gate_applies_the_hook_it_is_given_or_the_rules_settings_without_one() -> None:
    admin = ScriptedAdmin([])
    created: list[TopicSettings] = []
    original_create = admin.create

    def create(settings: Iterable[TopicSettings], **kw: object) -> dict[str, CreateResult]:
        settings = list(settings)
        created.extend(settings)
        return original_create(settings, **kw)

    admin.create = create  # type: ignore[method-assign]
    service, g = gate(admin)

    def hook(settings: TopicSettings) -> TopicSettings | None:
        if settings.name == "skipped":
            return None
        return settings.with_partitions(7)

    g.ensure({"hooked", "skipped"}, hook, "c-0")
    g.ensure({"plain"}, None, "connect-kafka")
    assert {s.name: s.partitions for s in created} == {"hooked": 7, "plain": 2}
    assert "skipped" in service.known  # left to the broker's auto-create


def test_a_hook_that_raises_names_the_task() -> None:
    _, g = gate(ScriptedAdmin([]))

    def hook(settings: TopicSettings) -> TopicSettings | None:
        raise RuntimeError("no settings for you")

    with pytest.raises(TopicCreationError, match=r"settings_for_new_topic of task c-0 raised .*'a'"):
        g.ensure({"a"}, hook, "c-0")


class CountingAdmin(ScriptedAdmin):
    """Counts its requests as TopicAdmin does."""

    def describe(self, topics: Iterable[str]) -> tuple[set[str], set[str]]:
        self.requests += 1
        return super().describe(topics)

    def create(self, settings: Iterable[TopicSettings], **options: object) -> dict[str, CreateResult]:
        self.requests += 1
        return super().create(settings, **options)


def test_a_connectors_own_admin_client_is_opened_at_its_first_new_topic_and_sends_its_requests() -> None:
    worker_admin, own = CountingAdmin([]), CountingAdmin([])
    opened: list[CountingAdmin] = []

    def open_own() -> CountingAdmin:
        opened.append(own)
        return own

    service = TopicCreationService(worker_admin, enabled=True, timeout_s=5)  # type: ignore[arg-type]
    created = service.gate_for_rules("c", RULES, parse_topic_creation(RULES), open_own)  # type: ignore[arg-type]
    assert opened == []
    created.ensure({"a"}, keep, "c-0")
    created.ensure({"a", "b"}, keep, "c-0")
    assert opened == [own]
    assert own.created == [["a"], ["b"]] and worker_admin.created == [] and worker_admin.requests == 0
    assert service.admin_requests == own.requests > 0  # the metric counts the connector's client too
