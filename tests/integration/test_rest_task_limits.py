"""One request cannot exhaust the worker: a connector asking for more tasks than the worker's limits
allow is refused with 400 naming `tasks.max` (the worker unchanged), a connector whose task cannot
start shows FAILED with the reason, and POST /connectors answers before the tasks have started."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from connectworker.api.config_def import ConfigDef, ConfigType
from connectworker.api.task import SourceTask
from connectworker.config.worker_config import WorkerConfig
from connectworker.connectors.datagen import DataGenConnector, DataGenTask
from tests.broker import Broker
from tests.integration.test_rest_harness import (
    RestWorker,
    datagen,
    rest_worker,
    rest_worker_config,
    status_of,
    wait_for_records,
    wait_for_states,
)


@pytest.fixture(scope="module")
def config(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> WorkerConfig:
    return rest_worker_config(
        broker.bootstrap_servers,
        tmp_path_factory.mktemp("task-limits"),
        **{"worker.tasks.max": "6", "connector.tasks.max.limit": "4"},
    )


@pytest.fixture(scope="module")
def api(config: WorkerConfig) -> Iterator[RestWorker]:
    with rest_worker(config) as served:
        yield served


def test_a_connector_with_100000_tasks_is_refused_at_once_and_the_worker_is_unchanged(
    api: RestWorker, broker: Broker, unique: str
) -> None:
    running, topic = f"steady-{unique}", f"steady-{unique}"
    assert api.client.post("/connectors", json={"name": running, "config": datagen(running, topic)}).status_code == 201
    wait_for_states(api, running, "RUNNING", ["RUNNING"])
    threads_before = threading.active_count()

    name = f"greedy-{unique}"
    began = time.monotonic()
    refused = api.client.post(
        "/connectors", json={"name": name, "config": datagen(name, f"g-{unique}", **{"tasks.max": "100000"})}
    )
    took = time.monotonic() - began
    assert refused.status_code == 400
    message = refused.json()["message"]
    assert message.startswith(
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        "tasks.max: 100000 is more tasks than this worker lets one connector run: at most 4 "
        "(the worker's connector.tasks.max.limit)"
    )
    assert took < 5, f"the refusal took {took:.1f} s"  # generous: a refusal starts nothing
    assert api.client.get(f"/connectors/{name}").status_code == 404
    assert name not in api.client.get("/connectors").json()
    assert threading.active_count() <= threads_before  # the refusal started nothing (a worker thread may end)
    assert status_of(api, running)["tasks"][0]["state"] == "RUNNING"
    assert wait_for_records(broker.bootstrap_servers, topic, 50) >= 50  # still producing
    assert api.client.delete(f"/connectors/{running}").status_code == 204


def test_connectors_together_stay_within_worker_tasks_max(api: RestWorker, unique: str) -> None:
    first, second = f"first-{unique}", f"second-{unique}"
    body = datagen(first, f"f-{unique}", **{"tasks.max": "4", "rate": "1", "records": "1"})
    assert api.client.post("/connectors", json={"name": first, "config": body}).status_code == 201
    refused = api.client.put(f"/connectors/{second}/config", json=datagen(second, f"s-{unique}", **{"tasks.max": "3"}))
    assert refused.status_code == 400
    assert (
        "tasks.max: the worker runs at most 6 tasks (worker.tasks.max) and its other connectors take 4, so "
        "this connector may ask for at most 2"
    ) in refused.json()["message"]
    grown = api.client.put(f"/connectors/{first}/config", json={**body, "tasks.max": "5"})
    assert grown.status_code == 400 and "at most 4 (the worker's connector.tasks.max.limit)" in grown.json()["message"]
    assert api.client.get(f"/connectors/{first}/config").json()["tasks.max"] == "4"  # unchanged
    assert api.client.delete(f"/connectors/{first}").status_code == 204


class SlowStartConnector(DataGenConnector):
    """DataGen whose start() takes a while, like a connector opening a database connection."""

    def start(self, props: dict[str, str]) -> None:
        time.sleep(float(props.get("start.seconds", "2")))
        super().start(props)

    def config_def(self) -> ConfigDef:
        return (
            super()
            .config_def()
            .merge(ConfigDef().define("start.seconds", ConfigType.STRING, "2", documentation="How long start() takes"))
        )


def test_create_answers_before_a_slow_connector_has_started(api: RestWorker, broker: Broker, unique: str) -> None:
    name, topic = f"slow-{unique}", f"slow-{unique}"
    config: dict[str, Any] = {
        **datagen(name, topic),
        "connector.class": f"{__name__}.SlowStartConnector",
        "start.seconds": "2",
    }
    began = time.monotonic()
    created = api.client.post("/connectors", json={"name": name, "config": config})
    answered = time.monotonic() - began
    assert created.status_code == 201, created.text
    assert created.json()["tasks"] == []  # as Kafka answers: the tasks come later
    assert answered < 1.5, f"POST took {answered:.1f} s"
    assert status_of(api, name)["connector"]["state"] == "UNASSIGNED"  # status does not wait for the start
    wait_for_states(api, name, "RUNNING", ["RUNNING"])
    assert wait_for_records(broker.bootstrap_servers, topic, 20) >= 20
    assert api.client.delete(f"/connectors/{name}").status_code == 204


class BrokenTask(DataGenTask):
    def __init__(self) -> None:
        raise OSError("cannot open /dev/does-not-exist")


class BrokenTaskConnector(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return BrokenTask


def test_a_task_that_cannot_start_is_failed_with_the_reason_not_a_500(api: RestWorker, unique: str) -> None:
    name = f"broken-{unique}"
    config = {**datagen(name, f"b-{unique}"), "connector.class": f"{__name__}.BrokenTaskConnector"}
    created = api.client.post("/connectors", json={"name": name, "config": config})
    assert created.status_code == 201, created.text
    status = wait_for_states(api, name, "RUNNING", ["FAILED"])
    assert status["tasks"][0]["trace"].startswith(
        f"Task {name}-0 could not be started: cannot open /dev/does-not-exist"
    )
    assert api.client.delete(f"/connectors/{name}").status_code == 204
