"""A stream's incremental snapshot, when the connector has a signal table: made with the settings, its
notifications sent through the stream's sink, its hooks on the stream's emitter, its state restored from the
committed offset."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .emitter import ChangeEmitter, Sink
from .incremental_snapshot import IncrementalSnapshot
from .notifications import Notifier, java_hash_map
from .settings import CaptureSettings
from .signal_types import Notification


def incremental_snapshot(
    settings: CaptureSettings, emitter: ChangeEmitter, committed: Mapping[str, Any] | None
) -> IncrementalSnapshot | None:
    signals = settings.signals
    if not signals.table and signals.channels <= {"source"}:
        return None
    notifier = Notifier(signals.notification_channels, signals.notification_topic, settings.topic_prefix)

    def notify(sink: Sink, notification: Notification) -> None:
        """Through the stream's sink, which gives it the offset the connector is at, in order with the data."""
        ordered = replace(notification, additional_data=java_hash_map(notification.additional_data))
        pending = notifier.notify_pending(ordered, None)
        if pending is not None:
            _offset, key, value, route = pending
            sink(route, key, value, False)

    engine = IncrementalSnapshot(
        settings.topic_prefix,
        signals.table,
        chunk_size=signals.chunk_size,
        insert_delete=signals.insert_delete,
        notify=notify,
    )
    engine.restore(committed)
    emitter.watcher = engine.seen
    return engine
