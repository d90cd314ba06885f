"""`GET /metrics` (Prometheus text, Kafka Connect's metric names) and `GET /health` (KIP-1017) on a
worker running a connector against the test broker."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from confluent_kafka import KafkaError
from prometheus_client.parser import text_string_to_metric_families

from connectworker.runtime.herder.values import Health
from connectworker.runtime.status import State
from connectworker.runtime.worker import Worker
from tests.broker import Broker
from tests.integration.harness import wait_committed, wait_until
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config
from tests.kafka_helpers import consume
from tests.tcp_proxy import ProxiedBroker


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_count_what_the_tasks_did_and_health_is_healthy(broker: Broker, tmp_path: Path, unique: str) -> None:
    name = f"metrics-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    props = datagen(
        name,
        name,
        records="500",
        rate="0",
        **{"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"},
    )
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
    # what the broker holds agrees: every record written is there, with the bytes the converters made
    messages = consume(broker.bootstrap_servers, [name], expected=500)
    assert len(messages) == found[("connectworker_source_record_write_total", task)]
    assert found[("connectworker_converter_bytes_out_total", task)] == sum(
        len(m.key() or b"") + len(m.value() or b"") for m in messages
    )
    # the histograms saw every poll and every commit
    assert found[("connectworker_batch_size_sum", task)] == 500
    polls = found[("connectworker_batch_size_count", task)]
    assert found[("connectworker_poll_batch_time_seconds_count", task)] == polls > 0
    assert found[("connectworker_offset_commit_success_total", task)] >= 1
    assert found[("connectworker_offset_commit_failure_total", task)] == 0
    assert (
        found[("connectworker_offset_commit_time_seconds_count", task)]
        == found[("connectworker_offset_commit_success_total", task)]
    )
    for what in ("connector", "task"):
        assert found[(f"connectworker_{what}_startup_attempts_total", ())] == 1
        assert found[(f"connectworker_{what}_startup_success_total", ())] == 1
        assert found[(f"connectworker_{what}_startup_failure_total", ())] == 0
    # the topic its rule created: counted, timed, and its Admin requests counted
    assert found[("connectworker_topics_created_total", ())] == 1
    assert found[("connectworker_topic_creation_time_seconds_count", (("connector", name),))] == 1
    assert found[("connectworker_topic_creation_time_seconds_sum", (("connector", name),))] > 0
    assert found[("connectworker_topic_admin_requests_total", ())] >= 3  # describe, brokers, create, visible
    assert health.status_code == 200
    assert health.json() == {
        "status": "healthy",
        "message": "Worker has completed startup and is ready to handle requests.",
    }


def test_topic_creation_vetoes_and_failures_are_counted_by_kind(broker: Broker, tmp_path: Path, unique: str) -> None:
    vetoing, failing = f"veto-{unique}", f"toomany-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    rules = {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}
    veto = {
        **datagen(vetoing, f"{vetoing}-auto", records="5", rate="0", **rules),
        "connector.class": "tests.integration.fixture_connectors.VetoingDataGen",
    }
    too_many = datagen(
        failing, failing, records="5", rate="0", **{**rules, "topic.creation.default.replication.factor": "9"}
    )
    with rest_worker(config, veto, too_many) as api:
        wait_committed(api.worker, vetoing, 5)
        wait_until(
            lambda: bool(tasks := api.worker.get(failing).tasks) and tasks[0].status.state is State.FAILED,
            30,
            "the task to fail",
        )
        found = samples(api.client.get("/metrics").text)
    assert found[("connectworker_topics_vetoed_total", ())] == 1
    assert found[("connectworker_topic_creation_failures_total", (("kind", "replication_factor"),))] == 1
    assert found[("connectworker_topics_created_total", ())] == 0
    assert found[("connectworker_task_status", (("connector", failing), ("state", "failed"), ("task", "0")))] == 1


def test_skipped_records_count_as_errors_and_only_the_rest_is_written(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    name = f"tolerant-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    props = {
        "name": name,
        "connector.class": "tests.integration.scripted_source.ScriptedSource",
        "topic": name,
        "values": "a,@set,b",
        "errors.tolerance": "all",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    }
    with rest_worker(config, props) as api:
        wait_committed(api.worker, name, 2)
        found = samples(api.client.get("/metrics").text)
    task = (("connector", name), ("task", "0"))
    assert found[("connectworker_source_record_poll_total", task)] == 3
    assert found[("connectworker_source_record_write_total", task)] == 2
    assert found[("connectworker_total_records_skipped_total", task)] == 1
    assert found[("connectworker_total_record_errors_total", task)] == 1
    assert found[("connectworker_total_record_failures_total", task)] == 1
    assert len(consume(broker.bootstrap_servers, [name], expected=2)) == 2


def test_health_follows_the_cluster_through_a_cut_proxy(
    proxied_broker: ProxiedBroker, tmp_path: Path, unique: str
) -> None:
    name = f"cut-{unique}"
    config = rest_worker_config(proxied_broker.bootstrap_servers, tmp_path)
    with rest_worker(config, datagen(name, name, records="-1", rate="200")) as api:
        wait_committed(api.worker, name, 20)
        assert api.client.get("/health").status_code == 200
        proxied_broker.proxy.cut()
        try:
            wait_until(lambda: api.client.get("/health").status_code == 503, 30, "GET /health to answer 503")
            body = api.client.get("/health").json()
        finally:
            proxied_broker.proxy.restore()
        wait_until(lambda: api.client.get("/health").status_code == 200, 60, "GET /health to answer 200 again")
    assert body["status"] == "unhealthy"
    assert body["message"].startswith(f"Kafka cluster unreachable: task {name}-0: ")


def test_health_is_503_naming_the_task_while_the_cluster_is_unreachable(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    name = f"health-{unique}"
    # the task's producer is told of the outage below: it runs on a thread of this process
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"task.processes": "0"})
    with rest_worker(config, datagen(name, name, records="10", rate="0")) as api:
        assert api.runtime.herder is not None and api.runtime.worker is not None
        wait_committed(api.runtime.worker, name, 10)
        task = api.runtime.worker.get(name).tasks[0]
        # what the task's producer reports when every broker is gone (test_cluster_outage.py does it for real)
        task.connectivity.error_cb(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
        response = api.client.get("/health")
    assert response.status_code == 503
    assert response.json()["status"] == "unhealthy"
    assert response.json()["message"].startswith(
        f"Kafka cluster unreachable: task {name}-0: Kafka cluster unreachable since"
    )


def test_a_herder_that_has_not_started_its_connectors_is_starting() -> None:
    from connectworker.runtime.herder.views import worker_health

    nothing_asked = cast(Worker, None)  # before the start, the worker's tasks are not looked at
    assert worker_health(nothing_asked, started=False) == Health(503, "starting", "Worker is still starting up.")


def test_every_exposed_metric_is_documented(broker: Broker, tmp_path: Path, unique: str) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "metrics.md").read_text(encoding="utf-8")
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with rest_worker(config, datagen(f"doc-{unique}", f"doc-{unique}", records="1", rate="0")) as api:
        text = api.client.get("/metrics").text
    names = {family.name for family in text_string_to_metric_families(text)}
    assert {
        "connectworker_poll_batch_time_seconds",
        "connectworker_offset_commit_time_seconds",
        "connectworker_topic_creation_time_seconds",
        "connectworker_converter_bytes_out",
        "connectworker_task_startup_success",
        "connectworker_topics_vetoed",
    } <= names
    for name in names:
        documented = name + "_total" if f"`{name}_total`" in doc else name
        assert f"`{documented}`" in doc, f"{name} is not in docs/metrics.md"
