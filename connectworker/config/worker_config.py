"""The worker's configuration: Kafka Connect's worker keys, from a file and the environment.

Every key may be overridden from the environment with the `CONNECT_` prefix, upper-cased, dots as
underscores, as Confluent's images do: ``CONNECT_BOOTSTRAP_SERVERS``, ``CONNECT_PRODUCER_LINGER_MS``
(→ ``producer.linger.ms``). The environment wins over the file. A bad value from a variable is blamed
on the variable.

Keys that have no effect here are reported, never dropped without a word (see `unsupported_keys`).
`${provider:[path:]key}` references in values, from the file or a variable, are resolved with the
providers the config declares (`config.providers`) before the values are validated.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, PrivateAttr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from connectworker.api.errors import ConfigError
from connectworker.config.client_security import TOP_LEVEL_PREFIXES, valid_security_protocol
from connectworker.config.listeners import RestAccess, read_rest_access
from connectworker.config.override_policy import policy_name
from connectworker.config.providers.loading import PROVIDERS_PREFIX, open_config_providers
from connectworker.config.providers.references import ConfigProviders
from connectworker.config.providers.worker_refs import WorkerReferences
from connectworker.config.rest_keys import RestListenerKeys
from connectworker.config.storage_topics import StorageTopicKeys
from connectworker.config.unsupported_keys import is_obsolete_worker_key, worker_key_note, worker_key_warnings
from connectworker.config.worker_clients import check_clients, worker_client_settings
from connectworker.config.worker_env import (
    ENV_PREFIX,
    pass_through_from_env,
    variable_for_field,
    variables_setting_nothing,
    worker_key,
)
from connectworker.config.worker_value_errors import config_error

log = logging.getLogger(__name__)

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

# Keys whose sub-keys are handed on rather than declared one by one.
PASS_THROUGH_PREFIXES = (
    "producer.",
    "admin.",
    *TOP_LEVEL_PREFIXES,
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "listeners.https.",
    "spark.conf.",
    "topic.creation.policy.",
    "config.providers.",
)

# Fields that hold what `from_properties` sorted out, not keys: no variable sets them.
INTERNAL_FIELDS = ("pass_through", "unknown_keys")

# The references of the config being built, so that values read from `CONNECT_*` variables are resolved.
_REFERENCES: ContextVar[WorkerReferences | None] = ContextVar("worker_config_references", default=None)


class _WorkerEnvSource(EnvSettingsSource):
    """pydantic-settings' environment source, reading declared keys only (not the internal fields)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        if field_name in INTERNAL_FIELDS:
            return None, field_name, False
        value, key, complex_value = super().get_field_value(field, field_name)
        references = _REFERENCES.get()
        if references is not None and isinstance(value, str):
            value = references.resolve_env({worker_key(field_name): value}, os.environ)[worker_key(field_name)]
        return value, key, complex_value


