"""Request and response bodies, shaped (field names included) like Kafka Connect's REST entities."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
)

MAX_JSON_DEPTH = 32
"""How deep offsets (and config values) may nest: Kafka's are flat maps; deeper cannot be served back."""


def unicode_text(text: str) -> str:
    """`text`, if it can be written back out as UTF-8 (in a response, the connector store, a log line).

    A JSON ``\\ud800`` escape without its pair decodes to a lone surrogate, which cannot: accepting one
    would store a connector whose every later response fails.
    """
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"must be valid Unicode text, but it has a lone surrogate "
                f"(\\u{ord(text[exc.start]):04x}) at position {exc.start + 1}"
            ) from None
    return text


def json_value(value: Any) -> Any:
    """`value` (parsed JSON), if it can be stored and served back as JSON: finite numbers, Unicode text,
    at most `MAX_JSON_DEPTH` levels deep. Walked with a stack, not recursion: the depth is the client's."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            unicode_text(item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"must be a JSON number, not {item}")
        elif isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise ValueError(f"must not nest deeper than {MAX_JSON_DEPTH} levels")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return value


def config_keys(config: dict[str, Any]) -> dict[str, Any]:
    """A request's config map, if each key can be served back (`ConfigScalar` checks the values)."""
    for key in config:
        try:
            unicode_text(key)
        except ValueError as exc:
            raise ValueError(f"config key {key!r} {exc}") from None
    return config


Text = Annotated[StrictStr, AfterValidator(unicode_text)]
"""A string from a request body that can be served back."""

JsonObject = Annotated[dict[str, Any], AfterValidator(json_value)]
"""A JSON object the worker stores or hands on as it came (an offset, a signal's data)."""
ConfigScalar = Annotated[StrictStr | StrictInt | StrictFloat | StrictBool, AfterValidator(json_value)]
"""Kafka's Jackson turns JSON numbers and booleans in a config map into strings; so do we. Checked to be
text or a finite number that can be served back."""

ConfigMap = Annotated[dict[str, ConfigScalar], AfterValidator(config_keys)]
ConfigPatch = Annotated[dict[str, ConfigScalar | None], AfterValidator(config_keys)]
"""PATCH: a null value removes the key."""

TargetState = Literal["RUNNING", "PAUSED", "STOPPED"]


class ErrorMessage(BaseModel):
    error_code: int
    message: str


class ServerInfo(BaseModel):
    version: str
    commit: str
    kafka_cluster_id: str | None


class CreateConnectorRequest(BaseModel):
    name: Text | None = None
    config: ConfigMap = Field(default_factory=dict)
    initial_state: TargetState | None = None

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "name": "datagen-example",
                    "config": {
                        "connector.class": "DataGen",
                        "topic.pattern": "example.{region}",
                        "topic.count": "2",
                        "records": "100",
                        "rate": "50",
                    },
                }
            ]
        }
    )


class ConnectorTaskId(BaseModel):
    connector: str
    task: int


class ConnectorInfo(BaseModel):
    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskId]
    type: Literal["source"] = "source"


class TaskInfo(BaseModel):
    id: ConnectorTaskId
    config: dict[str, str]


class ConnectorState(BaseModel):
    state: str
    worker_id: str
    trace: str | None = None


class TaskState(BaseModel):
    id: int
    state: str
    worker_id: str
    trace: str | None = None
    transactional_id: str | None = None  # beyond Kafka: the task's producer, on an exactly-once worker
    progress: dict[str, Any] | None = None  # beyond Kafka: what the task reports doing, while it runs


class ConnectorStateInfo(BaseModel):
    name: str
    connector: ConnectorState
    tasks: list[TaskState]
    type: Literal["source"] = "source"


class ConnectorExpansion(BaseModel):
    """One connector in `GET /connectors?expand=…`: only the expansions asked for are present."""

    status: ConnectorStateInfo | None = None
    info: ConnectorInfo | None = None


class ActiveTopicsInfo(BaseModel):
    topics: list[str]


class ConnectorOffset(BaseModel):
    partition: dict[str, Any] | None
    offset: dict[str, Any] | None


class ConnectorOffsets(BaseModel):
    offsets: list[ConnectorOffset]


class AlterOffset(BaseModel):
    partition: JsonObject
    offset: JsonObject | None = None


class AlterOffsetsRequest(BaseModel):
    offsets: list[AlterOffset]


class Message(BaseModel):
    message: str


SignalText = Annotated[StrictStr, StringConstraints(min_length=1, max_length=200), AfterValidator(unicode_text)]


class SignalRequest(BaseModel):
    """An operator's signal to a connector's tasks (beyond Kafka); what `type` and `data` mean is the
    connector's (docs/rest.md)."""

    type: SignalText
    data: JsonObject | None = None
    id: SignalText | None = None

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"type": "execute-snapshot", "data": {"data-collections": ["public.orders"]}}]},
    )


class SignalSent(BaseModel):
    id: str  # as sent, else the random UUID the worker gave the signal
    type: str
    tasks: list[int]  # the tasks it was handed to


class PluginInfo(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    class_name: str = Field(alias="class")
    type: str
    version: str


class ConfigKeyInfo(BaseModel):
    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str
    documentation: str
    group: str | None
    order: int
    width: str
    display_name: str
    dependents: list[str]


class ConfigValueInfo(BaseModel):
    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool


class ConfigInfo(BaseModel):
    definition: ConfigKeyInfo
    value: ConfigValueInfo


class ConfigInfos(BaseModel):
    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]


class LoggerLevel(BaseModel):
    level: str
    last_modified: int | None = None


class LevelRequest(BaseModel):
    """Kafka's level names; matched without regard to case."""

    level: Text = Field(json_schema_extra={"enum": ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"]})
