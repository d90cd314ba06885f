"""Request and response bodies, shaped (field names included) like Kafka Connect's REST entities."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

ConfigScalar = StrictStr | StrictInt | StrictFloat | StrictBool
"""Kafka's Jackson turns JSON numbers and booleans in a config map into strings; so do we."""

TargetState = Literal["RUNNING", "PAUSED", "STOPPED"]


class ErrorMessage(BaseModel):
    error_code: int
    message: str


class ServerInfo(BaseModel):
    version: str
    commit: str
    kafka_cluster_id: str | None


class CreateConnectorRequest(BaseModel):
    name: StrictStr | None = None
    config: dict[str, ConfigScalar] = Field(default_factory=dict)
    initial_state: TargetState | None = None

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "name": "datagen-example",
        "config": {"connector.class": "DataGen", "topic.pattern": "example.{region}", "topic.count": "2",
                   "records": "100", "rate": "50"},
    }]})


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
    partition: dict[str, Any]
    offset: dict[str, Any] | None = None


class AlterOffsetsRequest(BaseModel):
    offsets: list[AlterOffset]


class Message(BaseModel):
    message: str


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

    level: StrictStr = Field(json_schema_extra={"enum": ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL",
                                                         "OFF"]})
