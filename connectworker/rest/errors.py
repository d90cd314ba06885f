"""Errors as Kafka Connect reports them: ``{"error_code": <http status>, "message": …}``, for our own
errors, for unknown connectors (404), for malformed requests (400, where FastAPI would say 422) and for
unknown paths or methods."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.rest.models import ErrorMessage
from connectworker.runtime.worker import UnknownConnectorError

log = logging.getLogger(__name__)


class RestError(ConnectError):
    """An error with the HTTP status to answer with."""

    status = 500

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class BadRequest(RestError):
    status = 400


class NotFound(RestError):
    status = 404


class Conflict(RestError):
    status = 409


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(ErrorMessage(error_code=status, message=message).model_dump(), status_code=status,
                        headers=headers)


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The `responses=` of a route: each status answers with an ErrorMessage."""
    return {status: {"model": ErrorMessage} for status in statuses}


def _describe(error: Any) -> str:
    where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "request"
    return f"{where}: {error.get('msg', 'invalid')}"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RestError)
    async def rest_error(request: Request, exc: RestError) -> JSONResponse:
        return error_response(exc.status, exc.message)

    @app.exception_handler(UnknownConnectorError)
    async def unknown_connector(request: Request, exc: UnknownConnectorError) -> JSONResponse:
        return error_response(404, str(exc))

    @app.exception_handler(ConfigError)
    async def config_error(request: Request, exc: ConfigError) -> JSONResponse:
        return error_response(400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(_describe(e) for e in exc.errors()[:10])
        return error_response(400, f"Invalid request: {problems}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(ConnectError)
    async def connect_error(request: Request, exc: ConnectError) -> JSONResponse:
        log.error("%s %s failed: %s", request.method, request.url.path, exc)
        return error_response(500, str(exc))
