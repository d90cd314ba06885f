"""The worker's bounds on tasks: one connector's `tasks.max` against `connector.tasks.max.limit`, and
all connectors together against `worker.tasks.max`, so that no request can start more tasks than the
machine holds. Checked by the worker before a connector starts, from a file or through REST."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.worker_config import WorkerConfig

log = logging.getLogger(__name__)


def task_limit_problem(worker: WorkerConfig, tasks_max: int, taken: int) -> str | None:
    """Why a connector asking for `tasks_max` tasks may not run on a worker whose other connectors take
    `taken` tasks; None when it may."""
    if tasks_max > worker.max_tasks_per_connector:
        key = (
            "connector.tasks.max.limit"
            if worker.connector_tasks_max_limit is not None and worker.connector_tasks_max_limit < worker.max_tasks
            else "worker.tasks.max"
        )
        return (
            f"{tasks_max} is more tasks than this worker lets one connector run: at most "
            f"{worker.max_tasks_per_connector} (the worker's {key}). Lower tasks.max, or raise {key} "
            f"in the worker's config"
        )
    if taken + tasks_max > worker.max_tasks:
        room = max(0, worker.max_tasks - taken)
        return (
            f"the worker runs at most {worker.max_tasks} tasks (worker.tasks.max) and its other connectors "
            f"take {taken}, so this connector may ask for at most {room}. Lower tasks.max, remove a "
            f"connector, or raise worker.tasks.max"
        )
    return None


def check_task_limits(worker: WorkerConfig, connectors: Sequence[ConnectorConfig]) -> None:
    """Raise ConfigError naming `tasks.max` of each connector file that the limits refuse (taken in order)."""
    problems: list[str] = []
    taken = 0
    for config in connectors:
        problem = task_limit_problem(worker, config.tasks_max, taken)
        if problem is None:
            taken += config.tasks_max
        else:
            problems.append(f"connector {config.name!r}: tasks.max: {problem}")
    if problems:
        raise ConfigError("\n".join(problems))


def bounded_task_configs(
    connector: ConnectorConfig, configs: list[dict[str, str]], worker: WorkerConfig, taken: int
) -> list[dict[str, str]]:
    """The task `configs` a connector generated, held to its `tasks.max` as Kafka's KIP-1004 does
    (`tasks.max.enforce`) and to the worker's task limits (`taken`: what the other connectors take)."""
    if len(configs) <= connector.tasks_max:
        return configs
    if connector.tasks_max_enforce:
        raise ConnectError(
            f"Connector {connector.name} generated {len(configs)} task configs, more than its tasks.max "
            f"({connector.tasks_max}). A connector may not create more tasks than tasks.max allows; fix the "
            f"connector, or set tasks.max.enforce=false in its config to run them all for now."
        )
    problem = task_limit_problem(worker, len(configs), taken)
    if problem is not None:
        raise ConnectError(
            f"Connector {connector.name} generated {len(configs)} task configs (tasks.max.enforce=false): {problem}"
        )
    log.warning(
        "Connector %s generated %d task configs, more than its tasks.max (%d); running them all "
        "because tasks.max.enforce=false",
        connector.name,
        len(configs),
        connector.tasks_max,
    )
    return configs
