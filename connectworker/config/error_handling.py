"""Kafka Connect's connector keys for error handling (KIP-298, KIP-779), declared and typed.

- `errors.tolerance`: `none` (default) fails the task on the first record that cannot be converted or
  that Kafka rejects; `all` skips such records, counts them, and still advances their source offsets.
- `errors.log.enable`, `errors.log.include.messages`: log each skipped record (and its key and value).
- `errors.retry.timeout` (ms; 0 = no retry, -1 = forever) and `errors.retry.delay.max.ms`: how long a
  conversion that raises `RetriableError` (e.g. a Schema Registry outage) is retried, with exponential
  backoff from 300 ms, before the tolerance applies. A `RetriableError` from `poll()` is retried
  without limit, as in Kafka; only the delay cap applies to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, one_of

ERRORS_GROUP = "Error Handling"


class Tolerance(StrEnum):
    NONE = "none"
    ALL = "all"


ERROR_HANDLING_CONFIG_DEF = (
    ConfigDef()
    .define(
        "errors.retry.timeout",
        ConfigType.LONG,
        0,
        validator=at_least(-1),
        group=ERRORS_GROUP,
        documentation="Maximum duration in milliseconds that a failed conversion will be reattempted. "
        "The default is 0, which means no retries. Use -1 for infinite retries.",
    )
    .define(
        "errors.retry.delay.max.ms",
        ConfigType.LONG,
        60_000,
        validator=at_least(1),
        group=ERRORS_GROUP,
        documentation="The maximum duration in milliseconds between consecutive retry attempts.",
    )
    .define(
        "errors.tolerance",
        ConfigType.STRING,
        Tolerance.NONE.value,
        group=ERRORS_GROUP,
        validator=one_of(*(t.value for t in Tolerance)),
        recommended_values=[t.value for t in Tolerance],
        documentation="'none' fails the task on the first record that cannot be converted or that Kafka "
        "rejects; 'all' skips such records (their source offsets still advance).",
    )
    .define(
        "errors.log.enable",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        group=ERRORS_GROUP,
        documentation="Log every skipped record with its topic, source partition and offset.",
    )
    .define(
        "errors.log.include.messages",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        group=ERRORS_GROUP,
        documentation="Include the record's key and value in that log line.",
    )
)


@dataclass(frozen=True)
class ErrorHandling:
    """The typed `errors.*` settings of one connector."""

    tolerance: Tolerance = Tolerance.NONE
    log_enable: bool = False
    log_include_messages: bool = False
    retry_timeout_ms: int = 0
    retry_delay_max_ms: int = 60_000

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> ErrorHandling:
        """From the typed values of `ERROR_HANDLING_CONFIG_DEF`'s keys (a connector config's reading)."""
        return cls(
            tolerance=Tolerance(str(values["errors.tolerance"]).lower()),
            log_enable=values["errors.log.enable"],
            log_include_messages=values["errors.log.include.messages"],
            retry_timeout_ms=values["errors.retry.timeout"],
            retry_delay_max_ms=values["errors.retry.delay.max.ms"],
        )

    @property
    def tolerates_all(self) -> bool:
        return self.tolerance is Tolerance.ALL
