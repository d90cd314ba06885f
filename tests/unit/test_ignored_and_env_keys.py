"""Keys that have no effect are reported, never dropped without a word; Kafka's rest.port/rest.host.name
are honoured as Kafka does; a bad `CONNECT_*` value is blamed on its variable; a `plugin.path` entry that
cannot hold modules is reported."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import pytest

from connectworker.api import ConfigError
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.plugins import add_plugin_paths


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_rest_port_and_host_name_make_the_listener_when_listeners_is_unset(caplog: pytest.LogCaptureFixture) -> None:
    assert WorkerConfig.from_properties({}).listeners == "http://127.0.0.1:8083"
    with caplog.at_level(logging.WARNING):
        assert WorkerConfig.from_properties({"rest.port": "18083"}).listeners == "http://127.0.0.1:18083"
    assert warnings(caplog) == []  # honoured, so nothing to warn about
    assert WorkerConfig.from_properties({"rest.host.name": "0.0.0.0"}).listeners == "http://0.0.0.0:8083"
    assert WorkerConfig.from_properties({"rest.host.name": "::1", "rest.port": "0"}).listeners == "http://[::1]:0"
    # Kafka binds every interface for an empty host; connectworker keeps the API on loopback.
    assert WorkerConfig.from_properties({"rest.host.name": "", "rest.port": "9"}).listeners == "http://127.0.0.1:9"


def test_listeners_wins_over_rest_port_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        config = WorkerConfig.from_properties({"listeners": "http://127.0.0.1:7000", "rest.port": "18083"})
    assert config.listeners == "http://127.0.0.1:7000"
    assert any("rest.port and rest.host.name are ignored because listeners is set" in w for w in warnings(caplog))


def test_rest_port_must_be_a_port_number() -> None:
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties({"rest.port": "70000"}, source="w.properties")
    assert "rest.port" in info.value.problems and "65535" in info.value.problems["rest.port"]


def test_kafka_worker_keys_that_are_not_implemented_are_named_in_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        WorkerConfig.from_properties(
            {
                "heartbeat.interval.ms": "3000",
                "session.timeout.ms": "10000",
                "metrics.num.samples": "3",
                "security.protocol": "SSL",
                "client.id": "me",
                "sasl.mechanism": "PLAIN",
                "internal.key.converter": "x",
                "internal.value.converter.schemas.enable": "false",
                "connector.client.config.override.policy": "All",
                "admin.listeners": "http://:8084",
                "my.typo.key": "1",
            },
            source="w.properties",
        )
    lines = warnings(caplog)
    implemented_line = next(w for w in lines if "does not implement" in w)
    for key in ("heartbeat.interval.ms", "session.timeout.ms", "metrics.num.samples", "client.id", "admin.listeners"):
        assert key in implemented_line
    assert "distributed mode" in implemented_line  # says why
    # The top-level security keys apply to every client now (tests/unit/test_client_security.py)
    assert "security.protocol" not in implemented_line and "sasl.mechanism" not in implemented_line
    assert "Unknown worker configuration key 'my.typo.key' in w.properties is ignored" in lines
    # Keys that no current Kafka uses either, and Kafka's default override policy, pass without a word.
    assert not any("internal." in w or "override.policy" in w for w in lines)
    assert len(lines) == 2


def test_a_bad_environment_value_is_blamed_on_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONNECT_OFFSET_FLUSH_INTERVAL_MS", "abc")
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties({"offset.flush.interval.ms": "1000"}, source="w.properties")
    text = str(info.value)
    assert text.startswith("Invalid configuration in the environment:")
    assert "CONNECT_OFFSET_FLUSH_INTERVAL_MS (sets offset.flush.interval.ms): " in text and "'abc'" in text
    assert "w.properties" not in text

    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties({"topic.creation.enable": "maybe"}, source="w.properties")
    assert str(info.value).startswith("Invalid configuration in w.properties and the environment:")
    assert set(info.value.problems) == {
        "CONNECT_OFFSET_FLUSH_INTERVAL_MS (sets offset.flush.interval.ms)",
        "topic.creation.enable",
    }


def test_environment_variables_that_set_nothing_are_reported(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("CONNECT_HEARTBEAT_INTERVAL_MS", "3000")
    monkeypatch.setenv("CONNECT_UNKNOWN_KEYS", "not a list")  # an internal field: no variable sets it
    monkeypatch.setenv("CONNECT_VALUE_CONVERTER_SCHEMAS_ENABLE", "false")
    monkeypatch.setenv("CONNECT_PRODUCER_CLIENT__RACK", "eu-1")  # Confluent's spelling of an underscore
    with caplog.at_level(logging.WARNING):
        config = WorkerConfig.from_properties({})
    lines = warnings(caplog)
    named = "CONNECT_HEARTBEAT_INTERVAL_MS (heartbeat.interval.ms)"
    assert any(named in w and "does not implement" in w for w in lines)
    assert any("'CONNECT_UNKNOWN_KEYS (unknown.keys)'" in w and "the environment is ignored" in w for w in lines)
    assert config.unknown_keys == []
    assert config.prefixed("value.converter.") == {"schemas.enable": "false"}
    assert config.prefixed("producer.") == {"client_rack": "eu-1"}


def test_a_plugin_path_entry_that_cannot_hold_modules_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setattr(sys, "path", list(sys.path))
    missing, a_file, a_dir = tmp_path / "missing", tmp_path / "notes.txt", tmp_path / "plugins"
    a_file.write_text("not modules")
    a_dir.mkdir()
    with caplog.at_level(logging.WARNING):
        add_plugin_paths([str(missing), str(a_file), str(a_dir)])
    lines = warnings(caplog)
    assert f"plugin.path entry {missing} does not exist; it is ignored" in lines
    assert f"plugin.path entry {a_file} is neither a directory nor a zip archive of modules; it is ignored" in lines
    assert len(lines) == 2
    assert str(a_dir) in sys.path and str(missing) not in sys.path


def test_unimplemented_connector_keys_are_named_once_per_connector(caplog: pytest.LogCaptureFixture) -> None:
    name = f"c-{uuid.uuid4().hex[:8]}"
    props = {
        "name": name,
        "connector.class": "DataGen",
        "transforms": "route",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": "(.*)",
        "transforms.route.replacement": "$1-copy",
        "exactly.once.support": "requested",
        "transaction.boundary": "poll",
        "offsets.storage.topic": "o",
        "errors.deadletterqueue.topic.name": "dlq",
        "errors.tolerance": "all",
        "errors.log.enable": "true",
        "errors.retry.timeout": "1000",
        "producer.override.linger.ms": "5",
    }
    with caplog.at_level(logging.WARNING):
        parse_connector_config(props)
        parse_connector_config(props)  # parsed again (the connector store, an unchanged REST update): no repeat
    lines = warnings(caplog)
    assert lines == [
        f"Connector {name}: errors.deadletterqueue.topic.name, offsets.storage.topic are not "
        f"implemented by this version of connectworker and are ignored"
    ]

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        parse_connector_config({**props, "consumer.override.client.id": "x"})
        parse_connector_config({"name": f"{name}-plain", "connector.class": "DataGen", "errors.tolerance": "all"})
    # A config that ignores another key is reported again; one without such keys is not reported.
    assert [w for w in warnings(caplog) if "consumer.override.client.id" in w] == warnings(caplog)
    assert len(warnings(caplog)) == 1


def test_an_unknown_worker_key_names_the_key_it_probably_misspells(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        WorkerConfig.from_properties({"topic.creation.enabled": "true"}, source="w.properties")
    assert warnings(caplog) == [
        "Unknown worker configuration key 'topic.creation.enabled' in w.properties is ignored; "
        "did you mean 'topic.creation.enable'?"
    ]


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "offset.flush.interval.ms",
            "10s",
            "Invalid value '10s' for configuration offset.flush.interval.ms: Not a number of type LONG",
        ),
        ("task.processes", "two", "Invalid value 'two' for configuration task.processes: Not a number of type INT"),
        (
            "topic.creation.enable",
            "yes please",
            "Invalid value 'yes please' for configuration topic.creation.enable: Expected value to be either true "
            "or false",
        ),
        (
            "offset.flush.interval.ms",
            "0",
            "Invalid value '0' for configuration offset.flush.interval.ms: Value must be at least 1",
        ),
        (
            "log.format",
            "xml",
            "Invalid value 'xml' for configuration log.format: String must be one of: 'text' or 'json'",
        ),
    ],
)
def test_a_bad_worker_value_is_refused_in_kafkas_words(key: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties({key: value}, source="w.properties")
    assert info.value.problems == {key: message}


def test_a_connector_key_near_a_declared_one_is_named_with_it(caplog: pytest.LogCaptureFixture) -> None:
    name = f"typo-{uuid.uuid4().hex[:8]}"
    with caplog.at_level(logging.WARNING):
        config = parse_connector_config(
            {
                "name": name,
                "connector.class": "DataGen",
                "tasks.maxx": "2",
                "topic.patern": "t",
                "my.own.setting": "x",  # a key the connector may read without declaring it: not a near miss
            }
        )
    assert warnings(caplog) == [
        f"Connector {name}: tasks.maxx (did you mean tasks.max?), topic.patern (did you mean topic.pattern?) are "
        "declared by neither the connector nor Kafka Connect, and are handed to the connector as written"
    ]
    assert config.tasks_max == 1 and config.props["tasks.maxx"] == "2"
