"""Topic tracking (`/topics`, `/topics/reset`) and, beyond Kafka, the topic-creation dry run
(`/topics/plan`) and the drift of existing topics from their rules (`/topics/drift`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from connectworker.rest.deps import ConnectorName, HerderDep
from connectworker.rest.errors import BadRequest, error_responses
from connectworker.rest.models import ActiveTopicsInfo
from connectworker.topics.plan import PlanEntry

router = APIRouter(tags=["topics"])


@router.get("/connectors/{name}/topics", response_model=dict[str, ActiveTopicsInfo], responses=error_responses(404))
def get_topics(name: ConnectorName, herder: HerderDep) -> dict[str, ActiveTopicsInfo]:
    """The topics the connector's tasks have written to since it started or since the last reset."""
    return {name: ActiveTopicsInfo(topics=herder.active_topics(name))}


@router.put("/connectors/{name}/topics/reset", status_code=202, response_class=Response, responses=error_responses(404))
def reset_topics(name: ConnectorName, herder: HerderDep) -> Response:
    herder.reset_topics(name)
    return Response(status_code=202)


@router.get("/connectors/{name}/topics/drift", responses=error_responses(400, 404))
def topic_drift(
    name: ConnectorName, herder: HerderDep, topic: Annotated[list[str] | None, Query()] = None
) -> dict[str, Any]:
    """Each `topic` (default: those the connector wrote to or the worker created for it) compared with what
    its rule would create now: `in_sync`, and per topic the differences, each fixable in place or only by
    re-creating the topic (the same objects as `connectworker topics drift --json`). Nothing is changed."""
    report = herder.drift(name, topic or [])
    return {"in_sync": all(d.in_sync for d in report), "topics": [d.to_json() for d in report]}


@router.get(
    "/connectors/{name}/topics/plan",
    response_model=list[PlanEntry],
    response_model_exclude_unset=True,
    responses=error_responses(400, 404),
)
def plan_topics(
    name: ConnectorName, herder: HerderDep, topic: Annotated[list[str], Query()], validate_only: bool = False
) -> list[PlanEntry]:
    """For each `topic`: would the worker create it, by which rule, with which settings (the same objects
    as `connectworker plan --json`). With `validate_only=true` the broker is asked too."""
    if not topic:
        raise BadRequest("Name at least one topic: ?topic=a&topic=b")
    return herder.plan(name, topic, validate_only)
