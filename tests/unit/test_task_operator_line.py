"""A task's line to its operators, without a worker: the progress document a task reports (checked and
copied as the worker keeps it, refused with what is wrong), the signals it reads (each once, oldest
first; the oldest dropped with a WARN past the limit), the worker's handle of a task in another process
sending signals with its commands and forgetting the progress once the task ended, the testing kit's
context, and what the worker reads of a document (its `snapshot` and `actions`) and exports to
`/metrics`."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.registry import Collector

from connectworker.api import OperatorSignal, SourceRecord, SourceTask
from connectworker.api.operator import MAX_PROGRESS_BYTES, progress_document
from connectworker.runtime.observability.metrics import task_snapshots
from connectworker.runtime.observability.snapshot_metrics import snapshot_families
from connectworker.runtime.observability.task_progress import progress_actions, shown_progress, snapshot_of
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.runners.task_channel import _command_message
from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.operator_link import MAX_UNREAD_SIGNALS, OperatorLink
from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext
from connectworker.testing import InMemoryTaskContext, TaskHarness
from tests.unit.test_remote_task_handle import handle as remote_handle

SNAPSHOT = {
    "kind": "incremental",
    "running": True,
    "paused": False,
    "table": "public.orders",
    "tables_remaining": 1,
    "total_tables": 2,
    "chunk_id": "c-1",
    "chunk_from": "[11]",
    "chunk_to": "[20]",
    "table_from": "[1]",
    "table_to": "[1000]",
    "rows_scanned": {"public.orders": 20, "public.items": 7},
    "rows_sent": 20,
}


def test_a_progress_document_is_kept_as_a_copy_of_json_values() -> None:
    mine: dict[str, Any] = {"snapshot": {"rows": [1, 2]}, "at": 1.5, "note": None}
    kept = progress_document(mine)
    mine["snapshot"]["rows"].append(3)
    assert kept == {"snapshot": {"rows": [1, 2]}, "at": 1.5, "note": None}
    assert progress_document(None) is None


@pytest.mark.parametrize(
    ("progress", "message"),
    [
        (["not", "a", "mapping"], "a task's progress must be a mapping (a JSON object) or None, not list"),
        ({"tags": {"a"}}, "a task's progress must hold JSON values only: set {'a'} is not a JSON value"),
        (
            {"rate": float("nan")},
            "a task's progress must hold JSON values only: Out of range float values are not JSON compliant",
        ),
        ({1: "one"}, "a task's progress must have text keys (JSON object keys)"),
    ],
)
def test_a_progress_that_is_not_a_json_object_is_refused_saying_why(progress: Any, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        progress_document(progress)
    assert str(refused.value).startswith(message)


def test_a_progress_over_the_limit_is_refused_with_its_size() -> None:
    with pytest.raises(ValueError) as refused:
        progress_document({"data": "x" * MAX_PROGRESS_BYTES})
    assert str(refused.value) == (
        f"a task's progress is {MAX_PROGRESS_BYTES + 11} bytes as JSON, over the limit of {MAX_PROGRESS_BYTES}: "
        "report a summary (the current table, counts), not the data"
    )


def test_signals_are_handed_out_once_oldest_first_and_go_when_the_task_ends() -> None:
    link = OperatorLink("orders-0")
    link.deliver(OperatorSignal("a", "pause-snapshot"))
    link.deliver(OperatorSignal("b", "resume-snapshot", {"x": 1}))
    assert link.take_signals() == [
        OperatorSignal("a", "pause-snapshot"),
        OperatorSignal("b", "resume-snapshot", {"x": 1}),
    ]
    assert link.take_signals() == []
    link.report_progress({"snapshot": {"running": True}})
    link.deliver(OperatorSignal("c", "log"))
    link.ended()
    assert (link.progress, link.take_signals()) == (None, [])


def test_past_the_limit_the_oldest_unread_signal_is_dropped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    link = OperatorLink("orders-0")
    with caplog.at_level(logging.WARNING, logger="connectworker.runtime.tasks.operator_link"):
        for n in range(MAX_UNREAD_SIGNALS + 1):
            link.deliver(OperatorSignal(f"s{n}", "log"))
    assert [r.getMessage() for r in caplog.records] == [
        f"Task orders-0 has not read its last {MAX_UNREAD_SIGNALS} operator signals; dropped the oldest, 's0' "
        "(type log)"
    ]
    taken = link.take_signals()
    assert (len(taken), taken[0].id, taken[-1].id) == (MAX_UNREAD_SIGNALS, "s1", f"s{MAX_UNREAD_SIGNALS}")


def test_a_context_without_operators_checks_progress_and_has_no_signals() -> None:
    context = WorkerTaskContext(TaskOffsetReader({}), {})
    context.report_progress({"done": 3})
    assert context.operator_signals() == []
    with pytest.raises(ValueError, match="must be a mapping"):
        context.report_progress("3 done")  # type: ignore[arg-type]


def test_the_testing_kits_context_takes_signals_and_shows_the_progress() -> None:
    context = InMemoryTaskContext({"topic": "t"})
    sent = context.send_signal("execute-snapshot", {"data-collections": ["public.a"]}, id="ad-hoc")
    generated = context.send_signal("pause-snapshot")
    assert sent == OperatorSignal("ad-hoc", "execute-snapshot", {"data-collections": ["public.a"]})
    assert context.operator_signals() == [sent, generated]
    assert len(generated.id) == 36  # a UUID, as the worker gives one
    context.report_progress({"snapshot": SNAPSHOT})
    assert context.progress == {"snapshot": SNAPSHOT}


class SignalEcho(SourceTask):
    """Sends one record per signal it reads and reports how many it read."""

    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        self.read = 0

    def poll(self) -> list[SourceRecord]:
        signals = self.context.operator_signals()
        self.read += len(signals)
        self.context.report_progress({"signals_read": self.read})
        return [SourceRecord(None, None, "signals", s.type, s.id) for s in signals]

    def stop(self) -> None:
        return None


def test_a_task_reads_signals_and_reports_progress_in_the_harness() -> None:
    harness = TaskHarness(SignalEcho, {})
    with harness:
        harness.context.send_signal("log", {"message": "hi"}, id="one")
        records = harness.poll_until(records=1)
        assert [(r.key, r.value) for r in records] == [("one", "log")]
        assert harness.context.progress == {"signals_read": 1}


def test_a_remote_task_gets_its_signals_with_the_next_command_once() -> None:
    handle = remote_handle()
    pushed: list[dict[str, Any]] = []
    handle.attach(lambda: pushed.append(_command_message(handle, None)))
    handle.signal(OperatorSignal("p", "pause-snapshot", {"k": "v"}))
    assert pushed == [{"command": "run", "signals": [{"id": "p", "type": "pause-snapshot", "data": {"k": "v"}}]}]
    assert _command_message(handle, None) == {"command": "run"}  # sent once
    assert OperatorSignal.from_json(pushed[0]["signals"][0]) == OperatorSignal("p", "pause-snapshot", {"k": "v"})


def test_a_remote_tasks_progress_comes_with_its_stats_and_goes_when_it_ends() -> None:
    handle = remote_handle()
    handle.on_report({"state": "RUNNING", "stats": {"produced": 3, "progress": {"snapshot": SNAPSHOT}}})
    assert handle.stats().progress == {"snapshot": SNAPSHOT}
    handle.ended_with("the task process died")
    assert handle.stats().progress is None and handle.stats().produced == 3


def test_progress_is_shown_only_while_the_task_runs_or_is_paused() -> None:
    document = {"snapshot": SNAPSHOT}
    assert shown_progress(State.RUNNING, document) == document
    assert shown_progress(State.PAUSED, document) == document
    assert shown_progress(State.FAILED, document) is None
    assert shown_progress(State.STOPPED, document) is None
    assert shown_progress(State.RUNNING, {}) is None


def test_the_snapshot_member_is_read_leniently() -> None:
    view = snapshot_of({"snapshot": SNAPSHOT})
    assert view is not None
    assert (view.kind, view.running, view.paused, view.table, view.chunk_from, view.table_to, view.rows_sent) == (
        "incremental",
        True,
        False,
        "public.orders",
        "[11]",
        "[1000]",
        20,
    )
    odd = snapshot_of({"snapshot": {"running": "yes", "rows_sent": "20", "chunk_to": [20, "b"], "rows_scanned": []}})
    assert odd is not None
    assert (odd.running, odd.rows_sent, odd.chunk_to, odd.rows_scanned, odd.table) == (False, 0, "[20, b]", {}, None)
    assert snapshot_of({"snapshot": "running"}) is None
    assert snapshot_of(None) is None


def test_actions_without_a_label_or_a_signal_type_are_left_out() -> None:
    actions = progress_actions(
        {
            "actions": [
                {"label": "Pause snapshot", "signal": {"type": "pause-snapshot"}},
                {"label": "Stop", "signal": {"type": "stop-snapshot", "data": {"type": "incremental"}}},
                {"label": "", "signal": {"type": "x"}},
                {"label": "No signal"},
                "nonsense",
            ]
        }
    )
    assert [(a.label, a.type, a.data) for a in actions] == [
        ("Pause snapshot", "pause-snapshot", {}),
        ("Stop", "stop-snapshot", {"type": "incremental"}),
    ]
    assert progress_actions({"actions": "none"}) == []


class Watched:
    def __init__(self, task_id: int, state: State, progress: dict[str, Any] | None) -> None:
        self.connector, self.task_id = "cdc", task_id
        self.status = Status()
        self.status.set(state)
        self._stats = TaskStats(progress=progress)

    def stats(self) -> TaskStats:
        return self._stats


def scrape(tasks: list[Watched]) -> str:
    class Families(Collector):
        def collect(self) -> Any:
            return snapshot_families(task_snapshots(tasks), "connectworker_", ["connector", "task"])

    registry = CollectorRegistry()
    registry.register(Families())
    return generate_latest(registry).decode()


def test_snapshot_gauges_carry_debeziums_snapshot_metrics() -> None:
    text = scrape(
        [
            Watched(0, State.RUNNING, {"snapshot": SNAPSHOT}),
            Watched(1, State.RUNNING, {"other": 1}),  # no snapshot: no series
            Watched(2, State.FAILED, {"snapshot": SNAPSHOT}),  # not running: none either
        ]
    )
    samples = sorted(line for line in text.splitlines() if not line.startswith("#"))
    assert samples == [
        'connectworker_snapshot_chunk_info{chunk_from="[11]",chunk_id="c-1",chunk_to="[20]",connector="cdc",'
        'kind="incremental",table="public.orders",table_from="[1]",table_to="[1000]",task="0"} 1.0',
        'connectworker_snapshot_paused{connector="cdc",task="0"} 0.0',
        'connectworker_snapshot_remaining_table_count{connector="cdc",task="0"} 1.0',
        'connectworker_snapshot_rows_scanned{connector="cdc",table="public.items",task="0"} 7.0',
        'connectworker_snapshot_rows_scanned{connector="cdc",table="public.orders",task="0"} 20.0',
        'connectworker_snapshot_running{connector="cdc",task="0"} 1.0',
        'connectworker_snapshot_total_table_count{connector="cdc",task="0"} 2.0',
    ]
    assert "(Debezium SnapshotRunning)" in text and "(Debezium RowsScanned)" in text


def test_no_snapshot_gauges_while_no_task_snapshots() -> None:
    assert scrape([Watched(0, State.RUNNING, None)]) == ""
