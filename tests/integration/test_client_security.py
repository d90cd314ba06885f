"""A worker file written as for a secured Kafka Connect cluster runs: top-level `security.protocol` and
`ssl.*` keys in Kafka's spelling reach every client (the start-up check, the Admin client, the task
producers), over a TLS listener on loopback that requires the client's certificate; `admin.override.*`
reaches the connector's own Admin client; a connector the override policy refuses gets a 400."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from connectworker.runtime.clients.cluster_check import ClusterUnreachableError
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.harness import running_worker, task_state, wait_committed, wait_until, worker_config
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config
from tests.integration.topic_checks import partition_count
from tests.kafka_helpers import consume, delete_topics
from tests.tls_certs import Certificates, make_certificates, pkcs12_keystore, pkcs12_truststore
from tests.tls_proxy import TlsBroker, tls_embedded_broker

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def tls_broker(certs: Certificates) -> Iterator[TlsBroker]:
    with tls_embedded_broker(certs.server_context(require_client=True)) as broker:
        yield broker


def tls_consumer_settings(certs: Certificates) -> dict[str, str]:
    return {
        "security.protocol": "SSL",
        "ssl.ca.location": str(certs.ca),
        "ssl.certificate.location": str(certs.client),
        "ssl.key.location": str(certs.client),
    }


def secured_worker_keys(certs: Certificates, tmp_path: Path, style: str) -> dict[str, str]:
    if style == "pkcs12":
        trust = pkcs12_truststore(certs, tmp_path / "truststore.p12", "store-secret")
        key = pkcs12_keystore(certs, tmp_path / "keystore.p12", "store-secret")
        return {
            "ssl.truststore.location": str(trust),
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.password": "store-secret",
            "ssl.keystore.location": str(key),
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.password": "store-secret",
        }
    return {
        "ssl.truststore.location": str(certs.ca),
        "ssl.truststore.type": "PEM",
        "ssl.keystore.location": str(certs.client_encrypted),
        "ssl.keystore.type": "PEM",
        "ssl.key.password": certs.password,
    }


@pytest.mark.parametrize("style", ["pkcs12", "pem"])
def test_a_worker_with_kafkas_tls_keys_produces_through_a_tls_listener(
    tls_broker: TlsBroker,
    certs: Certificates,
    tmp_path: Path,
    unique: str,
    style: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    topic = f"tls-{style}-{unique}"
    keys = {
        "security.protocol": "SSL",
        **secured_worker_keys(certs, tmp_path, style),
        "ssl.endpoint.identification.algorithm": "https",
        "ssl.keymanager.algorithm": "SunX509",
        "topic.creation.enable": "true",
    }
    with caplog.at_level(logging.WARNING, logger="connectworker.config"):
        config = worker_config(tls_broker.bootstrap_servers, tmp_path, **keys)
    assert any(
        "only Java clients read are ignored" in r.getMessage() and "ssl.keymanager.algorithm" in r.getMessage()
        for r in caplog.records
    )
    connector = datagen(
        f"tls-{unique}",
        topic,
        records="200",
        rate="0",
        **{"topic.creation.default.partitions": "2", "topic.creation.default.replication.factor": "1"},
    )
    handshakes_before = len(tls_broker.proxy.client_subjects)
    with running_worker(config, connector) as runtime:  # the cluster check went through TLS already
        assert runtime.worker is not None
        wait_committed(runtime.worker, connector["name"], 200)
    assert len(tls_broker.proxy.client_subjects) > handshakes_before
    assert set(tls_broker.proxy.client_subjects) == {"connect"}  # every client showed the key store's certificate
    records = consume(tls_broker.bootstrap_servers, [topic], 200, config=tls_consumer_settings(certs))
    assert len(records) == 200
    assert {r.partition() for r in records} <= {0, 1}  # the worker's Admin client created it with 2 partitions


def test_a_worker_that_does_not_trust_the_listener_does_not_start(
    tls_broker: TlsBroker, certs: Certificates, tmp_path: Path
) -> None:
    (tmp_path / "other").mkdir()
    other = make_certificates(tmp_path / "other")  # a CA the listener's certificate does not come from
    config = worker_config(
        tls_broker.bootstrap_servers,
        tmp_path,
        **{
            "security.protocol": "SSL",
            "ssl.truststore.location": str(other.ca),
            "ssl.truststore.type": "PEM",
            "ssl.keystore.location": str(certs.client),
            "ssl.keystore.type": "PEM",
            "bootstrap.timeout.ms": "3000",
        },
    )
    with pytest.raises(ClusterUnreachableError) as info, running_worker(config):
        pass
    message = str(info.value)
    assert message.startswith(f"Cannot reach the Kafka cluster at bootstrap.servers={tls_broker.bootstrap_servers}")
    assert "certificate verify failed" in message and "security.protocol, ssl.*, sasl.*, admin.*" in message


def test_top_level_plaintext_keys_and_a_jaas_free_config_run_end_to_end(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    topic = f"plain-{unique}"
    config = worker_config(
        broker.bootstrap_servers,
        tmp_path,
        **{
            "security.protocol": "PLAINTEXT",
            "ssl.endpoint.identification.algorithm": "",
            "sasl.login.refresh.window.factor": "0.8",
            "producer.security.protocol": "plaintext",
        },
    )
    assert config.client_settings("producer")["security.protocol"] == "plaintext"
    connector = datagen(f"plain-{unique}", topic, records="100", rate="0")
    with running_worker(config, connector) as runtime:
        assert runtime.worker is not None
        wait_committed(runtime.worker, connector["name"], 100)
    assert len(consume(broker.bootstrap_servers, [topic], 100)) == 100


def test_admin_overrides_reach_the_connectors_own_admin_client(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    config = worker_config(
        broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true", "topic.creation.timeout.ms": "3000"}
    )
    rules = {"topic.creation.default.partitions": "3", "topic.creation.default.replication.factor": "1"}
    traced = datagen(
        f"traced-{unique}", f"traced-{unique}", records="50", rate="0", **rules, **{"admin.override.debug": "admin"}
    )
    broken = datagen(
        f"broken-{unique}",
        f"broken-{unique}",
        records="50",
        rate="0",
        **rules,
        **{"admin.override.security.protocol": "SSL"},
    )
    with caplog.at_level(logging.DEBUG, logger="connectworker.kafka"), running_worker(config, traced, broken) as rt:
        assert rt.worker is not None
        wait_committed(rt.worker, traced["name"], 50)
        # librdkafka's admin debug lines come from the connector's own client, named after it
        assert any(r.getMessage().startswith(f"Connector {traced['name']} admin: ") for r in caplog.records)
        # SSL against the plaintext listener: only this connector's topic creation fails
        wait_until(lambda: task_state(rt.worker, broken["name"])[0] is State.FAILED, what="broken task FAILED")
        _, trace = task_state(rt.worker, broken["name"])
        assert trace is not None and "topic.creation.timeout.ms" in trace
    assert partition_count(admin, f"traced-{unique}") == 3
    assert f"broken-{unique}" not in admin.list_topics(timeout=10).topics
    delete_topics(admin, [f"traced-{unique}"])


def test_a_connector_the_override_policy_refuses_gets_a_400_naming_the_key(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    config = rest_worker_config(
        broker.bootstrap_servers, tmp_path, **{"connector.client.config.override.policy": "Principal"}
    )
    name = f"principal-{unique}"
    jaas = f'{PLAIN} required username="conn" password="conn-secret";'
    with rest_worker(config) as api:
        refused = api.client.post(
            "/connectors",
            json={
                "name": name,
                "config": datagen(
                    name,
                    f"p-{unique}",
                    **{"producer.override.linger.ms": "50", "producer.override.sasl.jaas.config": jaas},
                ),
            },
        )
        assert refused.status_code == 400
        assert refused.json()["message"].startswith(
            "Connector configuration is invalid and contains the following 1 error(s):\n"
            "producer.override.linger.ms: The 'Principal' policy does not allow 'linger.ms' to be overridden in the "
            "connector configuration."
        )
        assert api.client.get(f"/connectors/{name}").status_code == 404
        allowed = api.client.post(
            "/connectors",
            json={
                "name": name,
                "config": datagen(
                    name,
                    f"p-{unique}",
                    **{"producer.override.sasl.mechanism": "PLAIN", "producer.override.sasl.jaas.config": jaas},
                ),
            },
        )
        assert allowed.status_code == 201, allowed.text
        shown = api.client.get(f"/connectors/{name}/config").json()
        assert shown["producer.override.sasl.jaas.config"] == "[hidden]"
        assert "conn-secret" not in allowed.text
        assert api.client.delete(f"/connectors/{name}").status_code == 204
