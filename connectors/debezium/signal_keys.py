"""The keys of signals, incremental snapshots and notifications, Debezium's names and defaults (its
`CommonConnectorConfig`), as a `ConfigDef` fragment both CDC connectors add to their shared keys
(`signal_keys`), the rules across them (`signal_key_problems`) and the pass-through settings of the signal
consumer (`signal_consumer_config`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.topics.names import validate_topic_name

SIGNAL_CHANNELS, SIGNAL_TABLE = "signal.enabled.channels", "signal.data.collection"
SIGNAL_TOPIC, SIGNAL_SERVERS, SIGNAL_GROUP = (
    "signal.kafka.topic",
    "signal.kafka.bootstrap.servers",
    "signal.kafka.groupId",
)
SIGNAL_FILE, SIGNAL_POLL_MS = "signal.file", "signal.poll.interval.ms"
SIGNAL_CONSUMER = "signal.consumer."  # prefix: librdkafka settings of the Kafka channel's consumer
CHUNK_SIZE, WATERMARKING = "incremental.snapshot.chunk.size", "incremental.snapshot.watermarking.strategy"
NOTIFICATION_CHANNELS, NOTIFICATION_TOPIC = "notification.enabled.channels", "notification.sink.topic.name"

SIGNAL_CHANNEL_NAMES = ("source", "kafka", "file")
NOTIFICATION_CHANNEL_NAMES = ("sink", "log")
WATERMARKING_STRATEGIES = ("insert_insert", "insert_delete")

SIGNALS = "Signals and incremental snapshots"


def signal_keys(namespace: str) -> ConfigDef:
    """The keys of a connector whose tables live in a `namespace` (schema, database)."""
    return (
        ConfigDef()
        .define(
            SIGNAL_CHANNELS,
            ConfigType.LIST,
            "source",
            validator=_names_among(SIGNAL_CHANNEL_NAMES),
            group=SIGNALS,
            documentation="Where the connector takes signals from (ignoring case): source (rows inserted into the "
            "signal.data.collection table, read from the change stream), kafka (records of signal.kafka.topic) "
            "and file (lines of signal.file). Debezium's jmx and in-process channels do not exist here.",
        )
        .define(
            SIGNAL_TABLE,
            ConfigType.STRING,
            "",
            validator=_one_table(namespace),
            group=SIGNALS,
            documentation=f"The signal table, as <{namespace}>.<table> (case-sensitive), with three columns: id, "
            "type and data (text; data holds JSON), e.g. id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, "
            "data VARCHAR(2048). Its inserts are the source channel's signals, and incremental snapshots write "
            "their watermarks to it, so the connector's user must be allowed to insert (and, with "
            "insert_delete watermarks, delete) there. It is captured even when the table lists leave it out; "
            "the initial snapshot skips its rows. Empty: no signal table, and no incremental snapshot.",
        )
        .define(
            SIGNAL_TOPIC,
            ConfigType.STRING,
            "",
            validator=_optional_topic,
            group=SIGNALS,
            documentation="The topic of the kafka channel; empty: <topic.prefix>-signal. Only its partition 0 is "
            "read (give it one partition), and only the records keyed by this connector's topic.prefix; the "
            "offset after the last one read is kept in the connector's offsets, so a signal is acted on once.",
        )
        .define(
            SIGNAL_SERVERS,
            ConfigType.STRING,
            "",
            group=SIGNALS,
            documentation="The Kafka cluster of signal.kafka.topic. Absent, empty or `embedded` (Debezium requires "
            "it): the worker's bootstrap.servers, the embedded broker's address included.",
        )
        .define(
            SIGNAL_GROUP,
            ConfigType.STRING,
            "kafka-signal",
            group=SIGNALS,
            documentation="Accepted for Debezium's configurations, not used: the kafka channel joins no consumer "
            "group (it reads partition 0 by assignment and keeps its place in the connector's offsets).",
        )
        .define(
            SIGNAL_FILE,
            ConfigType.STRING,
            "file-signals.txt",
            validator=_non_blank,
            group=SIGNALS,
            documentation="The file of the file channel (relative: to the worker's working directory): one "
            'signal per line, as JSON {"id": ..., "type": ..., "data": {...}}. Each poll reads every line '
            "and empties the file; append whole lines.",
        )
        .define(
            SIGNAL_POLL_MS,
            ConfigType.LONG,
            5000,
            validator=_positive("the kafka and file channels are read every so many milliseconds"),
            group=SIGNALS,
            documentation="How often the kafka and file channels are read, in milliseconds (the source channel's "
            "signals come with the change stream, at once).",
        )
        .define(
            CHUNK_SIZE,
            ConfigType.INT,
            1024,
            validator=_positive("an incremental snapshot reads this many rows per chunk, and 0 would read none"),
            group=SIGNALS,
            documentation="How many rows an incremental snapshot reads at a time, in primary key order, between "
            "two watermarks; larger chunks read faster and hold more rows in memory.",
        )
        .define_choice(
            WATERMARKING,
            "insert_insert",
            WATERMARKING_STRATEGIES,
            group=SIGNALS,
            documentation="How an incremental snapshot marks a chunk's window in the signal table: insert_insert "
            "inserts an opening and a closing row (two rows stay per chunk); insert_delete inserts the opening "
            "row and deletes it to close, so the table stays empty.",
        )
        .define(
            NOTIFICATION_CHANNELS,
            ConfigType.LIST,
            "",
            validator=_names_among(NOTIFICATION_CHANNEL_NAMES),
            group=SIGNALS,
            documentation="Where the progress of snapshots is reported (ignoring case): sink (records to "
            "notification.sink.topic.name, in Debezium's Notification schema) and log (a line of the worker's "
            "log each). Empty: nowhere.",
        )
        .define(
            NOTIFICATION_TOPIC,
            ConfigType.STRING,
            "",
            validator=_optional_topic,
            importance=Importance.LOW,
            group=SIGNALS,
            documentation="The topic of the sink notification channel, created by the worker's topic.creation "
            "rules like any other; required when notification.enabled.channels has sink.",
        )
    )


def signal_key_problems(values: Mapping[str, Any]) -> dict[str, str]:
    """The rules across the keys, on the typed values of the keys that hold. signal.kafka.bootstrap.servers
    is never missing: left empty it names the worker's cluster (add it to the connector's
    `worker_cluster_keys`)."""
    problems = {}
    if "sink" in _lowered(values.get(NOTIFICATION_CHANNELS)) and not (values.get(NOTIFICATION_TOPIC) or "").strip():
        problems[NOTIFICATION_TOPIC] = (
            f"Notification topic name must be provided when the sink notification channel is enabled "
            f"({NOTIFICATION_CHANNELS} has sink): set {NOTIFICATION_TOPIC}"
        )
    return problems


def enabled_channels(value: Collection[str] | None) -> tuple[str, ...]:
    """The channels a valid signal.enabled.channels or notification.enabled.channels names, lowercased, each
    once, in order."""
    return tuple(dict.fromkeys(_lowered(value)))


def signal_consumer_config(props: Mapping[str, str]) -> dict[str, str]:
    """The `signal.consumer.*` settings of a connector config, the prefix removed: librdkafka settings of
    the kafka channel's consumer (Debezium passes them to its consumer in the same way)."""
    return {key[len(SIGNAL_CONSUMER) :]: value for key, value in props.items() if key.startswith(SIGNAL_CONSUMER)}


