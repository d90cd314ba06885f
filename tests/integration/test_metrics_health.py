"""`GET /metrics` (Prometheus text, Kafka Connect's metric names) and `GET /health` (KIP-1017) on a
worker running a connector against the test broker."""

from __future__ import annotations

from pathlib import Path

from confluent_kafka import KafkaError
from prometheus_client.parser import text_string_to_metric_families

from connectworker.runtime.herder import Health
from tests.broker import Broker
from tests.integration.harness import wait_committed
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_metrics_count_what_the_tasks_did_and_health_is_healthy(broker: Broker, tmp_path: Path, unique: str) -> None:
    name = f"metrics-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    props = datagen(name, name, records="500", rate="0", **{
        "topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"})
    with rest_worker(config, props) as api:
        assert api.runtime.worker is not None
        wait_committed(api.runtime.worker, name, 500)
        response = api.client.get("/metrics")
        health = api.client.get("/health")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    found = samples(response.text)
    task = (("connector", name), ("task", "0"))
    assert found[("connectworker_source_record_poll_total", task)] == 500
    assert found[("connectworker_source_record_write_total", task)] == 500
    assert found[("connectworker_source_record_committed_total", task)] == 500
    assert found[("connectworker_source_record_active_count", task)] == 0
    assert found[("connectworker_task_status", tuple(sorted((*task, ("state", "running")))))] == 1
    assert found[("connectworker_task_status", tuple(sorted((*task, ("state", "failed")))))] == 0
    assert found[("connectworker_connector_count", ())] == 1 and found[("connectworker_task_count", ())] == 1
    assert found[("connectworker_topics_created_total", ())] >= 1
    assert health.status_code == 200
    assert health.json() == {"status": "healthy",
                             "message": "Worker has completed startup and is ready to handle requests."}


def test_health_is_503_naming_the_task_while_the_cluster_is_unreachable(
        broker: Broker, tmp_path: Path, unique: str) -> None:
    name = f"health-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    with rest_worker(config, datagen(name, name, records="10", rate="0")) as api:
        assert api.runtime.herder is not None and api.runtime.worker is not None
        wait_committed(api.runtime.worker, name, 10)
        task = api.runtime.worker.get(name).tasks[0]
        # what the task's producer reports when every broker is gone (test_cluster_outage.py does it for real)
        task.connectivity.error_cb(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
        response = api.client.get("/health")
    assert response.status_code == 503
    assert response.json()["status"] == "unhealthy"
    assert response.json()["message"].startswith(f"Kafka cluster unreachable: task {name}-0: Kafka cluster "
                                                 "unreachable since")


def test_a_herder_that_has_not_started_its_connectors_is_starting() -> None:
    from connectworker.runtime.herder import StandaloneHerder

    herder = StandaloneHerder.__new__(StandaloneHerder)
    herder._started = False
    assert herder.health() == Health(503, "starting", "Worker is still starting up.")


def test_every_exposed_metric_is_documented(broker: Broker, tmp_path: Path, unique: str) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "metrics.md").read_text(encoding="utf-8")
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with rest_worker(config, datagen(f"doc-{unique}", f"doc-{unique}", records="1", rate="0")) as api:
        text = api.client.get("/metrics").text
    names = {family.name for family in text_string_to_metric_families(text)}
    assert len(names) == 11
    for name in names:
        documented = name + "_total" if f"`{name}_total`" in doc else name
        assert f"`{documented}`" in doc, f"{name} is not in docs/metrics.md"
