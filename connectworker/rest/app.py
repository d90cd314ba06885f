"""The FastAPI application: Kafka Connect's REST resources over a `Herder`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI

from connectworker import __version__
from connectworker.rest import (
    console,
    routes_admin,
    routes_connectors,
    routes_lifecycle,
    routes_offsets,
    routes_plugins,
    routes_signals,
    routes_topics,
    status_page,
)
from connectworker.rest.auth import BasicAuthMiddleware
from connectworker.rest.body_limit import MAX_BODY_BYTES, BodyLimitMiddleware
from connectworker.rest.cross_site import CrossSiteWriteGuard
from connectworker.rest.errors import install_error_handlers
from connectworker.rest.loggers import LoggerLevels
from connectworker.rest.models import ErrorMessage
from connectworker.rest.unexpected_errors import UnexpectedErrorMiddleware
from connectworker.runtime.herder.protocol import Herder

DESCRIPTION = (
    "Manage a connectworker worker with Kafka Connect's REST API: same paths, status codes and "
    "JSON shapes, so Kafka Connect clients work unchanged. Errors are "
    '`{"error_code": <status>, "message": …}`.'
)


def create_app(herder: Herder, *, credentials: Mapping[str, str] | None = None) -> FastAPI:
    app = FastAPI(title="connectworker REST API", version=__version__, description=DESCRIPTION)
    app.state.herder = herder
    app.state.loggers = LoggerLevels()
    for module in (
        routes_admin,
        routes_connectors,
        routes_lifecycle,
        routes_topics,
        routes_offsets,
        routes_signals,
        routes_plugins,
        status_page,
        console,
    ):
        app.include_router(module.router)
    install_error_handlers(app)
    app.add_middleware(UnexpectedErrorMiddleware)  # innermost: right around the routes and their handlers
    app.add_middleware(BodyLimitMiddleware, max_bytes=MAX_BODY_BYTES)
    app.add_middleware(CrossSiteWriteGuard)  # before any body is read
    if credentials:  # added last, so it runs first: strangers are refused before their body is read
        app.add_middleware(BasicAuthMiddleware, credentials=credentials)
    _declare_400_not_422(app)
    return app


def _declare_400_not_422(app: FastAPI) -> None:
    """Malformed requests answer 400 (as Kafka), not FastAPI's 422, bodies over the limit 413, and bodies
    that are not JSON 415: say so in the OpenAPI document."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        error_ref = {"$ref": "#/components/schemas/ErrorMessage"}
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.setdefault("ErrorMessage", ErrorMessage.model_json_schema())
        for name in ("HTTPValidationError", "ValidationError"):
            components.pop(name, None)
        for path in schema.get("paths", {}).values():
            for operation in path.values():
                responses = operation.get("responses", {})
                if responses.pop("422", None) is not None:
                    responses.setdefault(
                        "400", {"description": "Bad Request", "content": {"application/json": {"schema": error_ref}}}
                    )
                if "requestBody" in operation:
                    responses.setdefault(
                        "413",
                        {
                            "description": f"Body larger than {MAX_BODY_BYTES} bytes",
                            "content": {"application/json": {"schema": error_ref}},
                        },
                    )
                    responses.setdefault(
                        "415",
                        {
                            "description": "A body sent as anything but application/json",
                            "content": {"application/json": {"schema": error_ref}},
                        },
                    )
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
