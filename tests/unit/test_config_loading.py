"""Worker and connector files in the formats and keys Kafka Connect users already have."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from connectworker.api import ConfigError
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.loading import load_connector_configs, load_worker_config
from connectworker.config.properties import load_connector_file
from connectworker.config.worker_config import WorkerConfig


def test_properties_json_flat_and_json_wrapped_connector_files_load_alike(tmp_path: Path) -> None:
    props = tmp_path / "c.properties"
    props.write_text(
        "# comment\nname=c\nconnector.class=FileStreamSource\ntopic=t\nfile=/tmp/a\\\\b.txt\nbatch.size : 10\n"
    )
    flat = tmp_path / "flat.json"
    flat.write_text(
        json.dumps(
            {
                "name": "c",
                "connector.class": "FileStreamSource",
                "topic": "t",
                "file": "/tmp/a\\b.txt",
                "batch.size": 10,
            }
        )
    )
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(
        json.dumps(
            {
                "name": "c",
                "config": {
                    "connector.class": "FileStreamSource",
                    "topic": "t",
                    "file": "/tmp/a\\b.txt",
                    "batch.size": "10",
                },
            }
        )
    )
    expected = {
        "name": "c",
        "connector.class": "FileStreamSource",
        "topic": "t",
        "file": "/tmp/a\\b.txt",
        "batch.size": "10",
    }
    assert load_connector_file(props) == load_connector_file(flat) == load_connector_file(wrapped) == expected


def test_invalid_json_names_the_file_and_position(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",\n "config": }')
    with pytest.raises(ConfigError, match=r"(?s)bad.json.*line 2 column 12"):
        load_connector_file(bad)


def test_every_problem_of_every_file_is_reported_at_once(tmp_path: Path) -> None:
    one = tmp_path / "one.properties"
    one.write_text("connector.class=DataGen\ntasks.max=0\n")
    two = tmp_path / "two.properties"
    two.write_text(
        "name=two\nconnector.class=DataGen\ntopic.creation.groups=a,a\n"
        "topic.creation.default.partitions=x\ntopic.creation.default.replication.factor=1\n"
    )
    with pytest.raises(ConfigError) as info:
        load_connector_configs([one, two])
    text = str(info.value)
    assert f"in {one}" in text and "name: Missing required configuration" in text and "tasks.max" in text
    assert f"in {two}" in text and "Duplicate alias provided." in text
    assert "topic.creation.default.partitions" in text


def test_duplicate_connector_names_across_files_are_refused(tmp_path: Path) -> None:
    for n in ("a", "b"):
        (tmp_path / f"{n}.properties").write_text("name=same\nconnector.class=DataGen\n")
    with pytest.raises(ConfigError, match="'same' is already defined"):
        load_connector_configs([tmp_path / "a.properties", tmp_path / "b.properties"])


def test_worker_keys_come_from_file_and_environment_with_the_environment_winning(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        "CONNECT_BOOTSTRAP_SERVERS": "broker-from-env:9092",
        "CONNECT_PRODUCER_LINGER_MS": "20",
        "CONNECT_TOPIC_CREATION_ENABLE": "true",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with caplog.at_level(logging.WARNING):
        config = WorkerConfig.from_properties(
            {
                "bootstrap.servers": "file:9092",
                "offset.flush.interval.ms": "1500",
                "producer.acks": "all",
                "admin.request.timeout.ms": "999",
                "value.converter.schemas.enable": "false",
                "heartbeat.interval.ms": "3000",
            }
        )
    assert config.bootstrap_servers == "broker-from-env:9092"
    assert config.topic_creation_enable is True
    assert config.offset_flush_interval_ms == 1500
    assert config.prefixed("producer.") == {"acks": "all", "linger.ms": "20"}
    assert config.prefixed("admin.") == {"request.timeout.ms": "999"}
    assert config.unknown_keys == ["heartbeat.interval.ms"]
    assert any("heartbeat.interval.ms" in r.message and "ignored" in r.message for r in caplog.records)


def test_worker_config_errors_name_each_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties({"offset.flush.interval.ms": "soon", "topic.creation.enable": "yes please"})
    assert "offset.flush.interval.ms" in info.value.problems
    assert "topic.creation.enable" in info.value.problems


def test_topic_creation_is_off_unless_the_worker_asks() -> None:
    assert WorkerConfig.from_properties({}).topic_creation_enable is False


def test_plugin_path_makes_connector_modules_importable(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "my_plugin_pkg_x1.py").write_text(
        "from connectworker.connectors.datagen import DataGenConnector\n\nclass MySource(DataGenConnector):\n    pass\n"
    )
    worker = tmp_path / "w.properties"
    worker.write_text(f"offset.storage.file.filename={tmp_path / 'o'}\nplugin.path={plugins}\n")
    load_worker_config(worker)
    config = parse_connector_config({"name": "p", "connector.class": "my_plugin_pkg_x1.MySource"})
    assert config.connector_class.__name__ == "MySource"


def test_kafka_class_names_resolve_to_built_in_connectors() -> None:
    config = parse_connector_config(
        {"name": "f", "topic": "t", "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector"}
    )
    assert config.connector_class.__name__ == "FileStreamSourceConnector"


def test_producer_overrides_are_collected_from_the_connector_config() -> None:
    config = parse_connector_config(
        {
            "name": "o",
            "connector.class": "DataGen",
            "producer.override.compression.type": "zstd",
            "producer.override.linger.ms": "50",
        }
    )
    assert config.producer_overrides == {"compression.type": "zstd", "linger.ms": "50"}


def test_the_offsets_file_may_be_left_out_when_offsets_and_configs_are_kept_in_kafka(tmp_path: Path) -> None:
    worker = tmp_path / "w.properties"
    worker.write_text("bootstrap.servers=b:9092\noffset.storage.topic=offsets\n")
    with pytest.raises(ConfigError, match=r"required unless offset\.storage\.topic and config\.storage\.topic"):
        load_worker_config(worker)
    worker.write_text("bootstrap.servers=b:9092\noffset.storage.topic=offsets\nconfig.storage.topic=configs\n")
    assert load_worker_config(worker).offset_storage_file_filename is None
