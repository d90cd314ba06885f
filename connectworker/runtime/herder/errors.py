"""What the herder refuses, as runtime errors; each front door (REST, CLI, tests) says it its own way.

Like Kafka Connect's `AlreadyExistsException` / `NotFoundException` / `BadRequestException`: the REST
layer maps them to 409 / 404 / 400. An unknown connector is the worker's `UnknownConnectorError`,
named here too, so a front door needs this module alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.connector_names import connector_name_problem
from connectworker.runtime.observability.secrets import scrub, secret_keys
from connectworker.runtime.worker import UnknownConnectorError

__all__ = [
    "ConnectorExistsError",
    "InvalidRequestError",
    "UnknownConnectorError",
    "check_config_name",
    "check_request_name",
    "invalid_config",
]


class ConnectorExistsError(ConnectError):
    """A connector of that name exists already."""


class InvalidRequestError(ConnectError):
    """The request contradicts itself or the connector's state (a name that does not match, offsets
    changed while the connector runs, a name Kafka would not accept)."""


def check_request_name(name: str) -> None:
    """Refuse a connector name Kafka would not accept, or one with whitespace around it (REST uses the
    name as given; the config's name would be stripped and so not match it). The message does not quote
    the name: it may be huge, and the client sent it."""
    problem = connector_name_problem(name)
    if problem is None and name != name.strip():
        problem = "Connector name must not start or end with whitespace"
    if problem is not None:
        raise InvalidRequestError(problem)


def check_config_name(config: Mapping[str, str | None], name: str) -> None:
    """Kafka's `checkAndPutConnectorConfigName`: a `name` a request's config holds must be the connector's
    name in the URL (absent, the caller puts the URL's name in)."""
    given = config.get("name")
    if given is not None and given != name:
        raise InvalidRequestError(
            f"Connector name configuration ({given}) doesn't match connector name in the URL ({name})"
        )


def invalid_config(props: Mapping[str, str], error: ConfigError) -> InvalidRequestError:
    """A refused connector config as Kafka Connect's REST API words it: every problem with its key (the
    value of a secret key scrubbed), and where the same list is found."""
    secret = secret_keys(props)
    problems = [
        f"{key}: {scrub(msg, props[key]) if key in secret else msg}" if key else msg
        for key, msg in error.problems.items()
    ]
    plugin = props.get("connector.class") or "<connector.class>"
    return InvalidRequestError(
        f"Connector configuration is invalid and contains the following {len(problems)} "
        f"error(s):\n" + "\n".join(problems) + "\nYou can also find the above list of errors "
        f"at the endpoint `/connector-plugins/{plugin}/config/validate`"
    )
