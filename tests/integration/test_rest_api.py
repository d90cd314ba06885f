"""The REST API over real HTTP against a running worker and a real broker: Kafka Connect's paths,
status codes and JSON shapes, and the data flow they control."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.test_rest_harness import (
    RestWorker,
    count_records,
    datagen,
    rest_worker,
    rest_worker_config,
    status_of,
    wait_for_records,
    wait_for_states,
)
from tests.kafka_helpers import consume, delete_topics


@pytest.fixture(scope="module")
def api(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RestWorker]:
    config = rest_worker_config(broker.bootstrap_servers, tmp_path_factory.mktemp("rest-api"))
    with rest_worker(config) as served:
        yield served


@pytest.mark.long(seconds=20)
def test_create_pause_resume_reconfigure_delete_drive_the_records(
    api: RestWorker, broker: Broker, admin: AdminClient, unique: str
) -> None:
    name, topic, topic2 = f"gen-{unique}", f"rest-{unique}", f"rest2-{unique}"
    bootstrap = broker.bootstrap_servers
    created = api.client.post("/connectors", json={"name": name, "config": datagen(name, topic)})
    assert created.status_code == 201, created.text
    assert created.headers["location"] == f"{api.url}/connectors/{name}"
    # The answer comes at once, as Kafka's: the connector starts in the background, so its task is
    # listed only if it was already made (docs/rest.md); then GET lists it.
    answer = created.json()
    assert answer in (
        {"name": name, "config": datagen(name, topic), "tasks": tasks, "type": "source"}
        for tasks in ([], [{"connector": name, "task": 0}])
    ), answer
    wait_until(
        lambda: api.client.get(f"/connectors/{name}").json()["tasks"] == [{"connector": name, "task": 0}],
        30,
        "the connector's task listed",
    )
    assert wait_for_records(bootstrap, topic, 50) >= 50

    assert api.client.put(f"/connectors/{name}/pause").status_code == 202
    wait_for_states(api, name, "PAUSED", ["PAUSED"])
    paused = count_records(bootstrap, topic, settle=1.0)
    time.sleep(1.0)
    assert count_records(bootstrap, topic, settle=1.0) == paused  # nothing flows while paused

    assert api.client.put(f"/connectors/{name}/resume").status_code == 202
    wait_for_states(api, name, "RUNNING", ["RUNNING"])
    assert wait_for_records(bootstrap, topic, paused + 50) >= paused + 50

    updated = api.client.put(f"/connectors/{name}/config", json=datagen(name, topic2, **{"tasks.max": "2"}))
    assert updated.status_code == 200, updated.text
    assert updated.json()["config"]["topic.pattern"] == topic2
    assert updated.json()["tasks"] == [{"connector": name, "task": 0}, {"connector": name, "task": 1}]
    tasks = api.client.get(f"/connectors/{name}/tasks").json()
    assert [(t["id"], t["config"]["topic.pattern"]) for t in tasks] == [
        ({"connector": name, "task": 0}, topic2),
        ({"connector": name, "task": 1}, topic2),
    ]
    wait_for_states(api, name, "RUNNING", ["RUNNING", "RUNNING"])
    assert wait_for_records(bootstrap, topic2, 50) >= 50  # the restarted tasks use the new config
    assert api.client.get(f"/connectors/{name}/topics").json() == {name: {"topics": [topic2]}}

    assert api.client.delete(f"/connectors/{name}").status_code == 204
    gone = api.client.get(f"/connectors/{name}")
    assert gone.status_code == 404
    assert gone.json() == {"error_code": 404, "message": f"Connector {name} not found"}
    assert name not in api.client.get("/connectors").json()
    stopped = count_records(bootstrap, topic2, settle=1.0)
    time.sleep(0.5)
    assert count_records(bootstrap, topic2, settle=1.0) == stopped
    delete_topics(admin, [topic, topic2])


def test_a_failed_task_restarts_and_delivers_once_its_cause_is_fixed(
    api: RestWorker, broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    name, topic, source = f"file-{unique}", f"file-{unique}", tmp_path / "input.txt"
    source.mkdir()  # the task cannot read it: it fails (a file that does not exist yet is waited for)
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic}
    assert api.client.put(f"/connectors/{name}/config", json=config).status_code == 201
    failed = wait_for_states(api, name, "RUNNING", ["FAILED"])
    assert "input.txt' is a directory, not a file to read" in failed["tasks"][0]["trace"]
    task_status = api.client.get(f"/connectors/{name}/tasks/0/status").json()
    assert task_status["state"] == "FAILED" and task_status["id"] == 0

    source.rmdir()
    source.write_text("".join(f"line {i}\n" for i in range(20)))
    restarted = api.client.post(f"/connectors/{name}/restart", params={"includeTasks": "true", "onlyFailed": "true"})
    assert restarted.status_code == 202
    body = restarted.json()
    assert body["connector"]["state"] == "RUNNING"  # not failed, so not restarted
    assert [(t["id"], t["state"]) for t in body["tasks"]] == [(0, "RESTARTING")]
    wait_for_states(api, name, "RUNNING", ["RUNNING"])
    values = [m.value().decode() for m in consume(broker.bootstrap_servers, [topic], 20)]
    assert sorted(values) == sorted(f"line {i}" for i in range(20))  # auto-created: several partitions

    assert api.client.post(f"/connectors/{name}/tasks/0/restart").status_code == 204
    assert api.client.post(f"/connectors/{name}/restart").status_code == 204
    wait_for_states(api, name, "RUNNING", ["RUNNING"])
    missing = api.client.get(f"/connectors/{name}/tasks/7/status")
    assert missing.status_code == 404 and missing.json()["error_code"] == 404
    assert api.client.post(f"/connectors/{name}/tasks/7/restart").status_code == 404
    assert api.client.delete(f"/connectors/{name}").status_code == 204
    delete_topics(admin, [topic])


def _offsets(api: RestWorker, name: str) -> list[dict[str, object]]:
    response = api.client.get(f"/connectors/{name}/offsets")
    assert response.status_code == 200, response.text
    return response.json()["offsets"]


def test_offsets_are_edited_only_when_stopped_and_a_reset_re_reads_the_source(
    api: RestWorker, broker: Broker, admin: AdminClient, unique: str
) -> None:
    name, topic = f"offsets-{unique}", f"offsets-{unique}"
    done = [{"partition": {"task": 0}, "offset": {"seq": 30}}]
    config = datagen(name, topic, records="30", rate="0", **{"batch.size": "10"})
    assert api.client.post("/connectors", json={"name": name, "config": config}).status_code == 201
    wait_until(lambda: _offsets(api, name) == done, what="30 records committed")

    for method in ("PATCH", "DELETE"):
        refused = api.client.request(
            method,
            f"/connectors/{name}/offsets",
            json={"offsets": [{"partition": {"task": 0}, "offset": {"seq": 0}}]} if method == "PATCH" else None,
        )
        assert refused.status_code == 400
        assert "must be in the STOPPED state" in refused.json()["message"]

    assert api.client.put(f"/connectors/{name}/stop").status_code == 204
    assert status_of(api, name)["connector"]["state"] == "STOPPED" and status_of(api, name)["tasks"] == []
    reset = api.client.delete(f"/connectors/{name}/offsets")
    assert reset.status_code == 200
    assert reset.json() == {"message": "The offsets for this connector have been reset successfully"}
    assert _offsets(api, name) == []
    assert api.client.put(f"/connectors/{name}/resume").status_code == 202
    wait_until(lambda: _offsets(api, name) == done, what="the 30 records committed again")

    assert api.client.put(f"/connectors/{name}/stop").status_code == 204
    altered = api.client.patch(
        f"/connectors/{name}/offsets", json={"offsets": [{"partition": {"task": 0}, "offset": {"seq": 25}}]}
    )
    assert altered.status_code == 200
    assert altered.json() == {"message": "The offsets for this connector have been altered successfully"}
    assert _offsets(api, name) == [{"partition": {"task": 0}, "offset": {"seq": 25}}]
    assert api.client.put(f"/connectors/{name}/resume").status_code == 202
    wait_until(lambda: _offsets(api, name) == done, what="records 25..29 committed again")

    keys = sorted(int(m.key()) for m in consume(broker.bootstrap_servers, [topic], 65))
    assert keys == sorted([*range(30), *range(30), *range(25, 30)])  # reset re-read all, the patch 5
    assert api.client.delete(f"/connectors/{name}").status_code == 204
    delete_topics(admin, [topic])


def test_a_misspelt_topic_config_is_an_error_at_validate_and_refused_at_create(api: RestWorker) -> None:
    config = {
        "connector.class": "DataGen",
        "name": "typo",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "3",
        "topic.creation.groups": "eu",
        "topic.creation.eu.include": "eu-.*",
        "topic.creation.eu.partitons": "6",
    }
    message = (
        "'partitons' is neither a setting of the group nor a topic config Apache Kafka defines. Did you mean "
        "topic.creation.eu.partitions?"
    )
    body = api.client.put("/connector-plugins/DataGen/config/validate", json=config).json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
    assert body["error_count"] == 1 and list(errors) == ["topic.creation.eu.partitons"]
    assert errors["topic.creation.eu.partitons"][0].startswith(message)
    created = api.client.post("/connectors", json={"name": "typo", "config": config})
    assert created.status_code == 400 and message in created.json()["message"]
    assert api.client.get("/connectors/typo").status_code == 404


def test_a_body_not_sent_as_json_gets_415_malformed_json_its_line_and_column(api: RestWorker) -> None:
    unsupported = {"error_code": 415, "message": "HTTP 415 Unsupported Media Type: send the body as application/json"}
    form = api.client.post(
        "/connectors", content=b"name=x", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert (form.status_code, form.json()) == (415, unsupported)
    bare = api.client.put("/connectors/bare/config", content=b'{"connector.class": "DataGen"}')  # no content type
    assert (bare.status_code, bare.json()) == (415, unsupported)
    broken = api.client.post(
        "/connectors",
        content=b'{\n  "name": "x",\n  "config": {"a": "b",}\n}',
        headers={"content-type": "application/json"},
    )
    assert broken.status_code == 400
    assert broken.json()["message"] == (
        "Malformed JSON at line 3, column 23: Expecting property name enclosed in double quotes"
    )
    no_class = api.client.put("/connector-plugins/DataGen/config/validate", json={"name": "v"})
    assert no_class.status_code == 400
    assert no_class.json()["message"] == (
        "Connector config contains no connector type: set connector.class (to DataGen)"
    )
    assert api.client.get("/connectors/x").status_code == 404 and api.client.get("/connectors/bare").status_code == 404


def test_validate_reports_every_bad_key_including_topic_creation_groups(api: RestWorker) -> None:
    bad = {
        "connector.class": "DataGen",
        "name": "v",
        "tasks.max": "0",
        "topic.count": "many",
        "format": "xml",
        "topic.creation.default.partitions": 0,
        "topic.creation.groups": "small",
        "topic.creation.small.include": "orders.(",
        "topic.creation.small.partitions": -5,
        "topic.creation.small.replication.factor": "x",
        "db.password": "not-shown",
    }
    response = api.client.put("/connector-plugins/DataGen/config/validate", json=bad)
    assert response.status_code == 200, response.text
    body = response.json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
    assert set(errors) == {
        "tasks.max",
        "topic.count",
        "format",
        "topic.creation.default.partitions",
        "topic.creation.default.replication.factor",
        "topic.creation.small.include",
        "topic.creation.small.partitions",
        "topic.creation.small.replication.factor",
    }
    assert "Number of partitions must be positive" in errors["topic.creation.small.partitions"][0]
    assert "Invalid regular expression" in errors["topic.creation.small.include"][0]
    assert body["error_count"] == sum(len(e) for e in errors.values())
    assert body["name"] == "connectworker.connectors.datagen.DataGenConnector"
    assert body["groups"] == [
        "Common",
        "Transforms",
        "Predicates",
        "Error Handling",
        "Topic Creation",
        "Exactly Once Support",
        "Automatic Restarts",
    ]
    first = body["configs"][0]
    assert set(first["definition"]) == {
        "name",
        "type",
        "required",
        "default_value",
        "importance",
        "documentation",
        "group",
        "order",
        "width",
        "display_name",
        "dependents",
    }
    assert set(first["value"]) == {"name", "value", "recommended_values", "errors", "visible"}

    good = api.client.put(
        "/connector-plugins/DataGenConnector/config/validate",
        json={"connector.class": "DataGen", "name": "v", "topic.count": 2},
    )
    assert good.status_code == 200 and good.json()["error_count"] == 0
    mismatch = api.client.put(
        "/connector-plugins/FileStreamSource/config/validate", json={"connector.class": "DataGen", "name": "v"}
    )
    assert mismatch.status_code == 400
    assert "does not match request type FileStreamSource" in mismatch.json()["message"]
    # a plugin named by any of its names, as Kafka's loader gives them: the Java class, its simple name, that
    # name without "Connector"
    for plugin in ("org.apache.kafka.connect.file.FileStreamSourceConnector", "FileStreamSourceConnector"):
        same = api.client.put(
            f"/connector-plugins/{plugin}/config/validate",
            json={"connector.class": "FileStreamSource", "name": "v", "topic": "t"},
        )
        assert same.status_code == 200, same.text
    debezium = api.client.put(
        "/connector-plugins/PostgresConnector/config/validate",
        json={"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "name": "v"},
    )
    assert debezium.status_code == 200, debezium.text  # its errors are the missing keys', key by key
    assert {c["value"]["name"] for c in debezium.json()["configs"] if c["value"]["errors"]} >= {"database.hostname"}


def test_create_and_update_errors_use_kafka_status_codes_and_shapes(api: RestWorker, unique: str) -> None:
    name = f"errors-{unique}"
    invalid = api.client.post(
        "/connectors",
        json={
            "name": name,
            "config": {"connector.class": "DataGen", "tasks.max": "zero", "topic.creation.default.partitions": "1"},
        },
    )
    assert invalid.status_code == 400
    message = invalid.json()["message"]
    assert message.startswith("Connector configuration is invalid and contains the following 2 error(s)")
    assert "tasks.max: Invalid value 'zero'" in message
    assert "topic.creation.default.replication.factor: Missing required configuration" in message
    assert invalid.json()["error_code"] == 400

    config = datagen(name, f"errors-{unique}", rate="1")
    assert api.client.post("/connectors", json={"name": name, "config": config}).status_code == 201
    duplicate = api.client.post("/connectors", json={"name": name, "config": config})
    assert duplicate.status_code == 409 and duplicate.json() == {
        "error_code": 409,
        "message": f"Connector {name} already exists",
    }
    mismatch = api.client.put(f"/connectors/{name}/config", json={**config, "name": "other"})
    assert mismatch.status_code == 400
    assert "doesn't match connector name in the URL" in mismatch.json()["message"]
    slash = api.client.post("/connectors", json={"name": "a/b", "config": config | {"name": "a/b"}})
    assert slash.status_code == 400
    malformed = api.client.post("/connectors", content=b"{not json", headers={"content-type": "application/json"})
    assert malformed.status_code == 400 and malformed.json()["error_code"] == 400
    for method, path in (
        ("GET", "/connectors/none-such/status"),
        ("PUT", "/connectors/none-such/pause"),
        ("DELETE", "/connectors/none-such"),
        ("GET", "/connectors/none-such/offsets"),
        ("POST", "/connectors/none-such/restart"),
        ("GET", "/connectors/none-such/topics"),
    ):
        response = api.client.request(method, path)
        assert response.status_code == 404, (method, path)
        assert response.json() == {"error_code": 404, "message": "Connector none-such not found"}

    patched = api.client.patch(f"/connectors/{name}/config", json={"rate": 2, "seed": None, "format": "json"})
    assert patched.status_code == 200, patched.text
    assert patched.json()["config"] == {**config, "rate": "2", "format": "json"}
    assert api.client.delete(f"/connectors/{name}").status_code == 204


def test_secrets_are_hidden_in_every_response_and_kept_on_a_round_trip(
    api: RestWorker, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    name = f"secret-{unique}"
    secret = f"hunter2-{unique}"
    config = datagen(name, f"secret-{unique}", rate="1", **{"db.password": secret, "client.Secret": secret})
    created = api.client.post("/connectors", json={"name": name, "config": config})
    assert created.status_code == 201
    # The connector starts in the background (its tasks are listed once started): every answer is read
    # once the task shows, so the task's config is among them.
    wait_until(
        lambda: api.client.get(f"/connectors/{name}/tasks").json() != [], timeout=30, what="the task to be listed"
    )
    shown = [
        created.text,
        *(
            api.client.get(path).text
            for path in (
                f"/connectors/{name}",
                f"/connectors/{name}/config",
                f"/connectors/{name}/tasks",
                "/connectors?expand=info",
            )
        ),
    ]
    for text in shown:
        assert secret not in text
        assert '"db.password":"[hidden]"' in text and '"client.Secret":"[hidden]"' in text

    edited = {**api.client.get(f"/connectors/{name}/config").json(), "rate": "2"}
    assert api.client.put(f"/connectors/{name}/config", json=edited).status_code == 200
    props = api.worker.get(name).config.props
    assert props["db.password"] == secret and props["client.Secret"] == secret and props["rate"] == "2"

    with caplog.at_level(logging.INFO):
        logging.getLogger("connectworker.connectors.datagen").warning("a connector logs its password %s", secret)
    assert secret not in caplog.text and "password [hidden]" in caplog.text
    assert api.client.delete(f"/connectors/{name}").status_code == 204


def test_listing_expansions_server_info_plugins_and_loggers(api: RestWorker, unique: str) -> None:
    name = f"list-{unique}"
    config = datagen(name, f"list-{unique}", rate="1")
    assert (
        api.client.post("/connectors", json={"name": name, "config": config, "initial_state": "PAUSED"}).status_code
        == 201
    )
    wait_for_states(api, name, "PAUSED", ["PAUSED"])
    assert name in api.client.get("/connectors").json()
    both = api.client.get("/connectors", params=[("expand", "status"), ("expand", "info")]).json()[name]
    assert both["status"]["connector"] == {"state": "PAUSED", "worker_id": api.worker.worker_id}
    assert both["info"]["name"] == name and both["info"]["type"] == "source"
    assert set(api.client.get("/connectors", params={"expand": "status"}).json()[name]) == {"status"}

    root = api.client.get("/").json()
    assert set(root) == {"version", "commit", "kafka_cluster_id"} and root["kafka_cluster_id"]
    plugins = api.client.get("/connector-plugins").json()
    datagen_plugin = {
        "class": "connectworker.connectors.datagen.DataGenConnector",
        "type": "source",
        "version": root["version"],
    }
    assert datagen_plugin in plugins
    # the Java class names connector files written for Kafka Connect use, as Kafka's clients look them up
    assert {
        "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "io.confluent.connect.jdbc.JdbcSourceConnector",
        "io.debezium.connector.postgresql.PostgresConnector",
        "io.debezium.connector.mysql.MySqlConnector",
        "io.debezium.connector.mariadb.MariaDbConnector",
    } <= {p["class"] for p in plugins if p["type"] == "source"}
    everything = api.client.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
    assert any(p["type"] == "converter" for p in everything)
    by_type = {kind: {p["class"] for p in everything if p["type"] == kind} for kind in ("transformation", "predicate")}
    assert "org.apache.kafka.connect.transforms.InsertField$Value" in by_type["transformation"]
    debezium = {
        "io.debezium.transforms.ExtractNewRecordState",
        "io.debezium.transforms.ExtractChangedRecordState",
        "io.debezium.transforms.outbox.EventRouter",
        "io.debezium.transforms.ByLogicalTableRouter",
        "io.debezium.transforms.ToLogicalTopicRouter",
    }
    assert debezium <= by_type["transformation"] and len(by_type["transformation"]) == 26 + len(debezium)
    # each transformation's config definition, as KIP-769 gives it
    router_keys = api.client.get("/connector-plugins/io.debezium.transforms.outbox.EventRouter/config").json()
    defaults = {key["name"]: key["default_value"] for key in router_keys}
    assert defaults["route.topic.replacement"] == "outbox.event.${routedByValue}"
    assert defaults["table.field.event.key"] == "aggregateid"
    unwrap_keys = api.client.get("/connector-plugins/io.debezium.transforms.ExtractNewRecordState/config").json()
    assert {"delete.tombstone.handling.mode", "add.fields", "add.headers", "route.by.field"} <= {
        key["name"] for key in unwrap_keys
    }
    assert by_type["predicate"] == {
        "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
        "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
    }
    assert {p["class"] for p in everything if p["type"] == "header_converter"} == {
        "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        "org.apache.kafka.connect.storage.StringConverter",
        "org.apache.kafka.connect.converters.ByteArrayConverter",
        "org.apache.kafka.connect.json.JsonConverter",
    }
    keys = api.client.get("/connector-plugins/DataGen/config").json()
    assert "topic.pattern" in [k["name"] for k in keys]
    assert api.client.get("/connector-plugins/NoSuch/config").status_code == 404

    logger = "connectworker.runtime.herder.herder"
    before = logging.getLogger(logger).level
    try:
        changed = api.client.put(f"/admin/loggers/{logger}", json={"level": "DEBUG"})
        assert changed.status_code == 200 and changed.json() == [logger]
        assert api.client.get(f"/admin/loggers/{logger}").json()["level"] == "DEBUG"
        assert api.client.get("/admin/loggers").json()[logger]["level"] == "DEBUG"
        assert api.client.put(f"/admin/loggers/{logger}", json={"level": "LOUD"}).status_code == 400
    finally:
        logging.getLogger(logger).setLevel(before)
    assert api.client.delete(f"/connectors/{name}").status_code == 204


def test_topic_tracking_and_the_creation_plan(api: RestWorker, broker: Broker, admin: AdminClient, unique: str) -> None:
    name, topic = f"topics-{unique}", f"topics-{unique}"
    config = datagen(
        name,
        topic,
        rate="20",
        **{"topic.creation.default.partitions": "3", "topic.creation.default.replication.factor": "1"},
    )
    assert api.client.post("/connectors", json={"name": name, "config": config}).status_code == 201
    wait_until(
        lambda: api.client.get(f"/connectors/{name}/topics").json()[name]["topics"] == [topic], what="the topic tracked"
    )
    assert api.client.put(f"/connectors/{name}/pause").status_code == 202  # no writes while we look

    def reset_sticks() -> bool:
        """A poll the task was in when it was paused may still report its topic; once that settled a
        reset leaves the list empty."""
        assert api.client.put(f"/connectors/{name}/topics/reset").status_code == 202
        time.sleep(0.2)
        return api.client.get(f"/connectors/{name}/topics").json() == {name: {"topics": []}}

    wait_until(reset_sticks, 10, what="an empty topic list after the reset")
    assert api.client.put(f"/connectors/{name}/resume").status_code == 202
    wait_until(
        lambda: api.client.get(f"/connectors/{name}/topics").json()[name]["topics"] == [topic],
        what="the topic reported again after its next write",
    )

    plan = api.client.get(
        f"/connectors/{name}/topics/plan", params=[("topic", topic), ("topic", "new.one"), ("topic", "bad topic!")]
    )
    assert plan.status_code == 200, plan.text
    by_topic = {p["topic"]: p for p in plan.json()}
    assert by_topic[topic]["exists"] is True and by_topic[topic]["create"] is False
    # This worker keeps topic.creation.enable at its default (false), so nothing would be created.
    assert "topic.creation.enable is false" in by_topic["new.one"]["reason"]
    assert by_topic["new.one"]["exists"] is False and "broker_verdict" not in by_topic["new.one"]
    assert "invalid topic name" in by_topic["bad topic!"]["reason"]
    assert set(by_topic["new.one"]) == {
        "topic",
        "create",
        "rule",
        "partitions",
        "replication_factor",
        "configs",
        "reason",
        "exists",
    }
    assert api.client.get(f"/connectors/{name}/topics/plan").status_code == 400
    assert api.client.delete(f"/connectors/{name}").status_code == 204
    delete_topics(admin, [topic])


def test_the_file_connector_refuses_offsets_its_task_could_not_resume_from(api: RestWorker, tmp_path: Path) -> None:
    source = tmp_path / "lines.txt"
    source.write_text("a\nb\n")
    name = "file-offsets"
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": name}
    assert api.client.put(f"/connectors/{name}/config", json=config).status_code == 201
    try:
        assert api.client.put(f"/connectors/{name}/stop").status_code == 204
        wait_until(lambda: api.client.get(f"/connectors/{name}/status").json()["connector"]["state"] == "STOPPED")
        before = api.client.get(f"/connectors/{name}/offsets").json()  # what the task committed before the stop

        def alter(partition: dict[str, object], offset: dict[str, object] | None) -> tuple[int, str]:
            response = api.client.patch(
                f"/connectors/{name}/offsets", json={"offsets": [{"partition": partition, "offset": offset}]}
            )
            return response.status_code, response.json()["message"]

        refused = f"Connector {name} refused the offsets: "
        assert alter({"filename": str(source)}, {"position": "abc"}) == (
            400,
            refused + "The value for the 'position' key in the offset is expected to be a Long value (got 'abc')",
        )
        assert alter({"file": str(source)}, {"position": 2}) == (
            400,
            refused + "Partition objects should contain the key 'filename'",
        )
        assert alter({"filename": str(source)}, {"position": -1}) == (
            400,
            refused + "The value for the 'position' key in the offset should be a non-negative value",
        )
        assert api.client.get(f"/connectors/{name}/offsets").json() == before  # nothing written
        assert alter({"filename": str(source)}, {"position": 2}) == (
            200,
            "The offsets for this connector have been altered successfully",
        )
        assert api.client.get(f"/connectors/{name}/offsets").json() == {
            "offsets": [{"partition": {"filename": str(source)}, "offset": {"position": 2}}]
        }
        assert api.client.delete(f"/connectors/{name}/offsets").status_code == 200  # asked with null offsets
        assert api.client.get(f"/connectors/{name}/offsets").json() == {"offsets": []}
    finally:
        api.client.delete(f"/connectors/{name}")
