"""DataGen's keys: their names and validation, and how `topic.pattern` expands to a task's topics
(connectors/datagen.py generates the records)."""

from __future__ import annotations

import re
import string
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, in_range, one_of
from connectworker.api.errors import ConfigError

TOPIC_PATTERN_CONFIG = "topic.pattern"
TOPIC_COUNT_CONFIG = "topic.count"
RECORDS_CONFIG = "records"
RATE_CONFIG = "rate"
BATCH_SIZE_CONFIG = "batch.size"
SEED_CONFIG = "seed"
VALUE_SIZE_CONFIG = "value.size"
FORMAT_CONFIG = "format"
TASK_ID_CONFIG = "task.id"

PLACEHOLDERS = ("region", "n", "task")
REGIONS = ("us-east", "us-west", "eu-west", "eu-central", "ap-south", "ap-northeast", "sa-east", "af-south")
MAX_TOPIC_COUNT = 100_000
_LEGAL_TOPIC = re.compile(r"[a-zA-Z0-9._-]{1,249}")


def region_name(index: int) -> str:
    """The `index`-th region: the fixed list first, then the list again with numbered suffixes."""
    base = REGIONS[index % len(REGIONS)]
    cycle = index // len(REGIONS)
    return base if cycle == 0 else f"{base}-{cycle + 1}"


def _validate_pattern(key: str, value: Any) -> None:
    if value is None or not str(value).strip():
        raise ValueError("Value must be a non-empty topic name pattern")
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(value) if name is not None]
    except ValueError as exc:
        raise ValueError(f"{exc}; write a literal brace as {{{{ or }}}}") from None
    for name in fields:
        if name not in PLACEHOLDERS:
            shown = f"{{{name}}}" if name else "{}"
            raise ValueError(
                f"Unknown placeholder {shown}; allowed placeholders are "
                f"{', '.join('{' + p + '}' for p in PLACEHOLDERS)}"
            )
    try:
        value.format(region=REGIONS[0], n=0, task=0)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"Cannot expand the pattern: {exc}") from None


CONFIG_DEF = (
    ConfigDef()
    .define(
        TOPIC_PATTERN_CONFIG,
        ConfigType.STRING,
        "orders.{region}",
        validator=_validate_pattern,
        importance=Importance.HIGH,
        documentation="Pattern of the topic names to write to. Placeholders: {region} (a region name: "
        "us-east, us-west, eu-west, ..., then us-east-2, ... when topic.count exceeds the "
        "list), {n} (the topic's index, 0..topic.count-1; format specs such as {n:03d} "
        "work) and {task} (the task id). With topic.count > 1 the pattern needs {region} "
        "or {n}. Expanded names must be legal Kafka topic names.",
    )
    .define(
        TOPIC_COUNT_CONFIG,
        ConfigType.INT,
        3,
        validator=in_range(1, MAX_TOPIC_COUNT),
        importance=Importance.HIGH,
        documentation=f"Number of distinct topics the pattern expands to (per task if the pattern "
        f"has {{task}}), 1..{MAX_TOPIC_COUNT}. Records are spread over them evenly, in a "
        f"seeded order.",
    )
    .define(
        RECORDS_CONFIG,
        ConfigType.LONG,
        -1,
        validator=at_least(-1),
        importance=Importance.MEDIUM,
        documentation="Total records each task emits over its lifetime (counted across restarts), "
        "then it idles; -1 means unbounded.",
    )
    .define(
        RATE_CONFIG,
        ConfigType.DOUBLE,
        10.0,
        validator=at_least(0),
        importance=Importance.MEDIUM,
        documentation="Records per second per task; 0 means as fast as possible. Bursts never exceed "
        "one batch nor one second's worth of records.",
    )
    .define(
        BATCH_SIZE_CONFIG,
        ConfigType.INT,
        100,
        validator=at_least(1),
        importance=Importance.LOW,
        documentation="Maximum records returned by one poll. At least 1.",
    )
    .define(
        SEED_CONFIG,
        ConfigType.LONG,
        0,
        importance=Importance.LOW,
        documentation="Seed of the generator: the same seed, task id and sequence number always "
        "give the same topic, key and value.",
    )
    .define(
        VALUE_SIZE_CONFIG,
        ConfigType.INT,
        100,
        validator=in_range(0, 64 * 1024 * 1024),
        importance=Importance.MEDIUM,
        documentation="Approximate size of a value in bytes, 0..67108864. Exact for format=string "
        "(unless the record's sequence number alone is longer); for format=json the "
        "compact JSON encoding is padded to about this size.",
    )
    .define(
        FORMAT_CONFIG,
        ConfigType.STRING,
        "string",
        validator=one_of("string", "json"),
        importance=Importance.MEDIUM,
        recommended_values=("string", "json"),
        documentation="Value format: 'string' (a compact text value with a string schema) or 'json' "
        "(a dict with fields id, region, amount, ts, payload and a struct schema).",
    )
)

TASK_CONFIG_DEF = CONFIG_DEF.merge(
    ConfigDef().define(
        TASK_ID_CONFIG,
        ConfigType.INT,
        0,
        validator=at_least(0),
        importance=Importance.LOW,
        documentation="The task's id, set by the connector; it picks the source partition.",
    )
)


def expand_topics(pattern: str, count: int, task_id: int) -> list[str]:
    """The `count` topic names of `pattern` for one task, in index order; raises `ConfigError`."""
    topics = [pattern.format(region=region_name(i), n=i, task=task_id) for i in range(count)]
    for topic in topics:
        if not _LEGAL_TOPIC.fullmatch(topic) or topic in (".", ".."):
            raise ConfigError(
                {
                    TOPIC_PATTERN_CONFIG: (
                        f"Pattern {pattern!r} expands to {topic!r}, which is not a legal Kafka topic name "
                        f"(1-249 characters among ASCII letters, digits, '.', '_' and '-', not '.' or '..')"
                    )
                }
            )
    if len(set(topics)) < count:
        raise ConfigError(
            {
                TOPIC_PATTERN_CONFIG: (
                    f"Pattern {pattern!r} expands to only {len(set(topics))} distinct topic(s) but "
                    f"{TOPIC_COUNT_CONFIG}={count}: add a {{region}} or {{n}} placeholder, or set "
                    f"{TOPIC_COUNT_CONFIG}={len(set(topics))}"
                )
            }
        )
    return topics
