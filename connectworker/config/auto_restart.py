"""A connector's automatic-restart keys: FAILED connectors and tasks restarted on Strimzi's schedule.

Kafka Connect leaves a failed task FAILED until someone calls the REST API; Strimzi's operator restarts
it from outside, restart n (from 0) after `n * n + n` minutes, capped at an hour. These keys bring the
same schedule into the worker, per connector, with the base interval settable (tests use a short one).
The policy that applies them is `connectworker.runtime.herder.auto_restart`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least

GROUP = "Automatic Restarts"
ENABLED_KEY = "auto.restart.enabled"
MAX_RESTARTS_KEY = "auto.restart.max.restarts"
BACKOFF_BASE_KEY = "auto.restart.backoff.base.ms"
MAX_DELAY_MS = 60 * 60 * 1000  # Strimzi's cap: never wait more than an hour between restarts

AUTO_RESTART_CONFIG_DEF = (
    ConfigDef()
    .define(
        ENABLED_KEY,
        ConfigType.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        group=GROUP,
        documentation="Restart this connector, or any of its tasks, automatically when it is FAILED, on "
        "Strimzi's schedule: restart n (counting from 0) after base * (n*n + n), at most 60 "
        "minutes (at once, then after 2, 6, 12, 20... times the base). A task or connector "
        "that runs for 10 minutes without failing starts counting again from 0, and so does "
        "a restart through the REST API or a change of the connector's config.",
    )
    .define(
        MAX_RESTARTS_KEY,
        ConfigType.INT,
        None,
        validator=at_least(0),
        importance=Importance.LOW,
        group=GROUP,
        documentation="How many automatic restarts in a row a connector or task gets before it is left "
        "FAILED (its trace then says so); unset: no limit.",
    )
    .define(
        BACKOFF_BASE_KEY,
        ConfigType.LONG,
        60_000,
        validator=at_least(1),
        importance=Importance.LOW,
        group=GROUP,
        documentation="The base of the schedule, in milliseconds: restart n waits base * (n*n + n).",
    )
)


@dataclass(frozen=True)
class AutoRestartSettings:
    """The typed `auto.restart.*` settings of one connector."""

    enabled: bool = False
    max_restarts: int | None = None
    backoff_base_ms: int = 60_000

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> AutoRestartSettings:
        """Parse validated connector props (raises `ConfigError` naming each bad key otherwise)."""
        values = AUTO_RESTART_CONFIG_DEF.parse(props)
        return cls(values[ENABLED_KEY], values[MAX_RESTARTS_KEY], values[BACKOFF_BASE_KEY])

    def delay_ms(self, restart: int) -> int:
        """How long restart number `restart` (from 0) waits after the failure: base * (n*n + n), capped."""
        return min(self.backoff_base_ms * (restart * restart + restart), MAX_DELAY_MS)
