"""A task's parts are resolved one way wherever it runs: the worker's converters and their sub-keys
unless the connector names its own, Kafka's defaults where there is no worker (the `connect-source`
format), and nothing left open when a converter cannot be built."""

from __future__ import annotations

import dataclasses

import pytest

from connectworker.api.errors import ConfigError
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.converters.header_converters import SimpleHeaderConverter
from connectworker.converters.json import JsonConverter
from connectworker.converters.string import StringConverter
from connectworker.runtime.tasks.task_parts import ConverterDefaults, TaskParts
from connectworker.runtime.topic_creation.service import AutoCreateGate

STRING = "org.apache.kafka.connect.storage.StringConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"


def connector(**props: str) -> dict[str, str]:
    return {"name": "c", "connector.class": "DataGen", **props}


def test_without_a_worker_keys_and_values_are_json_with_schemas_and_headers_simple() -> None:
    parts = TaskParts.build(parse_connector_config(connector()), ConverterDefaults(), AutoCreateGate())
    assert isinstance(parts.key_converter, JsonConverter) and parts.key_converter.schemas_enabled
    assert isinstance(parts.value_converter, JsonConverter) and parts.value_converter.schemas_enabled
    assert isinstance(parts.header_converter, SimpleHeaderConverter)


def test_the_workers_converter_comes_with_the_workers_sub_keys_unless_the_connector_names_its_own() -> None:
    worker = WorkerConfig.from_properties(
        {
            "bootstrap.servers": "127.0.0.1:9092",
            "offset.storage.file.filename": "/tmp/unused.offsets",
            "key.converter": STRING,
            "value.converter": JSON,
            "value.converter.schemas.enable": "false",
        }
    )
    defaults = ConverterDefaults.of(worker)
    parts = TaskParts.build(parse_connector_config(connector()), defaults, AutoCreateGate())
    assert isinstance(parts.key_converter, StringConverter)
    assert isinstance(parts.value_converter, JsonConverter) and not parts.value_converter.schemas_enabled
    own = TaskParts.build(parse_connector_config(connector(**{"value.converter": JSON})), defaults, AutoCreateGate())
    assert isinstance(own.value_converter, JsonConverter) and own.value_converter.schemas_enabled  # not the worker's


def test_a_converter_that_cannot_be_loaded_is_named_and_the_ones_built_before_it_are_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = parse_connector_config(connector(**{"key.converter": STRING}))
    # a converter class that went missing since the config was read (validation loads each one)
    broken = dataclasses.replace(config, props={**config.props, "value.converter": "no.such.Converter"})
    closed: list[str] = []
    monkeypatch.setattr(StringConverter, "close", lambda self: closed.append("key"))
    with pytest.raises(ConfigError) as raised:
        TaskParts.build(broken, ConverterDefaults(), AutoCreateGate())
    assert "value.converter" in str(raised.value) and "no.such.Converter" in str(raised.value)
    assert closed == ["key"]
