"""The worker keys of the Kafka topics the worker keeps its own state in, as Kafka Connect names them:
the offsets topic (`offset.storage.*`), and the config and status topics (`config.storage.*`,
`status.storage.*`) that keep connectors created through the REST API, their target states and their
status in Kafka, so that a worker (a Spark driver) started again on another host finds them.

A base of `WorkerConfig`: its fields are worker keys like any other (`CONNECT_*` variables included).
"""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings

_FACTOR = (
    "Replication factor of the {what} when the worker creates it; -1 = the broker's default, 0 is "
    "refused. A factor above the cluster's broker count stops start-up naming the key (set 1 on a "
    "one-broker cluster)."
)


class StorageTopicKeys(BaseSettings):
    offset_storage_topic: str | None = Field(
        None,
        description="Committed source offsets in this compacted Kafka topic instead of the file, in Kafka "
        "Connect's format, so that they survive the host; created if missing, and read to its "
        "end at start-up (`read_committed`). Its clients take the top-level security keys and "
        "`admin.*`.",
    )
    offset_storage_partitions: int = Field(
        25, ge=1, description="Partitions of the offsets topic when the worker creates it (Kafka's default)."
    )
    offset_storage_replication_factor: int = Field(3, ge=-1, description=_FACTOR.format(what="offsets topic"))
    config_storage_topic: str | None = Field(
        None,
        description="Connectors created or changed through the REST API, and their target states (running, "
        "paused, stopped), in this compacted one-partition Kafka topic in Kafka Connect's record "
        "format (`connector-<name>`, `target-state-<name>`), instead of the file beside the "
        "offsets file; created if missing and read at start-up, so a worker started again on "
        "another host finds them. Its clients take the top-level security keys and `admin.*`.",
    )
    config_storage_replication_factor: int = Field(3, ge=-1, description=_FACTOR.format(what="config topic"))
    status_storage_topic: str | None = Field(
        None,
        description="The state of every connector and task (`status-connector-<name>`, "
        "`status-task-<name>-<id>`, Kafka Connect's format: state, trace, worker_id, generation) "
        "written to this compacted Kafka topic as it changes, for tools that read Kafka Connect's "
        "status topic; created if missing.",
    )
    status_storage_partitions: int = Field(
        5, ge=1, description="Partitions of the status topic when the worker creates it (Kafka's default)."
    )
    status_storage_replication_factor: int = Field(3, ge=-1, description=_FACTOR.format(what="status topic"))

    @field_validator(
        "offset_storage_replication_factor", "config_storage_replication_factor", "status_storage_replication_factor"
    )
    @classmethod
    def _replication_factor(cls, value: int) -> int:
        if value == 0:
            raise ValueError("must be positive, or -1 for the broker's default")
        return value