class WorkerConfig(StorageTopicKeys, RestListenerKeys):
    """Typed worker keys (the storage topics' are in `StorageTopicKeys`). Construct with
    `WorkerConfig.from_properties(props)`."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", case_sensitive=False)

    bootstrap_servers: str = Field(
        "localhost:9092",
        description="Kafka brokers, host:port,...; or `embedded`: a memory-only Tansu broker on a free loopback "
        "port (the optional extra `connectworker[embedded]`). An unreachable cluster is never "
        "silently replaced by the embedded broker.",
    )
    bootstrap_timeout_ms: int = Field(
        30_000,
        ge=1,
        description="At start-up the cluster must answer (its cluster id) within this bound, or the worker "
        "exits with status 1 naming bootstrap.servers before any connector starts.",
    )
    key_converter: str = Field(
        JSON_CONVERTER,
        description="Converter of record keys: Kafka's class names "
        "(`org.apache.kafka.connect.storage.StringConverter`, `...converters.ByteArrayConverter`, "
        "`...json.JsonConverter`, `io.confluent.connect.avro.AvroConverter`) or Python paths; "
        "sub-keys such as `key.converter.schemas.enable` pass through. A connector may override it.",
    )
    value_converter: str = Field(
        JSON_CONVERTER,
        description="Converter of record values, as key.converter; sub-keys such as "
        "`value.converter.schemas.enable` pass through. A connector may override it.",
    )
    header_converter: str = Field(
        SIMPLE_HEADER_CONVERTER,
        description="Converter of record header values: Kafka's `SimpleHeaderConverter` (values as text, as "
        "Kafka writes them), `StringConverter`, `ByteArrayConverter`, `JsonConverter` (by Kafka's "
        "class names), or the Python path of a `connectworker.converters.HeaderConverter` subclass; "
        "sub-keys such as `header.converter.schemas.enable` pass through. A connector may override "
        "it.",
    )
    offset_storage_file_filename: str | None = Field(
        None,
        description="Committed source offsets (JSON, written atomically: temp file, fsync, rename). Always "
        "required in standalone mode: the connector store (REST-created connectors) is kept "
        "beside it as `<file>.connectors.json`; with offset.storage.topic set the offsets go to "
        "the topic and this file itself is not written.",
    )
    offset_flush_interval_ms: int = Field(
        60_000,
        ge=1,
        description="How often each task commits the source offsets of what Kafka acknowledged (they are "
        "also committed on pause and on shutdown).",
    )
    # KIP-618: records and offsets in one transaction per task; needs offset.storage.topic.
    exactly_once_source_support: Literal["enabled", "disabled"] = Field(
        "disabled",
        description="`enabled`: each task's records and source offsets in one transaction (KIP-618), "
        "with the transactional id `<group.id>-<connector>-<task>`; needs offset.storage.topic.",
    )
    group_id: str = Field(  # names transactional ids, as in Kafka
        "connect-standalone",
        min_length=1,
        description="Names the tasks' transactional ids, `<group.id>-<connector>-<task>`, as Kafka Connect "
        "does; give each worker its own to run the same connector names side by side.",
    )
    offset_flush_timeout_ms: int = Field(
        5_000,
        ge=1,
        description="How long a commit waits for the records in flight to be acknowledged; offsets of "
        "records still unacknowledged then are committed at a later commit.",
    )
    task_shutdown_graceful_timeout_ms: int = Field(
        5_000,
        ge=0,
        description="How long a stopping task may take (plus offset.flush.timeout.ms for its final "
        "commit) before its thread is abandoned with an error; when the worker stops, one such "
        "bound for all its tasks together, which stop side by side.",
    )
    worker_tasks_max: int | None = Field(
        None,
        ge=1,
        description="The most tasks this worker runs, all connectors together (each connector counts with "
        "its `tasks.max`). A connector that would go beyond it is refused (REST 400, exit status "
        "2 for files). Default: 32 per CPU core (each task holds a producer: a few threads and "
        "megabytes).",
    )
    task_processes: int | None = Field(
        None,
        ge=0,
        description="How many Python processes of their own the tasks run in, each hosting several tasks as "
        "threads (tasks are dealt to the least busy process; a process starts when a task needs "
        "it). Python runs one thread at a time per process, so this is what lets tasks use more "
        "than one core. `0` runs every task as a thread of the worker's own process. Default: one "
        "per CPU core.",
    )
    connector_tasks_max_limit: int | None = Field(
        None,
        ge=1,
        description="The most tasks one connector may ask for with `tasks.max`; a higher `tasks.max` is "
        "refused naming this key. Default: `worker.tasks.max`.",
    )
    topic_creation_enable: bool = Field(
        False,
        description="Whether the worker creates missing topics by the connectors' `topic.creation.*` "
        "rules. Kafka ships `true`; connectworker creates topics only when asked.",
    )
    topic_creation_extra_configs: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated topic configs this cluster accepts beyond those Apache Kafka defines (a "
        "broker plugin's, a vendor build's), which connectors' `topic.creation.*` rules may then set. Any "
        "other name a rule sets is refused at validation, naming the closest known one; `confluent.*` "
        "names are always allowed.",
    )
    topic_creation_timeout_ms: int = Field(
        30_000,
        ge=1,
        description="Bound on retrying retriable Admin errors before the task fails, and on waiting for a "
        "topic deleted at run time to be usable again (created anew) before its records are re-sent.",
    )
    topic_creation_policy_class: str | None = Field(
        None,
        description="A create-topic policy the worker applies before it asks the broker (KIP-108's shape): "
        "the Python path of a `connectworker.api.CreateTopicPolicy` subclass, e.g. "
        "`connectworker.topics.policy.LimitsPolicy`, configured with the "
        "`topic.creation.policy.*` keys. A topic it refuses fails its task, as the broker's "
        "POLICY_VIOLATION would, before any CreateTopics request.",
    )
    security_protocol: Annotated[str | None, AfterValidator(valid_security_protocol)] = Field(
        None,
        description="`PLAINTEXT`, `SSL`, `SASL_PLAINTEXT` or `SASL_SSL` (any case) for every client of the worker, "
        "with the top-level `ssl.*` and `sasl.*` keys; `producer.*`/`admin.*` win (docs/security.md).",
    )
    connector_client_config_override_policy: Annotated[str, AfterValidator(policy_name)] = Field(
        "All",
        description="Which `producer.override.*`/`admin.override.*` keys a connector may set: `All` (Kafka's "
        "default), `None`, `Principal` (`sasl.jaas.config`, `sasl.mechanism`, `security.protocol`) or "
        "`Allowlist` (`connector.client.config.override.allowlist`), or Kafka's class names; another "
        "key is refused (REST 400, exit status 2) with Kafka's message.",
    )
    connector_client_config_override_allowlist: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Comma-separated keys connectors may override under the `Allowlist` policy."
    )
    plugin_path: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated directories (or zip archives) added to the import path for connector "
        "modules; an entry that does not exist, or is neither, is reported and skipped.",
    )
    log_format: Literal["text", "json"] = Field(
        "text",
        description="`text`: one readable line per event; `json`: one JSON object per line, with `connector`, "
        "`task` and `topic` where the line is about one. `--log-format` overrides it.",
    )
    config_providers: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated names of config providers, each given a class with "
        "`config.providers.<name>.class`: Kafka's `org.apache.kafka.common.config.provider."
        "FileConfigProvider`, `...EnvVarConfigProvider`, `...DirectoryConfigProvider`, or the Python "
        "path of a `connectworker.api.ConfigProvider` subclass. A value may then hold "
        "`${name:[path:]key}` references: in the worker config, resolved when it is loaded; in a "
        "connector config, resolved each time the connector starts, and shown and stored as "
        "written (docs/configuration-providers.md).",
    )
    spark_master: str = Field(
        "local[*]",
        description="For `connectworker spark`: the Spark master, e.g. `local[N]`, `spark://host:7077`, "
        "`yarn`, `k8s://...` (see docs/spark.md).",
    )

    pass_through: dict[str, str] = Field(default_factory=dict, exclude=True)
    unknown_keys: list[str] = Field(default_factory=list, exclude=True)
    _provider_values: frozenset[str] = PrivateAttr(frozenset())
    _rest_access: RestAccess | None = PrivateAttr(None)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return _WorkerEnvSource(settings_cls), init_settings

    @field_validator(
        "plugin_path",
        "config_providers",
        "connector_client_config_override_allowlist",
        "topic_creation_extra_configs",
        mode="before",
    )
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

    @property
    def max_tasks(self) -> int:
        """`worker.tasks.max`, or its default: 32 per CPU core."""
        return self.worker_tasks_max if self.worker_tasks_max is not None else 32 * (os.cpu_count() or 1)

    @property
    def task_process_count(self) -> int:
        """`task.processes`, or its default: one per CPU core this process may use (0: tasks as threads)."""
        if self.task_processes is not None:
            return self.task_processes
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)

    @property
    def max_tasks_per_connector(self) -> int:
        """`connector.tasks.max.limit`, or its default, `worker.tasks.max` (never above it)."""
        limit = self.connector_tasks_max_limit
        return self.max_tasks if limit is None else min(limit, self.max_tasks)

    @classmethod
    def from_properties(cls, props: Mapping[str, str], *, source: str | None = None) -> WorkerConfig:
        """Split props into declared keys, pass-through prefixes and unknown keys, then validate.

        Declared keys are read from the environment by pydantic-settings; `producer.*`/`admin.*` ones
        are read here, since their names cannot be declared in advance.
        """
        with WorkerReferences.opened(props, os.environ, source) as references:
            return cls.from_references(props, references, source=source)

    @classmethod
    def from_references(
        cls, props: Mapping[str, str], references: WorkerReferences, *, source: str | None = None
    ) -> WorkerConfig:
        """As `from_properties`, with the config providers `props` declares already open in `references`
        (whose owner may go on using them, for the connector files)."""
        config = cls._from_resolved(references.resolve_props(props), references, source=source)
        config._provider_values = frozenset(references.values)
        return config

    @classmethod
    def _from_resolved(
        cls, props: Mapping[str, str], references: WorkerReferences, *, source: str | None
    ) -> WorkerConfig:
        references.check()  # the file's references, before its values are validated
        declared = {worker_key(name) for name in cls.model_fields if name not in INTERNAL_FIELDS}
        values: dict[str, Any] = {}
        pass_through: dict[str, str] = {}
        unknown: list[str] = []
        for key, value in props.items():
            if key in declared:
                values[key.replace(".", "_")] = value
            elif key.startswith(PASS_THROUGH_PREFIXES) and worker_key_note(key) is None:
                pass_through[key] = value
            elif not is_obsolete_worker_key(key):
                unknown.append(key)
        pass_through.update(
            references.resolve_env(pass_through_from_env(os.environ, PASS_THROUGH_PREFIXES), os.environ)
        )
        token = _REFERENCES.set(references)
        try:
            config = cls(**values, pass_through=pass_through, unknown_keys=unknown)
        except ValidationError as exc:
            references.check()  # a value left unresolved explains its validation error
            raise config_error(exc, source) from None
        except SettingsError as exc:  # a variable pydantic-settings could not decode at all
            raise ConfigError({"": str(exc)}, source="the environment") from None
        finally:
            _REFERENCES.reset(token)
        references.check()
        check_clients(config, source, PASS_THROUGH_PREFIXES)  # the security keys: translated, or refused naming the key
        try:
            config._rest_access = config._read_rest_access()
        except ConfigError as exc:
            raise ConfigError(exc.problems, source=source) from None
        if config.exactly_once_enabled and not config.offset_storage_topic:
            raise ConfigError(
                {
                    "exactly.once.source.support": "enabled needs offset.storage.topic: each task "
                    "writes its source offsets to that topic in the same transaction as its "
                    "records, which an offsets file cannot take part in"
                },
                source=source,
            )
        where = source or "worker config"
        for line in worker_key_warnings({key: props[key] for key in unknown}, where, known=declared):
            log.warning("%s", line)
        fields = [f for f in cls.model_fields if f not in INTERNAL_FIELDS]
        env_ignored = variables_setting_nothing(os.environ, fields, PASS_THROUGH_PREFIXES)  # variable -> key
        for line in worker_key_warnings(
            {key: os.environ[var] for var, key in env_ignored.items()},
            "the environment",
            {key: f"{var} ({key})" for var, key in env_ignored.items()},
        ):
            log.warning("%s", line)
        if config.rest_keys_overridden:
            log.warning(
                "rest.port and rest.host.name are ignored because listeners is set (%s), as in Kafka", config.listeners
            )
        return config

    def open_config_providers(self) -> ConfigProviders:
        """The config providers `config.providers` declares, configured; the caller closes them."""
        return open_config_providers(self.config_providers, self.prefixed(PROVIDERS_PREFIX))

    def __getstate__(self) -> dict[Any, Any]:
        """A pickled config (the payload of a task process or a Spark task) leaves the REST API's listeners
        and credentials behind: a task never serves REST, and the passwords stay in the worker."""
        state = super().__getstate__()
        state["__pydantic_private__"] = {**(state.get("__pydantic_private__") or {}), "_rest_access": None}
        return state

    @property
    def rest_access(self) -> RestAccess:
        """The REST API's listeners and credentials, read with the file (read now if this config was not
        loaded from one)."""
        if self._rest_access is None:
            self._rest_access = self._read_rest_access()
        return self._rest_access

    def _read_rest_access(self) -> RestAccess:
        key = self.listeners_key
        variable = variable_for_field(key.replace(".", "_"), os.environ)
        return read_rest_access(
            self.listeners,
            self.prefixed("listeners.https."),
            self.rest_basic_auth_credentials_file,
            f"{variable} (sets {key})" if variable else key,
        )

    @property
    def provider_values(self) -> frozenset[str]:
        """The values config providers gave the worker config's references: secrets for the log redaction."""
        return self._provider_values

    @property
    def exactly_once_enabled(self) -> bool:
        return self.exactly_once_source_support == "enabled"

    def client_settings(
        self, client: Literal["producer", "admin"], overrides: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """librdkafka settings of a worker's `client`, a connector's `overrides` over them (see worker_clients)."""
        return worker_client_settings(self, client, overrides)

    def prefixed(self, prefix: str) -> dict[str, str]:
        """Pass-through keys under `prefix`, with the prefix removed (e.g. 'producer.')."""
        return {k[len(prefix) :]: v for k, v in self.pass_through.items() if k.startswith(prefix)}

    @property
    def uses_embedded_broker(self) -> bool:
        return self.bootstrap_servers == "embedded"
