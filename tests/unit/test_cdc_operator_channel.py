"""The CDC task's line to operators through the worker (connectors/debezium/operator_channel.py): signals
sent with the REST API read as Debezium signals of channel `rest`, and a snapshot's progress as the
document the worker shows, with the buttons that apply to it."""

from __future__ import annotations

import json
from dataclasses import asdict

from connectworker.connectors.debezium.operator_channel import RestSignalChannel, progress_document
from connectworker.connectors.debezium.signal_types import Signal, SnapshotProgress
from connectworker.runtime.observability.task_progress import progress_actions, snapshot_of
from connectworker.testing import InMemoryTaskContext


def test_rest_signals_are_debezium_signals_of_the_rest_channel() -> None:
    context = InMemoryTaskContext()
    channel = RestSignalChannel(context)
    context.send_signal("execute-snapshot", {"data-collections": ["public.a"], "type": "incremental"}, id="ad-hoc")
    context.send_signal("pause-snapshot", id="p")
    signals = channel.poll()
    assert signals == [
        Signal("ad-hoc", "execute-snapshot", '{"data-collections": ["public.a"], "type": "incremental"}', "rest"),
        Signal("p", "pause-snapshot", "{}", "rest"),
    ]
    assert json.loads(signals[0].data or "") == {"data-collections": ["public.a"], "type": "incremental"}
    assert channel.poll() == []


def test_a_running_incremental_snapshot_offers_pause_and_stop() -> None:
    progress = SnapshotProgress(
        kind="incremental", running=True, table="public.a", chunk_from="1", chunk_to="10", table_to="1000"
    )
    document = progress_document(progress)
    assert document is not None
    assert document["snapshot"] == asdict(progress)
    assert snapshot_of(document) is not None
    assert [(a.label, a.type, a.data) for a in progress_actions(document)] == [
        ("Pause snapshot", "pause-snapshot", {}),
        ("Stop snapshot", "stop-snapshot", {"type": "incremental"}),
    ]


def test_a_paused_one_offers_resume_and_stop_and_a_blocking_one_nothing() -> None:
    paused = progress_document(SnapshotProgress(kind="incremental", running=True, paused=True))
    assert [a.type for a in progress_actions(paused)] == ["resume-snapshot", "stop-snapshot"]
    blocking = progress_document(SnapshotProgress(running=True, kind="blocking"))
    assert progress_actions(blocking) == []
    assert progress_document(None) is None
