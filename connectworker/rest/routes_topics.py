"""Topic tracking (`/topics`, `/topics/reset`) and, beyond Kafka, the topic-creation dry run
(`/topics/plan`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from connectworker.rest.deps import ConnectorName, HerderDep
from connectworker.rest.errors import BadRequest, error_responses
from connectworker.rest.models import ActiveTopicsInfo
from connectworker.topics.plan import PlanEntry

router = APIRouter(tags=["topics"])


@router.get("/connectors/{name}/topics", response_model=dict[str, ActiveTopicsInfo],
            responses=error_responses(404))
def get_topics(name: ConnectorName, herder: HerderDep) -> dict[str, ActiveTopicsInfo]:
    """The topics the connector's tasks have written to since it started or since the last reset."""
    running = herder.get(name)
    return {name: ActiveTopicsInfo(topics=sorted(running.topics))}


@router.put("/connectors/{name}/topics/reset", status_code=202, response_class=Response,
            responses=error_responses(404))
def reset_topics(name: ConnectorName, herder: HerderDep) -> Response:
    herder.reset_topics(name)
    return Response(status_code=202)


@router.get("/connectors/{name}/topics/plan", response_model=list[PlanEntry],
            response_model_exclude_unset=True, responses=error_responses(400, 404))
def plan_topics(name: ConnectorName, herder: HerderDep, topic: Annotated[list[str], Query()],
                validate_only: bool = False) -> list[PlanEntry]:
    """For each `topic`: would the worker create it, by which rule, with which settings (the same objects
    as `connectworker plan --json`). With `validate_only=true` the broker is asked too."""
    if not topic:
        raise BadRequest("Name at least one topic: ?topic=a&topic=b")
    return herder.plan(name, topic, validate_only)
