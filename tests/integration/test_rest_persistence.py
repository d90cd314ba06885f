"""Connectors created or changed through the REST API survive a restart (unlike Kafka's standalone
worker), and meet the connector files named on the command line as docs/rest.md describes."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import httpx
from confluent_kafka.admin import AdminClient

from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.standalone_process import standalone
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config, status_of
from tests.kafka_helpers import delete_topics

STORE = "connect.offsets.connectors.json"


def test_rest_changes_come_back_after_restarts_and_an_edited_file_wins(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    file_a = datagen(f"a-{unique}", f"a-{unique}", rate="5")
    name_a, name_b = file_a["name"], f"b-{unique}"
    secret = f"pw-{unique}"
    with rest_worker(config, file_a) as api:
        created = api.client.post(
            "/connectors",
            json={
                "name": name_b,
                "initial_state": "STOPPED",
                "config": {**datagen(name_b, f"b-{unique}", rate="5"), "db.password": secret},
            },
        )
        assert created.status_code == 201
        assert api.client.put(f"/connectors/{name_a}/pause").status_code == 202
        name_c = f"c-{unique}"
        assert api.client.put(f"/connectors/{name_c}/config", json=datagen(name_c, "c")).status_code == 201
        assert api.client.delete(f"/connectors/{name_c}").status_code == 204
    store = tmp_path / STORE
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    saved = json.loads(store.read_text())["connectors"]
    assert set(saved) == {name_a, name_b}  # c was created and deleted: nothing to keep
    assert saved[name_b]["config"]["db.password"] == secret  # stored for real, shown hidden

    with rest_worker(config, file_a) as api:
        assert api.client.get("/connectors").json() == sorted([name_a, name_b])
        assert status_of(api, name_a)["connector"]["state"] == "PAUSED"
        assert status_of(api, name_b)["connector"]["state"] == "STOPPED"
        assert api.client.get(f"/connectors/{name_b}/config").json()["db.password"] == "[hidden]"
        assert api.worker.get(name_b).config.props["db.password"] == secret
        assert api.client.delete(f"/connectors/{name_a}").status_code == 204

    with rest_worker(config, file_a) as api:  # its file is unchanged: a stays deleted
        assert api.client.get("/connectors").json() == [name_b]

    edited_a = {**file_a, "rate": "6"}
    with rest_worker(config, edited_a) as api:  # the operator edited a's file since: the file wins
        assert api.client.get("/connectors").json() == sorted([name_a, name_b])
        assert api.client.get(f"/connectors/{name_a}/config").json()["rate"] == "6"
        wait_until(lambda: status_of(api, name_a)["connector"]["state"] == "RUNNING", what="a running")
    delete_topics(admin, [f"a-{unique}"])


def test_the_standalone_command_serves_the_api_and_restores_rest_connectors(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    (tmp_path / "worker.properties").write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\n"
        f"offset.storage.file.filename={tmp_path / 'connect.offsets'}\n"
        "listeners=http://127.0.0.1:0\n"
    )
    from_file = tmp_path / "file.properties"
    from_file.write_text(
        f"name=file-{unique}\nconnector.class=DataGen\ntopic.pattern=cli-{unique}\ntopic.count=1\nrate=5\n"
    )
    rest_name = f"rest-{unique}"
    with standalone(tmp_path, from_file) as url:
        assert httpx.get(f"{url}/connectors").json() == [f"file-{unique}"]
        created = httpx.post(
            f"{url}/connectors", json={"name": rest_name, "config": datagen(rest_name, f"cli-{unique}", rate="5")}
        )
        assert created.status_code == 201, created.text
    with standalone(tmp_path, from_file) as url:
        assert httpx.get(f"{url}/connectors").json() == sorted([f"file-{unique}", rest_name])
        assert httpx.get(f"{url}/connectors/{rest_name}/status").json()["connector"]["state"] == "RUNNING"
    delete_topics(admin, [f"cli-{unique}"])


def test_a_stored_connector_whose_config_no_longer_validates_is_listed_failed_and_can_be_restarted(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    gate = tmp_path / "service-up"
    gate.touch()
    name = f"gated-{unique}"
    props = {
        **datagen(name, f"gated-{unique}", rate="5"),
        "connector.class": "tests.integration.fixture_connectors.GatedDataGen",
        "gate.file": str(gate),
    }
    with rest_worker(config) as api:
        assert api.client.post("/connectors", json={"name": name, "config": props}).status_code == 201
    gate.unlink()  # the service its validation asks is down when the worker starts again

    with rest_worker(config) as api:
        assert api.client.get("/connectors").json() == [name]
        status = status_of(api, name)
        assert status["connector"]["state"] == "FAILED" and status["tasks"] == []
        trace = status["connector"]["trace"]
        assert f"gate.file: {gate} does not exist (the service is down)" in trace
        assert f"POST /connectors/{name}/restart" in trace
        assert api.client.get(f"/connectors/{name}/config").json()["gate.file"] == str(gate)  # as written
        assert name in api.client.get("/ui").text

        assert api.client.post(f"/connectors/{name}/restart").status_code == 204
        assert status_of(api, name)["connector"]["state"] == "FAILED"  # validated again: still down
        gate.touch()
        assert api.client.post(f"/connectors/{name}/restart").status_code == 204
        wait_until(lambda: status_of(api, name)["connector"]["state"] == "RUNNING", what=f"{name} running")
        wait_until(lambda: bool(status_of(api, name)["tasks"]), what=f"{name}'s task")

    gate.unlink()
    with rest_worker(config) as api:  # FAILED again: and deleted from there
        assert status_of(api, name)["connector"]["state"] == "FAILED"
        assert api.client.delete(f"/connectors/{name}").status_code == 204
        assert api.client.get("/connectors").json() == []
    delete_topics(admin, [f"gated-{unique}"])


def test_a_file_connector_changed_through_rest_is_not_run_by_a_worker_that_does_not_name_its_file(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    from_file = datagen(f"file-{unique}", f"owned-{unique}", rate="5")
    name = from_file["name"]
    with rest_worker(config, from_file) as api:
        assert api.client.put(f"/connectors/{name}/stop").status_code == 204
        assert api.client.put(f"/connectors/{name}/resume").status_code == 202
        assert json.loads((tmp_path / STORE).read_text())["connectors"][name]["target_state"] == "RUNNING"

    with rest_worker(config) as api:  # its file is not named
        assert api.client.get("/connectors").json() == []
    assert json.loads((tmp_path / STORE).read_text())["connectors"] == {}
    delete_topics(admin, [f"owned-{unique}"])
