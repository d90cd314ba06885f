"""Reading a worker's files: the worker config and its connector files, every problem found before
anything starts (`connectworker standalone`, `connectworker spark`, `connectworker plan`).

`load_worker_files` reads them in one go, with the config providers the worker file declares opened
once for the worker file and its connector files alike, and closed when both are read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from connectworker.api.errors import ConfigError
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.config.offsets_path import offsets_path_problem
from connectworker.config.properties import load_connector_file, load_properties
from connectworker.config.providers.references import ConfigProviders
from connectworker.config.providers.worker_refs import WorkerReferences
from connectworker.config.task_limits import check_task_limits
from connectworker.config.worker_config import WorkerConfig
from connectworker.config.worker_env import variable_for_field

__all__ = ["load_connector_configs", "load_worker_config", "load_worker_files"]


def load_worker_files(
    worker: str | Path, connectors: Sequence[str | Path], *, configured: Callable[[WorkerConfig], None] | None = None
) -> tuple[WorkerConfig, list[ConnectorConfig]]:
    """The worker config of `worker` (as `load_worker_config` checks it) and its `connectors` files,
    validated against it and within its task limits; one ConfigError naming every bad file and key.
    `configured` sees the worker config before the connector files are read (the command applies the
    file's `log.format` there, so their warnings are written in it)."""
    props = load_properties(worker)
    with WorkerReferences.opened(props, os.environ, str(worker)) as references:
        config = _checked(WorkerConfig.from_references(props, references, source=str(worker)), worker, True)
        if configured is not None:
            configured(config)
        configs = load_connector_configs(connectors, providers=references.providers, worker=config)
    check_task_limits(config, configs)
    return config, configs


def load_worker_config(path: str | Path, *, require_offsets_file: bool = True) -> WorkerConfig:
    """The worker config of `path`, its offsets path checked writable (its `plugin.path` is made importable
    when it is read: `WorkerReferences.open`)."""
    return _checked(WorkerConfig.from_properties(load_properties(path), source=str(path)), path, require_offsets_file)


def _checked(config: WorkerConfig, path: str | Path, require_offsets_file: bool) -> WorkerConfig:
    in_kafka = bool(config.offset_storage_topic and config.config_storage_topic)  # nothing kept on disk
    if require_offsets_file and not (in_kafka and not config.offset_storage_file_filename):
        if not config.offset_storage_file_filename:
            raise ConfigError(
                {
                    "offset.storage.file.filename": "required unless offset.storage.topic and "
                    "config.storage.topic are both set: the file where source offsets are committed "
                    "(with offset.storage.topic, offsets go to the topic and this file only places "
                    "the connector store, <file>.connectors.json)"
                },
                source=str(path),
            )
        problem = offsets_path_problem(config.offset_storage_file_filename)
        if problem is not None:  # found now, not at the first commit
            variable = variable_for_field("offset_storage_file_filename", os.environ)
            if variable is not None:
                raise ConfigError(
                    {f"{variable} (sets offset.storage.file.filename)": problem}, source="the environment"
                )
            raise ConfigError({"offset.storage.file.filename": problem}, source=str(path))
    return config


def load_connector_configs(
    paths: Sequence[str | Path], *, providers: ConfigProviders | None = None, worker: WorkerConfig | None = None
) -> list[ConnectorConfig]:
    """Parse every connector file; raise one ConfigError covering every bad file and key. With the
    worker's `providers`, values are validated with their references resolved (see
    `parse_connector_config`); `worker`'s override policy decides which client overrides a connector
    may set."""
    configs: list[ConnectorConfig] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    for path in paths:
        try:
            props = load_connector_file(path)
            config = parse_connector_config(props, source=str(path), providers=providers, worker=worker)
        except ConfigError as exc:
            errors.append(str(exc))
            continue
        if config.name in seen:
            errors.append(
                f"Invalid configuration in {path}:\n  name: connector {config.name!r} is already "
                f"defined in {seen[config.name]}"
            )
            continue
        seen[config.name] = str(path)
        configs.append(config)
    if errors:
        raise ConfigError("\n".join(errors))
    return configs
