"""Status, tasks, restarts, and the target-state changes pause, resume and stop."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.responses import JSONResponse

from connectworker.rest.deps import ConnectorName, HerderDep, TaskId
from connectworker.rest.errors import NotFound, error_responses
from connectworker.rest.models import ConnectorStateInfo, TaskInfo, TaskState
from connectworker.rest.views import connector_status, task_infos, task_state

router = APIRouter(tags=["status and lifecycle"])


@router.get(
    "/connectors/{name}/status",
    response_model=ConnectorStateInfo,
    response_model_exclude_none=True,
    responses=error_responses(404),
)
def get_status(name: ConnectorName, herder: HerderDep) -> ConnectorStateInfo:
    return connector_status(herder.connector_status(name))


@router.get("/connectors/{name}/tasks", response_model=list[TaskInfo], responses=error_responses(404))
def get_tasks(name: ConnectorName, herder: HerderDep) -> list[TaskInfo]:
    return task_infos(name, herder.task_configs(name))


@router.get(
    "/connectors/{name}/tasks/{task_id}/status",
    response_model=TaskState,
    response_model_exclude_none=True,
    responses=error_responses(404),
)
def get_task_status(name: ConnectorName, task_id: TaskId, herder: HerderDep) -> TaskState:
    task = herder.task_status(name, task_id)
    if task is None:
        raise NotFound(f"No status found for task {name}-{task_id}")
    return task_state(task)


@router.post(
    "/connectors/{name}/tasks/{task_id}/restart",
    status_code=204,
    response_class=Response,
    responses=error_responses(404),
)
def restart_task(name: ConnectorName, task_id: TaskId, herder: HerderDep) -> Response:
    herder.restart_task(name, task_id)
    return Response(status_code=204)


@router.post(
    "/connectors/{name}/restart",
    status_code=204,
    response_class=Response,
    responses={
        202: {"model": ConnectorStateInfo, "description": "includeTasks or onlyFailed given: what is being restarted"},
        **error_responses(404),
    },
)
def restart_connector(
    name: ConnectorName,
    herder: HerderDep,
    include_tasks: Annotated[bool, Query(alias="includeTasks")] = False,
    only_failed: Annotated[bool, Query(alias="onlyFailed")] = False,
) -> Response:
    """Without flags: restart the connector (here its tasks restart too) and answer 204. With
    `includeTasks` and/or `onlyFailed`: restart what they select and answer 202 with the status, the
    restarted parts shown as RESTARTING."""
    plan = herder.restart(name, include_tasks, only_failed)
    if not include_tasks and not only_failed:
        return Response(status_code=204)
    status = connector_status(herder.connector_status(name, restarting=plan))
    return JSONResponse(status.model_dump(exclude_none=True), status_code=202)


@router.put("/connectors/{name}/pause", status_code=202, response_class=Response, responses=error_responses(404))
def pause(name: ConnectorName, herder: HerderDep) -> Response:
    herder.pause(name)
    return Response(status_code=202)


@router.put("/connectors/{name}/resume", status_code=202, response_class=Response, responses=error_responses(404))
def resume(name: ConnectorName, herder: HerderDep) -> Response:
    herder.resume(name)
    return Response(status_code=202)


@router.put("/connectors/{name}/stop", status_code=204, response_class=Response, responses=error_responses(404))
def stop(name: ConnectorName, herder: HerderDep) -> Response:
    """Stop the connector's tasks but keep the connector (STOPPED), e.g. to edit its offsets."""
    herder.stop(name)
    return Response(status_code=204)
