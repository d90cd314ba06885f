"""`POST /connectors/{name}/signals` and `…/tasks/{id}/signals` (beyond Kafka): an operator's signal to a
connector's running tasks, which read it from their context (api/operator.py); the CDC connectors take
Debezium's signals this way, as from Debezium's own channels."""

from __future__ import annotations

import uuid

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from connectworker.api.operator import OperatorSignal
from connectworker.rest.deps import ConnectorName, HerderDep, TaskId
from connectworker.rest.errors import NotFound, error_responses
from connectworker.rest.models import SignalRequest, SignalSent

router = APIRouter(tags=["signals"])


def _signal(body: SignalRequest) -> OperatorSignal:
    return OperatorSignal(body.id if body.id is not None else str(uuid.uuid4()), body.type, dict(body.data or {}))


def _sent(signal: OperatorSignal, tasks: list[int]) -> JSONResponse:
    return JSONResponse(SignalSent(id=signal.id, type=signal.type, tasks=tasks).model_dump(), status_code=202)


@router.post(
    "/connectors/{name}/signals",
    status_code=202,
    response_model=SignalSent,
    responses=error_responses(400, 404),
)
def signal_connector(name: ConnectorName, body: SignalRequest, herder: HerderDep) -> JSONResponse:
    """Hand the signal to each RUNNING or PAUSED task of the connector (202, naming them); 400 when none is."""
    signal = _signal(body)
    return _sent(signal, herder.signal(name, signal))


@router.post(
    "/connectors/{name}/tasks/{task_id}/signals",
    status_code=202,
    response_model=SignalSent,
    responses=error_responses(400, 404),
)
def signal_task(name: ConnectorName, task_id: TaskId, body: SignalRequest, herder: HerderDep) -> JSONResponse:
    """Hand the signal to this task (202); 400 unless it is RUNNING or PAUSED."""
    if herder.task_status(name, task_id) is None:
        raise NotFound(f"No status found for task {name}-{task_id}")
    signal = _signal(body)
    return _sent(signal, herder.signal(name, signal, task_id))
