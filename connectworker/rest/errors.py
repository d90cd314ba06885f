"""Errors as Kafka Connect reports them: ``{"error_code": <http status>, "message": …}``, for our own
errors, for unknown connectors (404), for malformed requests (400, where FastAPI would say 422), for
unknown paths or methods, and for unexpected exceptions (500, the message but never a traceback: that
goes to the log). Messages that may quote a config value pass through the herder's secret redaction."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.rest.models import ErrorMessage
from connectworker.runtime.herder.errors import ConnectorExistsError, InvalidRequestError, UnknownConnectorError

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


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    # A message quoting request input may hold a lone surrogate, which UTF-8 cannot encode: escape it, so
    # that the error can always be sent.
    text = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return JSONResponse(ErrorMessage(error_code=status, message=text).model_dump(), status_code=status, headers=headers)


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The `responses=` of a route: each status answers with an ErrorMessage."""
    return {status: {"model": ErrorMessage} for status in statuses}


def redacted(app: Any, message: str) -> str:
    """`message` with the secret values `app`'s herder knows hidden, as in the log lines (`log_redaction`)."""
    herder = getattr(getattr(app, "state", None), "herder", None)
    return herder.redact(message) if herder is not None else message


def _describe(error: Any) -> str:
    where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "request"
    return f"{where}: {error.get('msg', 'invalid')}"


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _malformed_json(exc: RequestValidationError) -> str | None:
    """Where a body that is not JSON went wrong, by line and column (FastAPI gives a character offset)."""
    for error in exc.errors():
        if error.get("type") == "json_invalid" and isinstance(exc.body, str | bytes):
            doc = exc.body if isinstance(exc.body, str) else exc.body.decode("utf-8", "replace")
            position = int(error["loc"][1]) if len(error.get("loc", ())) > 1 else 0
            line = doc.count("\n", 0, position) + 1
            column = position - (doc.rfind("\n", 0, position) + 1) + 1
            why = (error.get("ctx") or {}).get("error", "not JSON")
            return f"Malformed JSON at line {line}, column {column}: {why}"
    return None


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RestError)
    async def rest_error(request: Request, exc: RestError) -> JSONResponse:
        return error_response(exc.status, redacted(request.app, exc.message))

    @app.exception_handler(UnknownConnectorError)
    async def unknown_connector(request: Request, exc: UnknownConnectorError) -> JSONResponse:
        return error_response(404, str(exc))

    @app.exception_handler(ConnectorExistsError)
    async def connector_exists(request: Request, exc: ConnectorExistsError) -> JSONResponse:
        return error_response(409, redacted(request.app, str(exc)))

    @app.exception_handler(InvalidRequestError)
    async def invalid_request_to_herder(request: Request, exc: InvalidRequestError) -> JSONResponse:
        return error_response(400, redacted(request.app, str(exc)))

    @app.exception_handler(ConfigError)
    async def config_error(request: Request, exc: ConfigError) -> JSONResponse:
        return error_response(400, redacted(request.app, str(exc)))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        body_problem = any(tuple(e.get("loc", ()))[:1] == ("body",) for e in exc.errors())
        if body_problem and not _is_json(request.headers.get("content-type")):
            # as Kafka Connect (Jersey) answers a body it cannot read: its endpoints consume JSON only
            return error_response(415, "HTTP 415 Unsupported Media Type: send the body as application/json")
        malformed = _malformed_json(exc)
        if malformed is not None:
            return error_response(400, malformed)
        problems = "; ".join(_describe(e) for e in exc.errors()[:10])
        return error_response(400, f"Invalid request: {problems}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(ConnectError)
    async def connect_error(request: Request, exc: ConnectError) -> JSONResponse:
        log.error("%s %s failed: %s", request.method, request.url.path, exc)
        return error_response(500, redacted(request.app, str(exc)))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Reached only from the outer middlewares: `UnexpectedErrorMiddleware` answers for everything inside.
        # Starlette re-raises after answering, so the server logs the traceback (redacted) once.
        return error_response(500, redacted(request.app, f"Unexpected error: {type(exc).__name__}: {exc}"))
