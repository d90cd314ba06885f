"""`GET /ui`: a status page and console for people, rendered on the server from the same herder the REST
API uses.

It shows every connector with its tasks, those failing (FAILED, or with a FAILED task) first and marked,
under counts of connectors, failing ones and FAILED tasks (the worker's own health, Kafka's `/health`
liveness answer, is shown apart); a FAILED trace, redacted like the API's, opens in place. Per connector:
records per second with a sparkline of the last minutes and the time since the last commit
(console.py), its config (secrets hidden), the topics the worker created for it (settings and the rule
that matched), its committed offsets (those no task would use flagged, with the connector's reason) and
the topics it writes to. It answers a topic-plan form (`?connector=NAME&topics=a,b`) in place: bad input
(no or an unknown connector, no topics, an illegal topic name) is said on the page, with a 4xx status.
Its one script (`/ui/console.js`) swaps in the live part (`GET /ui/live`, the same HTML) every two
seconds and sends the buttons' requests to the REST API: Pause, Resume, Stop, Restart, Delete, Reset
offsets and Edit offsets, each enabled only in the states it applies to (a disabled one says why), and
the buttons a task's progress document asks for beside its snapshot line, each sending the task a signal.
Jinja2 escapes everything it shows, the script inserts only that escaped HTML and text, a
Content-Security-Policy allows no script but the page's own, and the page sits behind the API's
authentication (the app-wide middleware). Without JavaScript it still shows everything, as of its
loading.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, select_autoescape

from connectworker import __version__
from connectworker.api.errors import ConnectError
from connectworker.rest.console import (
    Activity,
    OffsetRow,
    activity,
    offset_edit_text,
    offset_rows,
    unavailable_actions,
)
from connectworker.rest.deps import HerderDep
from connectworker.runtime.herder.errors import UnknownConnectorError
from connectworker.runtime.herder.protocol import Herder
from connectworker.runtime.herder.values import CreatedTopic, TaskStatus
from connectworker.topics.names import validate_topic_name
from connectworker.topics.plan import PlanEntry

__all__ = ["router"]

router = APIRouter(tags=["status page"])
_templates = Environment(
    loader=PackageLoader("connectworker.rest", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
MAX_PLAN_TOPICS = 100
MAX_TOPICS_TEXT = 20_000
_SEPARATORS = re.compile(r"[\s,]+")  # topic names hold neither commas nor white space
HEADERS = {  # no script but ours, no frame, no foreign form target: escaping is not the only defence
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; connect-src 'self'; "
    "style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@dataclass
class ConnectorView:
    """One connector as the page shows it."""

    name: str
    connector_class: str
    state: str
    trace: str | None
    tasks: list[TaskStatus]
    created: list[CreatedTopic]
    offsets: list[OffsetRow]
    offsets_text: str  # the offsets as a PATCH body, for the edit form
    topics: list[str]
    activity: Activity
    task_activity: dict[int, Activity]
    auto_restart: str | None  # the automatic restarts' settings, when they are on
    auto_restarts: dict[int | None, int]  # automatic restarts since the count was reset, by task (None: itself)
    given_up: frozenset[int | None]  # the tasks (None: itself) the automatic restarts gave up on
    config: dict[str, str]  # as written, secrets hidden
    unavailable: dict[str, str]  # why an action the state rules out is unavailable, by action

    @property
    def failed_tasks(self) -> int:
        return sum(1 for task in self.tasks if task.state == "FAILED")

    @property
    def failing(self) -> bool:
        """FAILED itself or with a FAILED task: shown first, and marked, wherever it is listed."""
        return self.state == "FAILED" or self.failed_tasks > 0

    @property
    def unused_offsets(self) -> int:
        return sum(1 for row in self.offsets if row.unused)


@dataclass
class PlanView:
    connector: str = ""
    topics: str = ""
    entries: list[PlanEntry] = field(default_factory=list)
    error: str | None = None
    problems: list[str] = field(default_factory=list)


def _connector_view(herder: Herder, name: str) -> ConnectorView:
    status = herder.connector_status(name)  # what GET …/status answers
    info = herder.connector_info(name)
    measured = herder.activity(name)
    uses = herder.offset_uses(name)  # as last read: `_live` read the store again once for all connectors
    return ConnectorView(
        name,
        info.config.get("connector.class", ""),
        status.state,
        status.trace,
        status.tasks,
        herder.created_topics(name),
        offset_rows(uses),
        offset_edit_text(uses),
        herder.active_topics(name),
        activity(measured.connector),
        {task_id: activity(a) for task_id, a in measured.tasks.items()},
        measured.auto_restart,
        measured.auto_restarts,
        measured.given_up,
        info.config,
        unavailable_actions(measured.target_state.value, status.state),
    )


def _plan(herder: Herder, connector: str, topics: str) -> tuple[PlanView, int]:
    """The plan form's answer, and the page's status: 400 for bad input, 404 for an unknown connector."""
    view = PlanView(connector, topics[:MAX_TOPICS_TEXT])
    if not connector:
        view.error = "Choose a connector to plan topics for."
        return view, 400
    if connector not in herder.names():
        view.error = f"Connector {connector} not found."
        return view, 404
    if len(topics) > MAX_TOPICS_TEXT:
        view.error = f"The topic list is too long: at most {MAX_TOPICS_TEXT} characters."
        return view, 400
    names = list(dict.fromkeys(t for t in _SEPARATORS.split(topics) if t))
    if not names:
        view.error = "Name at least one topic (separated by commas or spaces)."
        return view, 400
    if len(names) > MAX_PLAN_TOPICS:
        view.error = f"Name at most {MAX_PLAN_TOPICS} topics at a time; got {len(names)}."
        return view, 400
    if illegal := [why for name in names if (why := validate_topic_name(name)) is not None]:
        view.error = "Not a legal Kafka topic name; correct it and plan again:"
        view.problems = illegal
        return view, 400
    try:
        view.entries = herder.plan(connector, names, validate_only=False)
    except UnknownConnectorError:
        view.error = f"Connector {connector} not found."
        return view, 404
    except ConnectError as exc:
        view.error = herder.redact(str(exc))
        return view, 400
    return view, 200


@router.get("/ui", response_class=HTMLResponse, include_in_schema=False)
def status_page(
    herder: HerderDep, connector: Annotated[str | None, Query()] = None, topics: Annotated[str | None, Query()] = None
) -> HTMLResponse:
    """The page; with `connector` or `topics` given, the plan form's answer too."""
    plan, status = (
        (PlanView(), 200)
        if connector is None and topics is None
        else _plan(herder, (connector or "").strip(), topics or "")
    )
    html = _templates.get_template("status.html").render(plan=plan, **_live(herder))
    return HTMLResponse(html, status_code=status, headers=HEADERS)


