"""A task's progress and its operators' signals through a real worker and broker, with the task on a thread
of the worker and in a task process: the REST status shows the progress document while the snapshot it
reports runs, `/metrics` its gauges and `/ui` its line with the buttons; `POST …/signals` reaches the task
(it writes each signal it reads to Kafka and acts on it), and the page's buttons send the signals in a
real browser. Bad requests are refused saying why. A CDC notification (connectors/debezium/notifications.py)
goes to a topic the worker creates by the connector's `topic.creation` rules, with Debezium's schemas."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.test_console import browser  # noqa: F401 (a fixture)
from tests.integration.test_rest_harness import RestWorker, rest_worker, rest_worker_config, status_of
from tests.integration.test_status_page import chromium  # noqa: F401 (a fixture browser uses)
from tests.kafka_helpers import consume

SOURCE = "tests.integration.operated_source.OperatedSource"
SNAPSHOT = {
    "running": True,
    "paused": False,
    "kind": "incremental",
    "table": "public.orders",
    "tables_remaining": 1,
    "total_tables": 1,
    "chunk_id": "chunk-1",
    "chunk_from": "1",
    "chunk_to": "10",
    "table_from": "1",
    "table_to": "1000",
    "rows_scanned": {"public.orders": 10},
    "rows_sent": 10,
}
STOP = {"label": "Stop snapshot", "signal": {"type": "stop-snapshot", "data": {"type": "incremental"}}}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def task_entry(api: RestWorker, name: str) -> dict[str, Any]:
    tasks = status_of(api, name)["tasks"]
    return dict(tasks[0]) if tasks else {}


def wait_for_task(api: RestWorker, name: str, condition: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def holds() -> bool:
        seen.clear()
        seen.update(task_entry(api, name))
        return seen.get("state") == "RUNNING" and condition(seen)

    wait_until(holds, 60, lambda: f"task 0 of {name} {what} (last status: {seen})")
    return seen


def snapshot_in(entry: dict[str, Any]) -> dict[str, Any] | None:
    progress = entry.get("progress")
    return progress.get("snapshot") if isinstance(progress, dict) else None


def metric_lines(api: RestWorker, name: str) -> list[str]:
    text = api.client.get("/metrics").text
    return sorted(line for line in text.splitlines() if line.startswith("connectworker_snapshot_") and name in line)


@pytest.fixture
def operated(
    broker: Broker, tmp_path: Path, unique: str, request: pytest.FixtureRequest
) -> Iterator[tuple[RestWorker, str, str]]:
    """A worker (its tasks on threads or in task processes, as the test's parameter says) running the
    connector, whose snapshot the REST status shows."""
    name, topic = f"operated-{unique}", f"signals-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"task.processes": request.param})
    with rest_worker(config) as api:
        created = api.client.post(
            "/connectors", json={"name": name, "config": {"connector.class": SOURCE, "topic": topic}}
        )
        assert created.status_code == 201, created.text
        wait_for_task(api, name, lambda t: snapshot_in(t) is not None, "to report its snapshot")
        runs_in = type(api.worker.get(name).tasks[0]).__name__
        assert runs_in == ("WorkerSourceTask" if request.param == "0" else "RemoteTaskHandle")
        yield api, name, topic


@pytest.mark.parametrize("operated", ["0", "1"], ids=["thread", "task-process"], indirect=True)
def test_progress_shows_and_signals_reach_the_task(operated: tuple[RestWorker, str, str], broker: Broker) -> None:
    api, name, topic = operated
    entry = task_entry(api, name)
    assert entry["progress"] == {
        "snapshot": SNAPSHOT,
        "actions": [{"label": "Pause snapshot", "signal": {"type": "pause-snapshot", "data": {}}}, STOP],
    }
    assert api.client.get(f"/connectors/{name}/tasks/0/status").json()["progress"] == entry["progress"]
    labels = f'connector="{name}",task="0"'
    assert metric_lines(api, name) == [
        f'connectworker_snapshot_chunk_info{{chunk_from="1",chunk_id="chunk-1",chunk_to="10",connector="{name}",'
        'kind="incremental",table="public.orders",table_from="1",table_to="1000",task="0"} 1.0',
        f"connectworker_snapshot_paused{{{labels}}} 0.0",
        f"connectworker_snapshot_remaining_table_count{{{labels}}} 1.0",
        f'connectworker_snapshot_rows_scanned{{connector="{name}",table="public.orders",task="0"}} 10.0',
        f"connectworker_snapshot_running{{{labels}}} 1.0",
        f"connectworker_snapshot_total_table_count{{{labels}}} 1.0",
    ]
    page = api.client.get("/ui/live").text
    assert (
        '<span class="state RUNNING">snapshot</span> <span class="muted">incremental</span>: table '
        '<code>public.orders</code> (1 of 1 table left), chunk <code title="chunk chunk-1">1 … 10</code>, rows sent '
        '<strong class="rows-sent">10</strong> / maximum key <code>1000</code>'
    ) in page
    assert ">Pause snapshot</button>" in page and ">Stop snapshot</button>" in page

    paused = api.client.post(f"/connectors/{name}/signals", json={"type": "pause-snapshot", "id": "pause-1"})
    assert paused.status_code == 202, paused.text
    assert paused.json() == {"id": "pause-1", "type": "pause-snapshot", "tasks": [0]}
    entry = wait_for_task(api, name, lambda t: (snapshot_in(t) or {}).get("paused") is True, "to pause its snapshot")
    assert [a["label"] for a in entry["progress"]["actions"]] == ["Resume snapshot", "Stop snapshot"]
    assert f"connectworker_snapshot_paused{{{labels}}} 1.0" in metric_lines(api, name)
    page = api.client.get("/ui/live").text
    assert '<span class="state PAUSED">snapshot paused</span>' in page and ">Resume snapshot</button>" in page

    resumed = api.client.post(
        f"/connectors/{name}/tasks/0/signals", json={"type": "resume-snapshot", "data": {"why": "test"}}
    )
    assert resumed.status_code == 202, resumed.text
    resume_id = resumed.json()["id"]
    assert UUID.match(resume_id) and resumed.json()["tasks"] == [0]
    wait_for_task(api, name, lambda t: (snapshot_in(t) or {}).get("paused") is False, "to resume its snapshot")

    stopped = api.client.post(
        f"/connectors/{name}/signals", json={"type": "stop-snapshot", "data": {"type": "incremental"}, "id": "stop-1"}
    )
    assert stopped.status_code == 202, stopped.text
    entry = wait_for_task(api, name, lambda t: "progress" not in t, "to end its snapshot")
    assert metric_lines(api, name) == []
    assert "rows-sent" not in api.client.get("/ui/live").text

    received = consume(broker.bootstrap_servers, [topic], 3)
    assert [(m.key(), json.loads(m.value() or b"")) for m in received] == [
        (b"pause-1", {"type": "pause-snapshot", "data": {}}),
        (resume_id.encode(), {"type": "resume-snapshot", "data": {"why": "test"}}),
        (b"stop-1", {"type": "stop-snapshot", "data": {"type": "incremental"}}),
    ]


@pytest.mark.parametrize("operated", ["0"], ids=["thread"], indirect=True)
def test_bad_signal_requests_are_refused_saying_why(operated: tuple[RestWorker, str, str]) -> None:
    api, name, _ = operated

    def refused(path: str, body: Any, status: int) -> str:
        answer = api.client.post(path, json=body)
        assert answer.status_code == status, answer.text
        assert answer.json()["error_code"] == status
        return str(answer.json()["message"])

    signals = f"/connectors/{name}/signals"
    assert refused(signals, {"data": {}}, 400) == "Invalid request: type: Field required"
    assert refused(signals, {"type": ""}, 400) == "Invalid request: type: String should have at least 1 character"
    assert refused(signals, {"type": "log", "data": ["x"]}, 400) == (
        "Invalid request: data: Input should be a valid dictionary"
    )
    assert refused(signals, {"type": "log", "dta": {}}, 400) == "Invalid request: dta: Extra inputs are not permitted"
    assert refused("/connectors/nobody/signals", {"type": "log"}, 404) == "Connector nobody not found"
    assert refused(f"/connectors/{name}/tasks/7/signals", {"type": "log"}, 404) == f"No status found for task {name}-7"

    assert api.client.put(f"/connectors/{name}/stop").status_code == 204
    wait_until(lambda: status_of(api, name)["connector"]["state"] == "STOPPED", 30, f"{name} to stop")
    assert refused(signals, {"type": "log", "id": "late"}, 400) == (
        f"Signal 'late' (log) not sent: connector {name} has no tasks (it is STOPPED)"
    )


@pytest.mark.heavy(seconds=20)
@pytest.mark.parametrize("operated", ["0"], ids=["thread"], indirect=True)
def test_the_status_pages_buttons_send_the_signals(
    operated: tuple[RestWorker, str, str],
    browser: Any,  # noqa: F811 (the fixture imported above)
) -> None:
    from playwright.sync_api import expect

    api, name, _ = operated
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    assert page.goto(f"{api.url}/ui").status == 200
    task = page.locator("section.connector").filter(has_text=name).locator("tr.task").first
    expect(task.locator("div.snapshot")).to_contain_text("table public.orders (1 of 1 table left)")
    task.get_by_role("button", name="Pause snapshot").click()
    expect(page.locator("#console-message")).to_have_text(f"Pause snapshot (task {name}-0): done")
    wait_for_task(api, name, lambda t: (snapshot_in(t) or {}).get("paused") is True, "to pause its snapshot")
    expect(task.get_by_role("button", name="Resume snapshot")).to_be_visible(timeout=30_000)
    task.get_by_role("button", name="Resume snapshot").click()
    wait_for_task(api, name, lambda t: (snapshot_in(t) or {}).get("paused") is False, "to resume its snapshot")


def test_notifications_go_to_a_topic_the_worker_creates_by_its_rules(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    name, notifications = f"notified-{unique}", f"operated.{unique}.notifications"
    json_converter = "org.apache.kafka.connect.json.JsonConverter"
    config = rest_worker_config(
        broker.bootstrap_servers, tmp_path, **{"task.processes": "0", "topic.creation.enable": "true"}
    )
    props = {
        "connector.class": SOURCE,
        "topic": f"signals-{unique}",
        "notification.enabled.channels": "sink,log",
        "notification.sink.topic.name": notifications,
        "key.converter": json_converter,
        "value.converter": json_converter,
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "1",
        "topic.creation.groups": "notes",
        "topic.creation.notes.include": r".*\.notifications",
        "topic.creation.notes.partitions": "3",
    }
    with (
        caplog.at_level(logging.INFO, logger="connectworker.connectors.debezium.notifications"),
        rest_worker(config) as api,
    ):
        assert api.client.post("/connectors", json={"name": name, "config": props}).status_code == 201
        wait_for_task(api, name, lambda t: snapshot_in(t) is not None, "to report its snapshot")
        sent = api.client.post(f"/connectors/{name}/signals", json={"type": "pause-snapshot", "id": "ad-hoc"})
        assert sent.status_code == 202, sent.text
        received = consume(broker.bootstrap_servers, [notifications], 1)
        topic = admin.list_topics(notifications, timeout=10).topics[notifications]
        assert len(topic.partitions) == 3  # created by the "notes" rule, not the default one
    key, value = json.loads(received[0].key() or b""), json.loads(received[0].value() or b"")
    assert key == {
        "schema": {
            "type": "struct",
            "fields": [{"type": "string", "optional": False, "field": "id"}],
            "optional": False,
            "name": "io.debezium.connector.common.NotificationKey",
            "version": 1,
        },
        "payload": {"id": "ad-hoc"},
    }
    assert value["schema"]["name"] == "io.debezium.connector.common.Notification"
    payload = value["payload"]
    assert isinstance(payload.pop("timestamp"), int)
    assert payload == {
        "id": "ad-hoc",
        "type": "PAUSED",
        "aggregate_type": "Incremental Snapshot",
        "additional_data": {"connector_name": "operated", "data_collections": "public.orders"},
    }
    logged = [r.getMessage() for r in caplog.records if r.name == "connectworker.connectors.debezium.notifications"]
    assert len(logged) == 1 and logged[0].startswith(
        "[Notification Service]  {id='ad-hoc', aggregateType='Incremental Snapshot', type='PAUSED', "
        "additionalData={connector_name=operated, data_collections=public.orders}, timestamp="
    )
