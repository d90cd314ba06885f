"""`connector.client.config.override.policy` decides which `producer.override.*`/`admin.override.*` keys a
connector may set, with Kafka's validation message; a refused key fails validation (and so the create)."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import pytest

from connectworker.api.errors import ConfigError
from connectworker.config.connector_config import parse_connector_config, validate_connector
from connectworker.config.override_policy import OverridePolicy, policy_name
from connectworker.config.worker_clients import override_policy
from connectworker.config.worker_config import WorkerConfig
from tests.tls_certs import make_certificates, pkcs12_truststore
from tests.validation_answer import validated

TOPIC_CREATION = {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}


def connector(**extra: str) -> dict[str, str]:
    return {"name": f"c-{uuid.uuid4().hex[:8]}", "connector.class": "DataGen", **extra}


def worker(policy: str | None = None, **extra: str) -> WorkerConfig:
    props = {"connector.client.config.override.policy": policy} if policy is not None else {}
    return WorkerConfig.from_properties({**props, **extra})


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("All", "All"),
        ("none", "None"),
        ("PRINCIPAL", "Principal"),
        ("Allowlist", "Allowlist"),
        ("org.apache.kafka.connect.connector.policy.NoneConnectorClientConfigOverridePolicy", "None"),
        ("org.apache.kafka.connect.connector.policy.PrincipalConnectorClientConfigOverridePolicy", "Principal"),
        ("org.apache.kafka.connect.connector.policy.AllConnectorClientConfigOverridePolicy", "All"),
        ("AllConnectorClientConfigOverridePolicy", "All"),
    ],
)
def test_policies_by_alias_or_class_name(value: str, name: str) -> None:
    assert policy_name(value) == name
    assert override_policy(worker(value)).name == name


def test_kafkas_default_is_all() -> None:
    assert override_policy(worker()) == OverridePolicy("All")


def test_an_unknown_policy_stops_the_worker_naming_the_key() -> None:
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties(
            {"connector.client.config.override.policy": "com.example.Mine"}, source="w.properties"
        )
    message = info.value.problems["connector.client.config.override.policy"]
    assert (
        "'com.example.Mine' is not a policy connectworker knows: use one of All, None, Principal, Allowlist" in message
    )


@pytest.mark.parametrize(
    ("policy", "key", "allowed"),
    [
        (OverridePolicy("All"), "linger.ms", True),
        (OverridePolicy("None"), "sasl.jaas.config", False),
        (OverridePolicy("Principal"), "sasl.jaas.config", True),
        (OverridePolicy("Principal"), "sasl.mechanism", True),
        (OverridePolicy("Principal"), "security.protocol", True),
        (OverridePolicy("Principal"), "sasl.username", False),
        (OverridePolicy("Principal"), "linger.ms", False),
        (OverridePolicy("Allowlist", frozenset({"linger.ms"})), "linger.ms", True),
        (OverridePolicy("Allowlist", frozenset({"linger.ms"})), "acks", False),
        (OverridePolicy("Allowlist"), "linger.ms", False),
    ],
)
def test_each_policy_decides(policy: OverridePolicy, key: str, allowed: bool) -> None:
    assert policy.allows(key) is allowed
    expected = (
        {}
        if allowed
        else {
            f"producer.override.{key}": f"The '{policy.name}' policy does not allow '{key}' to be overridden in the "
            f"connector configuration."
        }
    )
    assert policy.violations("producer.override.", [key]) == expected


def test_a_refused_override_fails_the_connector_with_kafkas_message() -> None:
    props = connector(
        **{
            "producer.override.linger.ms": "10",
            "producer.override.sasl.jaas.config": (
                'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";'
            ),
        }
    )
    with pytest.raises(ConfigError) as info:
        parse_connector_config(props, source="c.properties", worker=worker("Principal"))
    assert info.value.problems == {
        "producer.override.linger.ms": "The 'Principal' policy does not allow "
        "'linger.ms' to be overridden in the connector "
        "configuration."
    }
    parse_connector_config(props, worker=worker("All"))
    parse_connector_config(props)  # without a worker: Kafka's default, All


def test_allowlist_takes_its_keys_from_the_worker() -> None:
    config = worker("Allowlist", **{"connector.client.config.override.allowlist": "linger.ms, batch.size"})
    parse_connector_config(
        connector(**{"producer.override.linger.ms": "1", "producer.override.batch.size": "2"}), worker=config
    )
    with pytest.raises(ConfigError):
        parse_connector_config(connector(**{"producer.override.acks": "1"}), worker=config)


def test_admin_overrides_are_judged_when_the_connector_creates_topics(caplog: pytest.LogCaptureFixture) -> None:
    none = worker("None")
    with pytest.raises(ConfigError) as info:
        parse_connector_config(
            connector(**TOPIC_CREATION, **{"admin.override.request.timeout.ms": "5000"}), worker=none
        )
    assert list(info.value.problems) == ["admin.override.request.timeout.ms"]
    # without topic.creation.* keys the connector has no Admin client: as in Kafka, not judged, but reported
    props = connector(**{"admin.override.request.timeout.ms": "5000"})
    with caplog.at_level(logging.WARNING):
        config = parse_connector_config(props, worker=none)
    assert config.admin_overrides == {"request.timeout.ms": "5000"}
    assert [r.getMessage() for r in caplog.records] == [
        f"Connector {props['name']}: admin.override.request.timeout.ms is ignored: the connector has no "
        f"topic.creation.* keys, so it creates no topics and has no Admin client of its own"
    ]


def test_override_values_are_translated_and_checked_over_the_workers_settings(caplog: pytest.LogCaptureFixture) -> None:
    props = connector(
        **TOPIC_CREATION,
        **{"admin.override.sasl.jaas.config": "nonsense", "producer.override.ssl.keymanager.algorithm": "SunX509"},
    )
    with pytest.raises(ConfigError) as info:
        parse_connector_config(props, worker=worker())
    assert info.value.problems == {
        "admin.override.sasl.jaas.config": "Login module control flag not specified in JAAS config"
    }
    del props["admin.override.sasl.jaas.config"]
    with caplog.at_level(logging.WARNING):
        parse_connector_config(props, worker=worker())
    assert [r.getMessage() for r in caplog.records] == [
        f"Connector {props['name']}: producer.override.ssl.keymanager.algorithm is read by Java clients only and "
        f"is ignored (librdkafka has no equivalent)"
    ]


def test_the_validate_endpoint_reports_each_override_like_kafka() -> None:
    props = connector(**{"producer.override.linger.ms": "10", "producer.override.security.protocol": "SSL"})
    infos = validated("DataGen", props, worker=worker("Principal"))
    values = {c.value.name: c.value for c in infos.configs}
    assert values["producer.override.linger.ms"].errors == [
        "The 'Principal' policy does not allow 'linger.ms' to be overridden in the connector configuration."
    ]
    assert values["producer.override.security.protocol"].errors == []
    assert infos.error_count == 1
    reports = validate_connector(props, worker=worker("None"))
    assert {k for k, r in reports.items() if r.value.errors} == {
        "producer.override.linger.ms",
        "producer.override.security.protocol",
    }


def test_an_override_is_judged_together_with_the_workers_keys(tmp_path: Path) -> None:
    store = pkcs12_truststore(make_certificates(tmp_path), tmp_path / "trust.p12", "changeit")
    props = connector(**{"producer.override.ssl.truststore.password": "changeit"})
    parse_connector_config(props)  # without the worker, nothing to judge it against
    with pytest.raises(ConfigError) as info:  # no trust store to open with it
        parse_connector_config(props, worker=worker())
    assert info.value.problems == {
        "producer.override.ssl.truststore.password": (
            "SSL trust store is not specified, but trust store password is specified."
        )
    }
    with_store = worker(
        **{
            "ssl.truststore.location": str(store),
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.password": "changeit",
        }
    )
    config = parse_connector_config(props, worker=with_store)
    assert list(with_store.client_settings("producer", config.producer_overrides)) == ["ssl.ca.pem"]
