"""Kafka Connect's REST API for a standalone worker, served with FastAPI on uvicorn (docs/rest.md).

A thin door onto the runtime: `server` binds the listeners and serves `app`, which assembles the
routes (`routes_*`) over the runtime's `StandaloneHerder`; the herder applies and persists every
change and raises runtime errors that `errors` maps to HTTP statuses. `models` are the JSON shapes,
`views` build them from the worker's state with secrets hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.rest.app import create_app
    from connectworker.rest.server import ListenerError, RestServer

_EXPORTS = {
    "ListenerError": "server",
    "RestServer": "server",
    "create_app": "app",
}
__all__ = [
    "ListenerError",
    "RestServer",
    "create_app",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
