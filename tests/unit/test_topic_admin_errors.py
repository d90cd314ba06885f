"""Broker errors turned into actionable messages, tested at the Admin-wrapper boundary with the real
`KafkaError` codes a broker sends (Tansu never sends most of them, see topic-creation.md)."""

from __future__ import annotations

from confluent_kafka import KafkaError

from connectworker.api import TopicSettings
from connectworker.topics.admin import explain_create_error, explain_describe_error


def test_policy_violation_at_admin_boundary_quotes_the_broker_policy_text() -> None:
    err = KafkaError(KafkaError.POLICY_VIOLATION, "Topic names must start with 'team-'")
    error = explain_create_error("orders", err)
    assert "create-topic policy rejected topic 'orders'" in str(error)
    assert "Topic names must start with 'team-'" in str(error)
    assert not error.retriable


def test_topic_authorization_failure_at_admin_boundary_names_the_missing_acl() -> None:
    error = explain_create_error("orders", KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED, "denied"))
    assert "CREATE on TOPIC 'orders'" in str(error) and "--operation Create --topic orders" in str(error)


def test_cluster_authorization_failure_at_admin_boundary_names_the_cluster_acl() -> None:
    error = explain_create_error("orders", KafkaError(KafkaError.CLUSTER_AUTHORIZATION_FAILED, "denied"))
    assert "CREATE on the CLUSTER" in str(error) and "--cluster" in str(error)


def test_describe_authorization_failure_at_admin_boundary_names_the_describe_acl() -> None:
    error = explain_describe_error("orders", KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED, "denied"))
    assert "DESCRIBE on TOPIC 'orders'" in str(error)


def test_invalid_replication_factor_at_admin_boundary_says_how_many_brokers() -> None:
    err = KafkaError(KafkaError.INVALID_REPLICATION_FACTOR, "Replication factor: 3 larger than available brokers: 1.")
    error = explain_create_error("orders", err, TopicSettings("orders", 1, 3), broker_count=1)
    assert "replication factor 3" in str(error) and "the cluster has 1 broker(s)" in str(error)


def test_invalid_config_at_admin_boundary_names_the_key_and_the_configs_sent() -> None:
    err = KafkaError(KafkaError.INVALID_CONFIG, "Invalid value abc for configuration retention.ms")
    error = explain_create_error("orders", err, TopicSettings("orders", 1, 1, {"retention.ms": "abc"}))
    assert "retention.ms" in str(error) and "retention.ms=abc" in str(error)


def test_invalid_topic_name_at_admin_boundary_states_the_naming_rules() -> None:
    error = explain_create_error("bad name", KafkaError(KafkaError.TOPIC_EXCEPTION, "illegal"))
    assert "[a-zA-Z0-9._-]" in str(error) and "249" in str(error)


def test_timeouts_at_admin_boundary_are_retriable_and_policy_errors_are_not() -> None:
    assert explain_create_error("t", KafkaError(KafkaError.REQUEST_TIMED_OUT, "slow")).retriable
    assert explain_create_error("t", KafkaError(KafkaError.NOT_CONTROLLER, "moved")).retriable
    assert not explain_create_error("t", KafkaError(KafkaError.INVALID_PARTITIONS, "0")).retriable
