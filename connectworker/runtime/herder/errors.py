"""What the herder refuses, as runtime errors; each front door (REST, CLI, tests) says it its own way.

Like Kafka Connect's `AlreadyExistsException` / `NotFoundException` / `BadRequestException`: the REST
layer maps them to 409 / 404 / 400. An unknown connector is the worker's `UnknownConnectorError`.
"""

from __future__ import annotations

from connectworker.api.errors import ConnectError


class ConnectorExistsError(ConnectError):
    """A connector of that name exists already."""


class InvalidRequestError(ConnectError):
    """The request contradicts itself or the connector's state (a name that does not match, offsets
    changed while the connector runs, a name Kafka would not accept)."""
