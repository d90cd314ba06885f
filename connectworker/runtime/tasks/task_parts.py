"""What a source task is built from besides the connector's own task: its converters (key, value,
header), its error handling, its transforms and its topic gate, resolved from the connector's config
over the worker's defaults as Kafka's worker resolves them.

Built here for every placement (a thread of the worker, a task process, a Spark task, and the
`connect-source` DataFrame format), so a connector's config means the same wherever its task runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.error_handling import ErrorHandling
from connectworker.config.transforms import TransformsConfig
from connectworker.config.worker_config import JSON_CONVERTER, WorkerConfig
from connectworker.converters.base import Converter
from connectworker.converters.header_converters import HeaderConverter
from connectworker.converters.registry import (
    HEADER_CONVERTER_KEY,
    SIMPLE_HEADER_CONVERTER,
    resolve_converter,
    resolve_header_converter,
)
from connectworker.runtime.tasks.error_tolerance import ToleranceOperator
from connectworker.runtime.tasks.record_conversion import RecordSerializer
from connectworker.runtime.tasks.transform_chain import TransformationChain
from connectworker.runtime.topic_creation.gate import TopicGate

log = logging.getLogger(__name__)

__all__ = ["ConverterDefaults", "TaskParts"]


@dataclass(frozen=True)
class ConverterDefaults:
    """The worker's converters, which a connector naming none of its own uses with the worker's
    sub-keys (`value.converter.schemas.enable`, ...). Without a worker (the `connect-source` format),
    the worker's own defaults: JSON keys and values, `SimpleHeaderConverter` headers."""

    key_converter: str = JSON_CONVERTER
    value_converter: str = JSON_CONVERTER
    header_converter: str = SIMPLE_HEADER_CONVERTER
    worker_props: Mapping[str, str] = field(default_factory=dict)
    """The worker's pass-through keys, where the converters' sub-keys are."""

    @classmethod
    def of(cls, config: WorkerConfig) -> ConverterDefaults:
        return cls(config.key_converter, config.value_converter, config.header_converter, dict(config.pass_through))

    def props(self, key: str) -> dict[str, str]:
        """The worker's props for converter `key` (its class and its sub-keys)."""
        own = {
            "key.converter": self.key_converter,
            "value.converter": self.value_converter,
            HEADER_CONVERTER_KEY: self.header_converter,
        }
        return {**self.worker_props, key: own[key]}


@dataclass
class TaskParts:
    """One task's converters, error handling, transforms and topic gate. The converters are
    configured instances owned by the task: `close()` them when the task ends."""

    key_converter: Converter
    value_converter: Converter
    header_converter: HeaderConverter
    error_handling: ErrorHandling
    transforms: TransformsConfig
    topic_gate: TopicGate

    @classmethod
    def build(cls, config: ConnectorConfig, defaults: ConverterDefaults, topic_gate: TopicGate) -> TaskParts:
        """The parts of a task of `config`. Raises `ConfigError` naming the converter key that cannot be
        loaded or configured."""
        props = config.props
        key = resolve_converter("key.converter", props, defaults.props("key.converter"))
        try:
            value = resolve_converter("value.converter", props, defaults.props("value.converter"))
            header = resolve_header_converter(props, defaults.props(HEADER_CONVERTER_KEY))
        except BaseException:
            key.close()
            raise
        return cls(key, value, header, config.error_handling, config.transforms, topic_gate)

    def tolerance(self, name: str, stopping: threading.Event) -> ToleranceOperator:
        """`errors.tolerance` and its retries for task `name`; a retry ends early once `stopping` is set."""
        return ToleranceOperator(self.error_handling, name, stopping)

    def serializer(self, tolerance: ToleranceOperator) -> RecordSerializer:
        """The conversion of a poll into bytes, through these converters."""
        return RecordSerializer(self.key_converter, self.value_converter, tolerance, self.header_converter)

    def transform_chain(self) -> TransformationChain | None:
        """The connector's transforms, None without any. Built where the task runs (on its thread), so a
        transform that cannot be built fails the task, not its placement."""
        return TransformationChain.build(self.transforms) if self.transforms.transforms else None

    def close(self, task_name: str) -> None:
        """Close the converters; a failure is logged, not raised: the task has ended anyway."""
        for converter in (self.key_converter, self.value_converter, self.header_converter):
            try:
                converter.close()
            except Exception:
                log.exception("Task %s: closing converter %s failed", task_name, type(converter).__name__)