@router.get("/ui/live", response_class=HTMLResponse, include_in_schema=False)
def live_part(herder: HerderDep) -> HTMLResponse:
    """The page's live part alone (header facts, overview and connector cards), which its script swaps in."""
    return HTMLResponse(_templates.get_template("live.html").render(**_live(herder)), headers=HEADERS)


def _live(herder: Herder) -> dict[str, Any]:
    """What the live part is rendered from."""
    connectors = []
    herder.read_offsets_again()
    for name in herder.names():
        try:
            connectors.append(_connector_view(herder, name))
        except UnknownConnectorError:  # deleted while the page was being put together
            continue
    connectors.sort(key=lambda c: (not c.failing, c.name))  # failing ones first: where the eye lands
    return {
        "version": __version__,
        "now": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "health": herder.health(),
        "connectors": connectors,
        "summary": _summary(connectors),
        "cluster_id": herder.cluster_id(),
        "format_time": _format_time,
        "epoch": time.time(),
    }


def _summary(connectors: list[ConnectorView]) -> dict[str, int]:
    """The page's counts: connectors, those failing (FAILED or with a FAILED task), FAILED tasks, ..."""
    states = [c.state for c in connectors]
    return {
        "connectors": len(connectors),
        "failing": sum(1 for c in connectors if c.failing),
        "failed_connectors": states.count("FAILED"),
        "failed_tasks": sum(c.failed_tasks for c in connectors),
        "tasks": sum(len(c.tasks) for c in connectors),
        "paused": states.count("PAUSED"),
        "stopped": states.count("STOPPED"),
    }


def _format_time(epoch_s: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch_s))
