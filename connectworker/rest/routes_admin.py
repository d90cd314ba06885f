"""`/` (server info), `/health` (Kafka's KIP-1017), `/metrics` (Prometheus) and `/admin/loggers` (log
levels at run time)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from connectworker import __version__
from connectworker.rest.deps import HerderDep
from connectworker.rest.errors import error_responses
from connectworker.rest.loggers import LoggerLevels
from connectworker.rest.models import LevelRequest, LoggerLevel, ServerInfo
from connectworker.runtime.herder.values import METRICS_CONTENT_TYPE

router = APIRouter(tags=["admin"])

COMMIT = "unknown"  # connectworker is not built with its commit id, unlike Kafka's jars


def _levels(request: Request) -> LoggerLevels:
    levels: LoggerLevels = request.app.state.loggers
    return levels


@router.get("/", response_model=ServerInfo)
def server_info(herder: HerderDep) -> ServerInfo:
    return ServerInfo(version=__version__, commit=COMMIT, kafka_cluster_id=herder.cluster_id())


@router.get("/health", responses={503: {"description": "starting, or the Kafka cluster is unreachable"}})
def health(herder: HerderDep) -> JSONResponse:
    """200 `{"status": "healthy", "message": …}` once the worker started its connectors; 503 with
    `"starting"` before, or `"unhealthy"` (naming the tasks) while a task cannot reach the cluster."""
    state = herder.health()
    return JSONResponse({"status": state.status, "message": state.message}, status_code=state.http_status)


@router.get("/metrics", response_class=Response)
def metrics(herder: HerderDep) -> Response:
    """The worker's metrics in Prometheus' text format (docs/metrics.md)."""
    return Response(herder.metrics_text(), media_type=METRICS_CONTENT_TYPE)


@router.get("/admin/loggers", response_model=dict[str, LoggerLevel])
def list_loggers(request: Request) -> dict[str, LoggerLevel]:
    """The root logger and every logger whose level is set explicitly."""
    return _levels(request).all()


@router.get("/admin/loggers/{logger}", response_model=LoggerLevel, responses=error_responses(404))
def get_logger(logger: str, request: Request) -> LoggerLevel:
    """The logger's effective level."""
    return _levels(request).get(logger)


@router.put(
    "/admin/loggers/{logger}",
    response_model=list[str],
    responses={
        204: {"description": "scope=cluster: applied (a standalone worker is the cluster)"},
        **error_responses(400),
    },
)
def set_logger(
    logger: str, body: LevelRequest, request: Request, scope: Annotated[str, Query()] = "worker"
) -> Response:
    """Set the level of the logger and of every logger below it; returns the loggers changed. With
    `scope=cluster` answer 204, as Kafka does (a standalone worker is its whole cluster); any other
    scope means this worker."""
    changed = _levels(request).set(logger, body.level)
    if scope.lower() == "cluster":
        return Response(status_code=204)
    return JSONResponse(changed)
