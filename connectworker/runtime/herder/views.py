"""The herder's answers about one running connector, as values (`values.py`): its info, status, task
configs and, for the console, its activity; and the worker's health.

Config values are hidden by key (`secrets.hide`); the free text of failure traces cannot be, so every
trace goes through `redact` (the herder's, the code that also redacts the log lines), which replaces
each known secret value with ``[hidden]``.
"""

from __future__ import annotations

from collections.abc import Callable

from connectworker.api.errors import ConfigError
from connectworker.config.auto_restart import AutoRestartSettings
from connectworker.runtime.herder.auto_restart import AutoRestarter, seconds
from connectworker.runtime.herder.values import (
    Activity,
    ConnectorActivity,
    ConnectorInfo,
    ConnectorStatus,
    Health,
    RestartPlan,
    TaskConfig,
    TaskStatus,
)
from connectworker.runtime.observability.rates import RateHistory
from connectworker.runtime.observability.secrets import hide
from connectworker.runtime.observability.task_progress import shown_progress
from connectworker.runtime.runners.task_runner import TaskHandle
from connectworker.runtime.status import State
from connectworker.runtime.worker import RunningConnector, Worker

Redact = Callable[[str], str]
SPARKLINE_POINTS = 60


def connector_info(running: RunningConnector) -> ConnectorInfo:
    return ConnectorInfo(running.config.name, hide(running.config.props), [t.task_id for t in _tasks(running)])


def task_configs(running: RunningConnector) -> list[TaskConfig]:
    """Each task's own config, as Kafka's `GET /connectors/{name}/tasks` shows it: what the connector's
    `task_configs()` gave it plus `task.class`, config provider references unresolved, secrets hidden.
    (The task itself receives the connector's config with its own laid over it.)"""
    kept = running.task_configs
    task_class = _task_class_name(running)
    return [
        TaskConfig(t.task_id, hide({**(kept[t.task_id] if t.task_id < len(kept) else t.props), **task_class}))
        for t in _tasks(running)
    ]


def _task_class_name(running: RunningConnector) -> dict[str, str]:
    """`{"task.class": <module.Class>}` of the connector's tasks; empty when the connector never started."""
    if running.connector is None:
        return {}
    cls = running.connector.task_class()
    return {"task.class": f"{cls.__module__}.{cls.__qualname__}"}


def task_status(task: TaskHandle, worker_id: str, redact: Redact, restarting: bool = False) -> TaskStatus:
    state, trace = task.status.shown()
    worker = task.worker_id or worker_id
    if restarting:
        return TaskStatus(task.task_id, State.RESTARTING.value, worker, transactional_id=task.transactional_id)
    progress = shown_progress(state, task.stats().progress)
    return TaskStatus(task.task_id, state.value, worker, _shown_trace(trace, redact), task.transactional_id, progress)


def connector_status(
    running: RunningConnector, worker_id: str, redact: Redact, restarting: RestartPlan | None = None
) -> ConnectorStatus:
    """The connector's and its tasks' states; what `restarting` restarted shows RESTARTING, as Kafka's
    answer to a restart request does."""
    state, trace = running.status.shown()
    tasks = [
        task_status(t, worker_id, redact, restarting is not None and t.task_id in restarting.tasks)
        for t in _tasks(running)
    ]
    if restarting is not None and restarting.connector:
        return ConnectorStatus(running.config.name, State.RESTARTING.value, worker_id, None, tasks)
    return ConnectorStatus(running.config.name, state.value, worker_id, _shown_trace(trace, redact), tasks)


def worker_health(worker: Worker, *, started: bool) -> Health:
    """Kafka's worker health (KIP-1017), from what the worker knows without asking Kafka: starting
    until the connectors of the files and the store were started, unhealthy while a task's producer
    cannot reach the cluster."""
    if not started:
        return Health(503, "starting", "Worker is still starting up.")
    unreachable = [
        f"task {task.name}: {note}"
        for _, _, task in worker.status_snapshot()
        if task is not None and (note := task.stats().connectivity_note)
    ]
    if unreachable:
        return Health(503, "unhealthy", "Kafka cluster unreachable: " + "; ".join(unreachable))
    return Health(200, "healthy", "Worker has completed startup and is ready to handle requests.")


def find_task(running: RunningConnector, task_id: int) -> TaskHandle | None:
    return next((t for t in _tasks(running) if t.task_id == task_id), None)


def connector_activity(running: RunningConnector, rates: RateHistory, restarts: AutoRestarter) -> ConnectorActivity:
    name = running.config.name
    tasks = {
        task.task_id: _activity(rates, name, task.task_id, task.stats().last_commit_at) for task in _tasks(running)
    }
    commits = [a.last_commit_at for a in tasks.values() if a.last_commit_at is not None]
    counts = {task_id: restarts.restarts(name, task_id) for task_id in [None, *tasks]}
    return ConnectorActivity(
        running.target_state,
        _activity(rates, name, None, max(commits, default=None)),
        tasks,
        _auto_restart_summary(running),
        {task_id: n for task_id, n in counts.items() if n},
        frozenset(restarts.given_up(name)),
    )


def _activity(rates: RateHistory, name: str, task_id: int | None, last_commit_at: float | None) -> Activity:
    return Activity(
        rates.rate(name, task_id), rates.series(name, task_id, SPARKLINE_POINTS), rates.keep_s, last_commit_at
    )


def _auto_restart_summary(running: RunningConnector) -> str | None:
    """ "on, at most 5 restarts, base 1 min" when the connector's automatic restarts are on; else None."""
    try:
        settings = AutoRestartSettings.from_props(running.config.props)
    except ConfigError:  # a ${provider:...} reference: shown as off here, the policy reads the resolved value
        return None
    if not settings.enabled:
        return None
    n = settings.max_restarts
    limit = "no limit" if n is None else f"at most {n} restart{'' if n == 1 else 's'}"
    return f"on, {limit}, base {seconds(settings.backoff_base_ms)}"


def _shown_trace(trace: str | None, redact: Redact) -> str | None:
    return redact(trace) if trace else None


def _tasks(running: RunningConnector) -> list[TaskHandle]:
    """The live tasks; a copy, since a restart may replace the list while we read it."""
    return sorted(list(running.tasks), key=lambda t: t.task_id)
