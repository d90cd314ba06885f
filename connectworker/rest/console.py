"""What the status page adds to make it a console: each connector's and task's records per second (a
number and a sparkline), the time since its last offset commit, its automatic restarts, its committed
offsets with those no task would use flagged, the actions its state allows (with why the others are
not), and the page's one script (`GET /ui/console.js`), which refreshes the page's live part and sends
the buttons' requests.

The script acts only through the REST API, on the page's own origin: the browser sends the credentials
it logged in to the page with, so with basic auth on the buttons work for whoever could open the page,
and for nobody else.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from importlib.resources import files

from fastapi import APIRouter
from fastapi.responses import Response

from connectworker.rest.sparkline import Sparkline, sparkline
from connectworker.runtime.herder import values

__all__ = ["Activity", "OffsetRow", "activity", "offset_edit_text", "offset_rows", "router", "unavailable_actions"]

router = APIRouter(tags=["status page"])
SCRIPT = files("connectworker.rest.templates").joinpath("console.js")


@dataclass(frozen=True)
class Activity:
    """A connector's or task's records per second and last commit, as the page shows them."""

    rate: float | None  # over the last 10 s of samples; None before there were two
    chart: Sparkline
    last_commit_at: float | None  # epoch seconds

    @property
    def rate_text(self) -> str:
        if self.rate is None:
            return "—"
        return f"{self.rate:,.0f}/s" if self.rate >= 100 else f"{self.rate:.1f}/s"

    def commit_age(self, now: float | None = None) -> str:
        if self.last_commit_at is None:
            return "no commit yet"
        age = max(0.0, (now if now is not None else time.time()) - self.last_commit_at)
        if age < 60:
            return f"{age:.0f} s ago"
        if age < 3600:
            return f"{age // 60:.0f} min {age % 60:.0f} s ago"
        return f"{age // 3600:.0f} h {age % 3600 // 60:.0f} min ago"


def activity(measured: values.Activity) -> Activity:
    return Activity(measured.rate, sparkline(measured.series, measured.keep_s), measured.last_commit_at)


@dataclass(frozen=True)
class OffsetRow:
    """A committed offset as the page shows it (JSON text), and why no task would use it, if none would."""

    partition: str
    offset: str
    unused: str | None


def offset_rows(uses: list[values.OffsetUse]) -> list[OffsetRow]:
    return [
        OffsetRow(json.dumps(use.partition, sort_keys=True), json.dumps(use.offset, sort_keys=True), use.unused)
        for use in uses
    ]


def offset_edit_text(uses: list[values.OffsetUse]) -> str:
    """The offsets as the body of `PATCH /connectors/{name}/offsets` (Kafka's shape), to edit in place."""
    body = {"offsets": [{"partition": use.partition, "offset": use.offset} for use in uses]}
    return json.dumps(body, indent=2, sort_keys=True)


def unavailable_actions(target_state: str, state: str) -> dict[str, str]:
    """Why each action the connector's state rules out is unavailable (its button is shown disabled with
    this as its title), by action; actions missing here are available. As Kafka: offsets change only
    while the connector is STOPPED, and a restart leaves a STOPPED connector stopped."""
    why: dict[str, str] = {}
    if target_state != "RUNNING" or state == "FAILED":
        why["pause"] = f"Pause applies to a RUNNING connector; this one is {state}"
    if target_state not in ("PAUSED", "STOPPED"):
        why["resume"] = f"Resume applies to a PAUSED or STOPPED connector; this one is {state}"
    if target_state == "STOPPED":
        why["stop"] = "The connector is already STOPPED"
        why["restart"] = "A STOPPED connector is not restarted; Resume it to start it again"
    else:
        stop_first = "Stop the connector first: offsets are reset or edited only while it is STOPPED"
        why["reset-offsets"] = why["alter-offsets"] = stop_first
    return why


@router.get("/ui/console.js", include_in_schema=False)
def console_script() -> Response:
    return Response(
        SCRIPT.read_bytes(),
        media_type="text/javascript; charset=utf-8",
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )
