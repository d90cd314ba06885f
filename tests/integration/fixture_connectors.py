"""Connectors used only by the tests: data generators whose tasks adjust, veto or break topic
settings through `settings_for_new_topic`, and a source that writes to topics named in its config."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

from connectworker.api import (
    CleanupPolicy,
    ConfigDef,
    ConfigType,
    ConfigValue,
    RecordMetadata,
    RequiredTopic,
    SourceConnector,
    SourceRecord,
    SourceTask,
    TopicSettings,
)
from connectworker.connectors.datagen import DataGenConnector, DataGenTask


class CompactingTask(DataGenTask):
    """Forces compaction and two partitions on every new topic, whatever the rules say."""

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        return settings.with_cleanup_policy(CleanupPolicy.COMPACT).with_partitions(2)


class CompactingDataGen(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return CompactingTask


class VetoingTask(DataGenTask):
    """Declines to create topics whose name contains 'auto': the broker's auto-create applies."""

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        return None if "auto" in settings.name else settings


class VetoingDataGen(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return VetoingTask


class BrokenHookTask(DataGenTask):
    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        raise ValueError("no settings for you")


class BrokenHookDataGen(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return BrokenHookTask


class NamedTopicsTask(SourceTask):
    """Sends `records.per.topic` records to each topic of `topics` once, then idles."""

    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        self.topics = [t for t in props["topics"].split(",") if t]
        self.per_topic = int(props.get("records.per.topic", "1"))
        self.done = False

    def poll(self) -> list[SourceRecord] | None:
        if self.done:
            return None
        self.done = True
        return [SourceRecord(None, None, topic, f"{topic}-{i}") for topic in self.topics for i in range(self.per_topic)]

    def stop(self) -> None:
        self.done = True


class NamedTopicsSource(SourceConnector):
    def version(self) -> str:
        return "test"

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("topics", ConfigType.STRING).define("records.per.topic", ConfigType.INT, 1)

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return NamedTopicsTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        return None


class RecordingTask(DataGenTask):
    """Writes every `commit_record` call to the file `acks.file` names (one JSON line: the key and the
    metadata Kafka returned), so tests can check it wherever the task runs (a task process)."""

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        self._acks = open(props["acks.file"], "a", encoding="utf-8")  # closed by stop()

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        shown = None if metadata is None else [metadata.topic, metadata.partition, metadata.offset]
        self._acks.write(json.dumps([record.key, shown]) + "\n")
        self._acks.flush()

    def stop(self) -> None:
        super().stop()
        self._acks.close()


def acknowledged(path: Path) -> list[tuple[str, tuple[str, int, int] | None]]:
    """What `RecordingTask` wrote to `path`: each record's key and (topic, partition, offset)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [(key, None if shown is None else (shown[0], shown[1], shown[2])) for key, shown in lines]


class RecordingDataGen(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return RecordingTask


class MarkupFailingTask(DataGenTask):
    """Fails at its first poll with a message full of HTML, for pages that must escape traces."""

    def poll(self) -> list[SourceRecord] | None:
        raise RuntimeError("<script>alert('pwned')</script> the source went away")


class MarkupFailingDataGen(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return MarkupFailingTask


class FlakyStartTask(DataGenTask):
    """Appends the time of each of its starts to the file `starts.file` (so tests can count them wherever
    the task runs) and fails its first `fail.starts` starts (-1: every start) with a message naming the
    start."""

    def start(self, props: Mapping[str, str]) -> None:
        path = Path(props["starts.file"])
        with path.open("a", encoding="utf-8") as f:
            f.write(f"{time.time()}\n")
        starts = len(path.read_text(encoding="utf-8").splitlines())
        failing = int(props.get("fail.starts", "-1"))
        if failing < 0 or starts <= failing:
            raise RuntimeError(f"<b>flaky</b> start {starts} failed on purpose")
        super().start(props)


class FlakyStartDataGen(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return FlakyStartTask


def starts(path: Path) -> list[float]:
    """When `FlakyStartTask` started, from its `starts.file`."""
    return [float(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


class WhereAmITask(NamedTopicsTask):
    """Sends one record to each topic of `topics`: the task's working directory and the value of the
    environment variable `variable`, as JSON, then idles."""

    def poll(self) -> list[SourceRecord] | None:
        if self.done:
            return None
        self.done = True
        value = json.dumps({"cwd": os.getcwd(), "variable": os.environ.get(self.variable)})
        return [SourceRecord(None, None, topic, value) for topic in self.topics]

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        self.variable = props["variable"]


class WhereAmISource(NamedTopicsSource):
    def config_def(self) -> ConfigDef:
        return super().config_def().define("variable", ConfigType.STRING)

    def task_class(self) -> type[SourceTask]:
        return WhereAmITask


class HistoryKeepingDataGen(DataGenConnector):
    """A DataGen that, as Debezium's MySQL connector does with its schema history, requires topic
    `history.topic`: one partition, kept forever, never compacted; on the cluster `history.servers` names,
    if set (as Debezium's schema.history.internal.kafka.bootstrap.servers)."""

    def required_topics(self, props: Mapping[str, str]) -> list[RequiredTopic]:
        settings = TopicSettings(props["history.topic"], 1).with_cleanup_policy(CleanupPolicy.DELETE)
        return [
            RequiredTopic(
                settings.with_config("retention.ms", "-1"),
                "The schema history is replayed whole, in order, on every start: more than one partition, "
                "compaction or a finite retention lose history",
                cluster=props.get("history.servers"),
                cluster_key="history.servers" if "history.servers" in props else None,
            )
        ]


class MarkingTask(NamedTopicsTask):
    """A task whose start leaves a mark outside the process (the file `mark.file` names), as a start that
    creates something would, and which compacts every topic: it has no dry_start."""

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        Path(props["mark.file"]).write_text("started")

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        return settings.with_cleanup_policy(CleanupPolicy.COMPACT)


class MarkingSource(NamedTopicsSource):
    def config_def(self) -> ConfigDef:
        return super().config_def().define("mark.file", ConfigType.STRING)

    def dry_start(self, props: Mapping[str, str]) -> None:
        self.start(props)

    def task_class(self) -> type[SourceTask]:
        return MarkingTask


class GatedDataGen(DataGenConnector):
    """A DataGen whose validation needs something outside the worker, as a CDC connector's needs its
    database: the file `gate.file` names must exist."""

    def config_def(self) -> ConfigDef:
        return super().config_def().merge(ConfigDef().define("gate.file", ConfigType.STRING))

    def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        values = super().validate(props)
        if not Path(props.get("gate.file", "")).exists():
            values["gate.file"].errors.append(f"{props.get('gate.file')} does not exist (the service is down)")
        return values
