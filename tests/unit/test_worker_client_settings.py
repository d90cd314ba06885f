"""The worker's clients take the top-level security keys, under `producer.*`/`admin.*` and a connector's
overrides; a problem in the worker file stops start-up naming the key (or its variable), Java-only keys
are named in one warning, and the secrets of these keys are hidden wherever configs are shown."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from connectworker.api.errors import ConfigError
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.herder.herder import StandaloneHerder
from connectworker.runtime.observability.log_redaction import SecretRedactor
from connectworker.runtime.observability.secrets import HIDDEN, hide, secret_keys, secret_values
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.topic_creation.service import AutoCreateGate
from connectworker.runtime.worker import Worker
from tests.validation_answer import validated

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


def jaas(module: str, user: str, password: str) -> str:
    return f'{module} required username="{user}" password="{password}";'


SECURED = {
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "PLAIN",
    "sasl.jaas.config": jaas(PLAIN, "worker", "worker-secret"),
    "ssl.endpoint.identification.algorithm": "",
}


def test_top_level_keys_reach_every_client_and_prefixed_keys_win() -> None:
    config = WorkerConfig.from_properties(
        {
            **SECURED,
            "producer.sasl.mechanism": "SCRAM-SHA-256",
            "producer.sasl.jaas.config": jaas(SCRAM, "producer", "producer-secret"),
            "admin.ssl.endpoint.identification.algorithm": "https",
            "producer.linger.ms": "20",
        }
    )
    producer = config.client_settings("producer")
    assert producer == {
        "security.protocol": "sasl_ssl",
        "sasl.mechanism": "SCRAM-SHA-256",
        "ssl.endpoint.identification.algorithm": "none",
        "linger.ms": "20",
        "sasl.username": "producer",
        "sasl.password": "producer-secret",
    }
    admin = config.client_settings("admin")
    assert admin == {
        "security.protocol": "sasl_ssl",
        "sasl.mechanism": "PLAIN",
        "ssl.endpoint.identification.algorithm": "https",
        "sasl.username": "worker",
        "sasl.password": "worker-secret",
    }
    # a connector's overrides are the most specific layer
    assert config.client_settings("admin", {"sasl.jaas.config": jaas(PLAIN, "conn", "c")})["sasl.username"] == "conn"


def test_a_bad_security_key_in_the_worker_file_is_refused_naming_it() -> None:
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties(
            {**SECURED, "sasl.jaas.config": f'{PLAIN} required username="u"', "admin.security.protocol": "tls"},
            source="w.properties",
        )
    assert info.value.problems == {
        "sasl.jaas.config": "JAAS config entry not terminated by semi-colon",
        "admin.security.protocol": "must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL (got 'tls')",
    }
    assert str(info.value).startswith("Invalid configuration in w.properties:")
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties({"security.protocol": "TLS"}, source="w.properties")
    assert list(info.value.problems) == ["security.protocol"]
    assert "must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL" in info.value.problems["security.protocol"]


def test_a_bad_value_from_the_environment_is_blamed_on_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONNECT_SASL_JAAS_CONFIG", f"{PLAIN} requird;")
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties(SECURED, source="w.properties")
    assert info.value.problems == {
        "CONNECT_SASL_JAAS_CONFIG (sets sasl.jaas.config)": "Invalid login module control flag 'requird' in JAAS config"
    }
    assert str(info.value).startswith("Invalid configuration in the environment:")


def test_environment_variables_set_the_top_level_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONNECT_SECURITY_PROTOCOL", "sasl_plaintext")
    monkeypatch.setenv("CONNECT_SASL_MECHANISM", "PLAIN")
    monkeypatch.setenv("CONNECT_SASL_JAAS_CONFIG", jaas(PLAIN, "env", "env-secret"))
    assert WorkerConfig.from_properties({}).client_settings("admin") == {
        "security.protocol": "sasl_plaintext",
        "sasl.mechanism": "PLAIN",
        "sasl.username": "env",
        "sasl.password": "env-secret",
    }


def test_java_only_keys_are_named_in_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        WorkerConfig.from_properties(
            {
                **SECURED,
                "ssl.keymanager.algorithm": "SunX509",
                "ssl.trustmanager.algorithm": "PKIX",
                "sasl.login.class": "x.Login",
                "producer.sasl.login.refresh.window.factor": "0.8",
            },
            source="w.properties",
        )
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert lines == [
        "Kafka client keys in w.properties that only Java clients read are ignored (librdkafka has no "
        "equivalent): ssl.keymanager.algorithm, ssl.trustmanager.algorithm, sasl.login.class, "
        "producer.sasl.login.refresh.window.factor"
    ]


def test_a_jks_truststore_stops_the_worker_saying_how_to_convert_it(tmp_path: Path) -> None:
    store = tmp_path / "truststore.jks"
    store.write_bytes(b"\xfe\xed\xfe\xed" + bytes(32))
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties(
            {"security.protocol": "SSL", "ssl.truststore.location": str(store), "ssl.truststore.password": "changeit"},
            source="w.properties",
        )
    assert list(info.value.problems) == ["ssl.truststore.location"]
    assert "keytool -importkeystore" in info.value.problems["ssl.truststore.location"]


# -- secrets ---------------------------------------------------------------------------------------
def test_client_secrets_are_hidden_in_what_the_rest_api_shows() -> None:
    props = {
        "name": "c",
        "connector.class": "DataGen",
        "producer.override.sasl.jaas.config": jaas(PLAIN, "conn", "conn-secret"),
        "producer.override.sasl.password": "p2",
        "producer.override.ssl.keystore.password": "k3",
        "producer.override.ssl.key.password": "k4",
        "producer.override.ssl.truststore.password": "t5",
        "producer.override.ssl.keystore.key": "-----BEGIN PRIVATE KEY-----",
        "producer.override.sasl.oauthbearer.client.secret": "o6",
        "producer.override.sasl.username": "conn",
    }
    assert secret_keys(props) == {key for key in props if key.startswith("producer.override.")} - {
        "producer.override.sasl.username"
    }
    assert hide(props)["producer.override.sasl.jaas.config"] == HIDDEN
    report = validated("DataGen", props)
    shown = {c.value.name: c.value.value for c in report.configs}
    assert shown["producer.override.sasl.jaas.config"] == HIDDEN
    assert shown["producer.override.sasl.password"] == HIDDEN
    assert shown["producer.override.sasl.username"] == "conn"


def test_the_log_redactor_hides_the_passwords_inside_a_jaas_config() -> None:
    props = {"producer.override.sasl.jaas.config": jaas(PLAIN, "conn", "conn-secret")}
    assert secret_values(props) == [props["producer.override.sasl.jaas.config"], "conn-secret"]
    redactor = SecretRedactor()
    redactor.set_secrets(secret_values(props))
    assert redactor.redact("login failed for conn with conn-secret") == f"login failed for conn with {HIDDEN}"


def test_the_herder_hides_the_workers_own_client_secrets_in_the_log(tmp_path: Path) -> None:
    config = WorkerConfig.from_properties(
        {
            **SECURED,
            "admin.ssl.key.password": "admin-key-secret",
            "offset.storage.file.filename": str(tmp_path / "o.json"),
        }
    )
    redactor = SecretRedactor()
    worker = Worker(config, FileOffsetStore(tmp_path / "o.json"), lambda _: AutoCreateGate())
    herder = StandaloneHerder(worker, config, redactor=redactor)
    herder.start([])
    herder.close()
    text = redactor.redact(f"{SECURED['sasl.jaas.config']} worker-secret admin-key-secret")
    assert "worker-secret" not in text and "admin-key-secret" not in text