def _lowered(value: Collection[str] | None) -> list[str]:
    return [item.strip().lower() for item in value or () if item.strip()]


def _names_among(allowed: tuple[str, ...]) -> Callable[[str, Any], None]:
    def check(key: str, value: Any) -> None:
        wrong = [item for item in _lowered(value) if item not in allowed]
        if wrong:
            raise ValueError(f"Value must be a list of {', '.join(allowed)}; got {', '.join(wrong)}")

    return check


def _one_table(namespace: str) -> Callable[[str, Any], None]:
    def check(key: str, value: Any) -> None:
        text = (value or "").strip()
        if "," in text:
            raise ValueError(
                f"Value must name one table (the connector has one task, so one signal table); got {text!r}"
            )
        parts = text.split(".")
        if text and (len(parts) != 2 or not all(part.strip() for part in parts)):
            raise ValueError(f"Value must be <{namespace}>.<table>; got {text!r}")

    return check


def _optional_topic(key: str, value: Any) -> None:
    text = (value or "").strip()
    if text and (problem := validate_topic_name(text)) is not None:
        raise ValueError(problem)


def _non_blank(key: str, value: Any) -> None:
    if not (value or "").strip():
        raise ValueError("must name a file")


def _positive(meaning: str) -> Callable[[str, Any], None]:
    def check(key: str, value: Any) -> None:
        if value is not None and value < 1:
            raise ValueError(f"Value must be at least 1 ({meaning}); got {value}")

    return check
