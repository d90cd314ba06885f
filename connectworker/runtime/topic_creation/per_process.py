"""Topic creation inside Spark's Python worker processes.

`read()` (a connector's task) and `write()` (the Kafka sink) run in executor processes that Spark
reuses across tasks and micro-batches. Each process keeps (`connectworker/process_cache.py`) one
`TopicCreationService` per cluster and setting, whose known-topic cache spans every batch that process
runs: a topic is described, and created if missing, once per process at most, and the unknown topics
of one poll (or one Arrow batch of rows) go in one DescribeTopics and one CreateTopics request.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.config.topic_policy import policy_from_options
from connectworker.process_cache import ProcessCache
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.topic_creation.gate import TopicGate
from connectworker.runtime.topic_creation.service import AdminOpener, TopicCreationService
from connectworker.topics.rule_parser import parse_topic_creation

_services: ProcessCache[TopicCreationService] = ProcessCache()
_gates: ProcessCache[TopicGate] = ProcessCache()


def creation_service(
    kafka: Mapping[str, str], *, enabled: bool, timeout_ms: int, policy: Mapping[str, str] | None = None
) -> TopicCreationService:
    """This process's topic-creation service for the cluster `kafka` names, with the worker's create-topic
    policy (`topic.creation.policy.class` and its keys, as options) if `policy` describes one."""
    key = (tuple(sorted(kafka.items())), enabled, timeout_ms, tuple(sorted((policy or {}).items())))

    def create() -> TopicCreationService:
        admin = None
        if enabled:
            config = {k: v for k, v in kafka.items() if k != "bootstrap.servers"}
            admin = open_topic_admin(kafka["bootstrap.servers"], config, request_timeout_s=min(30.0, timeout_ms / 1000))
        return TopicCreationService(
            admin,
            enabled=enabled,
            timeout_s=timeout_ms / 1000,
            policy=policy_from_options(policy or {}) if enabled else None,
        )

    return _services.get(key, create)


def topic_gate(
    service: TopicCreationService,
    owner: str,
    props: Mapping[str, str],
    admin: AdminOpener | None = None,
    *,
    extra_configs: tuple[str, ...] = (),
) -> TopicGate:
    """The gate of a connector or DataFrame write named `owner` with `props`'s `topic.creation.*` rules
    (cached, so its INFO lines are logged once per process, not per batch); `admin` opens the
    connector's own Admin client (`admin.override.*`) if it has one."""
    key = (id(service), owner, tuple(sorted(props.items())), extra_configs)
    return _gates.get(
        key,
        lambda: service.gate_for_rules(
            owner, props, parse_topic_creation(props, source=owner, extra_configs=extra_configs), admin
        ),
    )
