"""The worker's configuration: Kafka Connect's worker keys, from a file and the environment.

Every key may be overridden from the environment with the `CONNECT_` prefix, upper-cased, dots as
underscores, as Confluent's images do: ``CONNECT_BOOTSTRAP_SERVERS``, ``CONNECT_PRODUCER_LINGER_MS``
(→ ``producer.linger.ms``). The environment wins over the file.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from connectworker.api.errors import ConfigError

log = logging.getLogger(__name__)

ENV_PREFIX = "CONNECT_"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"

# Keys whose sub-keys are handed on rather than declared one by one.
PASS_THROUGH_PREFIXES = ("producer.", "admin.", "key.converter.", "value.converter.",
                         "header.converter.", "listeners.https.", "spark.conf.")

# Kafka Connect worker keys that mean nothing to a standalone connectworker; accepted silently so a
# Kafka user's worker file carries over without noise.
IGNORED_KAFKA_KEYS = frozenset({
    "internal.key.converter", "internal.value.converter", "rest.port", "rest.host.name",
    "metrics.recording.level", "metrics.num.samples", "metrics.sample.window.ms",
    "client.id", "connector.client.config.override.policy", "header.converter",
})


class WorkerConfig(BaseSettings):
    """Typed worker keys. Construct with `WorkerConfig.from_properties(props)`."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", case_sensitive=False)

    bootstrap_servers: str = Field("localhost:9092", description="Kafka brokers, or 'embedded'")
    key_converter: str = JSON_CONVERTER
    value_converter: str = JSON_CONVERTER
    offset_storage_file_filename: str | None = None
    # Kafka Connect's distributed-mode keys; `connectworker spark` may keep offsets in this topic.
    offset_storage_topic: str | None = None
    offset_storage_partitions: int = Field(1, ge=1)
    offset_storage_replication_factor: int = Field(-1, ge=-1)
    offset_flush_interval_ms: int = Field(60_000, ge=1)
    offset_flush_timeout_ms: int = Field(5_000, ge=1)
    task_shutdown_graceful_timeout_ms: int = Field(5_000, ge=0)
    topic_creation_enable: bool = False
    topic_creation_timeout_ms: int = Field(30_000, ge=1)
    plugin_path: Annotated[list[str], NoDecode] = Field(default_factory=list)
    listeners: str = "http://127.0.0.1:8083"
    rest_advertised_host_name: str | None = None
    rest_basic_auth_credentials_file: str | None = None
    spark_master: str = "local[*]"
    spark_checkpoint_location: str | None = None
    spark_trigger_interval_ms: int = Field(1_000, ge=0)

    pass_through: dict[str, str] = Field(default_factory=dict, exclude=True)
    unknown_keys: list[str] = Field(default_factory=list, exclude=True)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings],
                                   init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return env_settings, init_settings

    @field_validator("plugin_path", mode="before")
    @classmethod
    def _split_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [p.strip() for p in value.split(",") if p.strip()]
        return value

    @field_validator("bootstrap_servers")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must name at least one broker host:port, or 'embedded'")
        return value.strip()

    @classmethod
    def from_properties(cls, props: Mapping[str, str], *, source: str | None = None) -> WorkerConfig:
        """Split props into declared keys, pass-through prefixes and unknown keys, then validate.

        Declared keys are read from the environment by pydantic-settings; `producer.*`/`admin.*` ones
        are read here, since their names cannot be declared in advance.
        """
        declared = {name.replace("_", ".") for name in cls.model_fields
                    if name not in ("pass_through", "unknown_keys")}
        values: dict[str, Any] = {}
        pass_through: dict[str, str] = {}
        unknown: list[str] = []
        for key, value in props.items():
            if key in declared:
                values[key.replace(".", "_")] = value
            elif key.startswith(PASS_THROUGH_PREFIXES):
                pass_through[key] = value
            elif key not in IGNORED_KAFKA_KEYS:
                unknown.append(key)
        pass_through.update(_pass_through_from_env(os.environ))
        try:
            config = cls(**values, pass_through=pass_through, unknown_keys=unknown)
        except ValidationError as exc:
            problems = {}
            for err in exc.errors():
                field = str(err["loc"][0]) if err["loc"] else ""
                problems[field.replace("_", ".")] = f"{err['msg']} (got {err.get('input')!r})"
            raise ConfigError(problems, source=source) from None
        for key in unknown:
            log.warning("Unknown worker configuration key %r in %s is ignored", key, source or "worker config")
        return config

    def prefixed(self, prefix: str) -> dict[str, str]:
        """Pass-through keys under `prefix`, with the prefix removed (e.g. 'producer.')."""
        return {k[len(prefix):]: v for k, v in self.pass_through.items() if k.startswith(prefix)}

    @property
    def uses_embedded_broker(self) -> bool:
        return self.bootstrap_servers == "embedded"


def _pass_through_from_env(environ: Mapping[str, str]) -> dict[str, str]:
    out = {}
    for name, value in environ.items():
        upper = name.upper()
        for prefix in ("PRODUCER_", "ADMIN_"):
            full = ENV_PREFIX + prefix
            if upper.startswith(full) and len(upper) > len(full):
                key = prefix.lower().rstrip("_") + "." + upper[len(full):].lower().replace("_", ".")
                out[key] = value
    return out
