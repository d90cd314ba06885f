"""What starting a remote task takes, whichever places it (a task process, a Spark task): the worker's
handle on it, registered with the task channel, and the payload the other process runs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.offsets.storage_settings import OffsetStorageSettings
from connectworker.runtime.runners.remote_handle import RemoteTaskHandle
from connectworker.runtime.runners.remote_task import RemoteTask
from connectworker.runtime.runners.task_channel import TaskChannel
from connectworker.runtime.tasks.exactly_once_task import transactional_id
from connectworker.runtime.tasks.task_factory import TaskMetricsFactory, TopicGateFactory
from connectworker.runtime.tasks.task_spec import TaskSpec


@dataclass(frozen=True)
class RemoteStarts:
    """One placement's settings: `placement` names it in the log ("a task process"); `shows_host`: the
    REST status names the host a task reports from."""

    worker: WorkerConfig
    offsets: OffsetStorageSettings
    channel: TaskChannel
    topic_gates: TopicGateFactory
    task_metrics: TaskMetricsFactory | None
    placement: str
    shows_host: bool

    def prepare(
        self, spec: TaskSpec, *, paused: bool, on_topics: Callable[[set[str]], None], waiting_note: str
    ) -> tuple[RemoteTaskHandle, RemoteTask]:
        """The handle (UNASSIGNED with `waiting_note` until the task reports) and the payload; the caller
        registers the handle with the channel once the payload can be sent."""
        worker = self.worker
        eos_id = (
            transactional_id(worker.group_id, spec.connector, spec.task_id) if worker.exactly_once_enabled else None
        )
        handle = RemoteTaskHandle(
            spec,
            on_topics,
            paused=paused,
            transactional_id=eos_id,
            waiting_note=waiting_note,
            topic_gate=lambda: self.topic_gates(spec.config),
            placement=self.placement,
            shows_host=self.shows_host,
            metrics=self.task_metrics(spec.connector, spec.task_id) if self.task_metrics is not None else None,
        )
        payload = RemoteTask(
            spec,
            worker,
            self.offsets,
            self.channel.address,
            self.channel.token,
            handle.attempt,
            paused,
            tuple(str(Path(p).resolve()) for p in worker.plugin_path),
            placement=self.placement,
            log_level=logging.getLogger().getEffectiveLevel(),
        )
        return handle, payload
