"""Automatic restarts of FAILED connectors and tasks (`auto.restart.*`, off by default), on Strimzi's
schedule: restart n (from 0) after base * (n*n + n), capped at an hour.

The herder calls `tick()` a few times a second from its supervisor thread. Each tick looks at every
connector that has `auto.restart.enabled=true`: a FAILED connector or task gets a restart scheduled
when its failure is first seen, and restarted through the herder's own restart path (the one the REST
API takes, minus the reset of the count) once that time comes. A connector or task that has run for
`healthy_after_s` (10 minutes) since its last automatic restart starts counting from 0 again; a REST
restart and a config change reset the count too (`reset`). After `auto.restart.max.restarts`
restarts the policy gives up: a WARN, a counted give-up, and a note after the status' trace.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from connectworker.api.errors import ConfigError
from connectworker.config.auto_restart import MAX_RESTARTS_KEY, AutoRestartSettings
from connectworker.runtime.observability.log_context import log_fields
from connectworker.runtime.observability.metrics import WorkerMetrics
from connectworker.runtime.status import State, Status
from connectworker.runtime.worker import RunningConnector, UnknownConnectorError, Worker

log = logging.getLogger(__name__)

HEALTHY_AFTER_S = 600.0  # Strimzi's "runs for a while": a restart count resets after 10 minutes RUNNING

Key = tuple[str, int | None]  # (connector, task id), None for the connector itself
RestartConnector = Callable[[str], None]
RestartTask = Callable[[str, int], None]


@dataclass
class _Track:
    """What the policy remembers of one connector or task since its count was last reset."""

    restarts: int = 0  # automatic restarts made
    due: float | None = None  # when the next one is made (monotonic), once a failure was seen
    failed: Status | None = None  # the failed status that restart is for
    running: Status | None = None  # the status seen RUNNING since `running_since`
    running_since: float | None = None
    gave_up: bool = False


def describe(key: Key) -> str:
    name, task_id = key
    return f"connector {name}" if task_id is None else f"task {name}-{task_id}"


def seconds(ms: int) -> str:
    """`ms` as a person reads it in a log line: "0 s", "1.5 s", "2 min", "60 min"."""
    if ms >= 60_000 and ms % 60_000 == 0:
        return f"{ms // 60_000} min"
    return f"{ms / 1000:g} s"


class AutoRestarter:
    """The restart policy of one herder; `tick()` from one thread at a time (the herder's supervisor)."""

    def __init__(
        self,
        worker: Worker,
        restart_connector: RestartConnector,
        restart_task: RestartTask,
        metrics: WorkerMetrics | None = None,
        *,
        healthy_after_s: float = HEALTHY_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._worker = worker
        self._restart_connector = restart_connector
        self._restart_task = restart_task
        self._metrics = metrics
        self._healthy_after_s = healthy_after_s
        self._clock = clock
        self._tracks: dict[Key, _Track] = {}
        self._lock = threading.Lock()  # `reset` comes from REST threads while a tick runs

    # -- what the herder tells it --------------------------------------------------------------
    def reset(self, name: str, task_id: int | None = None) -> None:
        """Forget the counts of connector `name` and all its tasks, or of its task `task_id` only (a REST
        restart, a config change, a deletion)."""
        with self._lock:
            for key in [k for k in self._tracks if k[0] == name and (task_id is None or k[1] == task_id)]:
                track = self._tracks.pop(key)
                if track.gave_up and track.failed is not None:
                    track.failed.clear_note()  # the count starts again: the policy has not given up any more

    def restarts(self, name: str, task_id: int | None = None) -> int:
        """Automatic restarts made since the count was last reset (for the status page)."""
        with self._lock:
            track = self._tracks.get((name, task_id))
            return track.restarts if track is not None else 0

    def given_up(self, name: str) -> set[int | None]:
        """The tasks (None: the connector itself) of connector `name` the policy has given up on."""
        with self._lock:
            return {
                task_id for (connector, task_id), track in self._tracks.items() if connector == name and track.gave_up
            }

    # -- the supervisor's tick -----------------------------------------------------------------
    def tick(self) -> None:
        names = self._worker.connector_names()
        with self._lock:
            for key in [k for k in self._tracks if k[0] not in names]:
                del self._tracks[key]
        for name in names:
            try:
                running = self._worker.get(name)
            except UnknownConnectorError:  # deleted since
                continue
            settings = self._settings(running)
            if settings is None or running.target_state is State.STOPPED:
                self.reset(name)
                continue
            watched: list[tuple[Key, Status]] = [((name, None), running.status)]
            watched += [((name, task.task_id), task.status) for task in list(running.tasks)]
            with self._lock:
                present = {key for key, _ in watched}
                for key in [k for k in self._tracks if k[0] == name and k not in present]:
                    del self._tracks[key]  # a task that no longer exists (fewer tasks after a reconfiguration)
            for key, status in watched:
                self._watch(key, status, settings)

    @staticmethod
    def _settings(running: RunningConnector) -> AutoRestartSettings | None:
        """The connector's settings when automatic restarts are on (as its connector received them: a
        key may be a `${provider:...}` reference)."""
        try:
            settings = AutoRestartSettings.from_props((running.resolved or running.config).props)
        except ConfigError:  # a reference not resolved yet: the connector fails when it starts, naming it
            return None
        return settings if settings.enabled else None

    def _watch(self, key: Key, status: Status, settings: AutoRestartSettings) -> None:
        now = self._clock()
        state = status.state
        with self._lock:
            track = self._tracks.get(key)
            if state is not State.FAILED:
                if track is not None:
                    self._still_running(key, track, status, state, now)
                return
            if track is None:
                track = self._tracks[key] = _Track()
            track.running = track.running_since = None
            if track.gave_up:
                # kept there while it stays FAILED, also when it was restarted by other means and failed again
                if track.failed is not status or status.note is None:
                    track.failed = status
                    status.add_note(State.FAILED, self._given_up_note(key, track.restarts))
                return
            if track.due is None or track.failed is not status:
                if settings.max_restarts is not None and track.restarts >= settings.max_restarts:
                    self._give_up(key, track, status)
                    return
                delay = settings.delay_ms(track.restarts)
                track.due, track.failed = now + delay / 1000, status
                if delay:
                    log.info(
                        "%s FAILED; automatic restart %d follows in %s",
                        describe(key).capitalize(),
                        track.restarts + 1,
                        seconds(delay),
                        extra=self._fields(key),
                    )
            if now < track.due:
                return
            track.restarts += 1
            track.due = None
            attempt = track.restarts
        self._restart(key, attempt, settings)

    def _still_running(self, key: Key, track: _Track, status: Status, state: State, now: float) -> None:
        """A connector or task that runs again: its count resets once it has run for long enough."""
        if state is not State.RUNNING:
            track.running = track.running_since = None
            return
        if track.running is not status or track.running_since is None:
            track.running, track.running_since = status, now
        elif now - track.running_since >= self._healthy_after_s:
            del self._tracks[key]
            log.info(
                "%s has run for %s since its last automatic restart: its restart count is reset",
                describe(key).capitalize(),
                seconds(int(self._healthy_after_s * 1000)),
                extra=self._fields(key),
            )

    def _restart(self, key: Key, attempt: int, settings: AutoRestartSettings) -> None:
        name, task_id = key
        limit = "" if settings.max_restarts is None else f" of at most {settings.max_restarts}"
        if settings.max_restarts is not None and attempt >= settings.max_restarts:
            then = f"the last one ({MAX_RESTARTS_KEY}): should it fail again, it stays FAILED"
        else:
            then = f"should it fail again, the next restart follows {seconds(settings.delay_ms(attempt))} after"
        log.warning(
            "Restarting %s automatically: restart %d%s (auto.restart.enabled); %s",
            describe(key),
            attempt,
            limit,
            then,
            extra=self._fields(key),
        )
        if self._metrics is not None:
            self._metrics.auto_restarted(name, task_id)
        try:
            if task_id is None:
                self._restart_connector(name)
            else:
                self._restart_task(name, task_id)
        except UnknownConnectorError:  # deleted, or its task gone, since the tick looked
            self.reset(name, task_id)
        except Exception:
            log.exception("The automatic restart of %s failed", describe(key), extra=self._fields(key))

    def _give_up(self, key: Key, track: _Track, status: Status) -> None:
        track.gave_up, track.failed, track.due = True, status, None
        log.warning(
            "Giving up on %s: still FAILED after %d automatic restart(s) (%s=%d); it stays FAILED "
            "until restarted through the REST API",
            describe(key),
            track.restarts,
            MAX_RESTARTS_KEY,
            track.restarts,
            extra=self._fields(key),
        )
        if self._metrics is not None:
            self._metrics.auto_restart_given_up(key[0], key[1])
        status.add_note(State.FAILED, self._given_up_note(key, track.restarts))

    @staticmethod
    def _given_up_note(key: Key, restarts: int) -> str:
        name, task_id = key
        path = f"/connectors/{name}/restart" if task_id is None else f"/connectors/{name}/tasks/{task_id}/restart"
        return (
            f"Automatic restarts gave up: still FAILED after {restarts} automatic restart(s) "
            f"({MAX_RESTARTS_KEY}={restarts}). Restart it through the REST API (POST {path})."
        )

    @staticmethod
    def _fields(key: Key) -> dict[str, object]:
        return log_fields(connector=key[0], task=key[1])
