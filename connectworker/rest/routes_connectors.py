"""`/connectors` and `/connectors/{name}[/config]`: listing, creating, reading, changing, deleting."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Request, Response

from connectworker.rest.deps import (
    ConnectorName,
    HerderDep,
    connector_location,
    request_config,
    scalar_string,
)
from connectworker.rest.errors import error_responses
from connectworker.rest.models import ConfigMap, ConfigPatch, ConnectorExpansion, ConnectorInfo, CreateConnectorRequest
from connectworker.rest.views import connector_info, connector_status
from connectworker.runtime.herder.errors import UnknownConnectorError, check_config_name
from connectworker.runtime.herder.values import State

router = APIRouter(tags=["connectors"])

ConfigBody = Annotated[
    ConfigMap,
    Body(
        examples=[{"connector.class": "DataGen", "topic.pattern": "example.{region}", "records": "100", "rate": "50"}]
    ),
]


def _with_name(config: dict[str, str], name: str) -> dict[str, str]:
    """Kafka's rule: a `name` in the config must match the connector's name; absent, it is added."""
    check_config_name(config, name)
    return {**config, "name": name}


@router.get("/connectors", response_model=list[str] | dict[str, ConnectorExpansion], response_model_exclude_none=True)
def list_connectors(
    herder: HerderDep,
    expand: Annotated[list[str] | None, Query()] = None,
) -> list[str] | dict[str, ConnectorExpansion]:
    """Connector names; with `expand=status` and/or `expand=info`, a map of name to those details."""
    if expand is None:
        return herder.names()
    out: dict[str, ConnectorExpansion] = {}
    for name in herder.names():
        try:
            out[name] = ConnectorExpansion(
                status=connector_status(herder.connector_status(name)) if "status" in expand else None,
                info=connector_info(herder.connector_info(name)) if "info" in expand else None,
            )
        except UnknownConnectorError:  # deleted while we were listing
            continue
    return out


@router.post("/connectors", status_code=201, response_model=ConnectorInfo, responses=error_responses(400, 409))
def create_connector(
    body: CreateConnectorRequest, request: Request, response: Response, herder: HerderDep
) -> ConnectorInfo:
    name = (body.name or "").strip()
    config = _with_name(request_config(body.config), name)
    state = State(body.initial_state) if body.initial_state else None
    info = herder.create(name, config, state)
    response.headers["Location"] = connector_location(request, name)
    return connector_info(info)


@router.get("/connectors/{name}", response_model=ConnectorInfo, responses=error_responses(404))
def get_connector(name: ConnectorName, herder: HerderDep) -> ConnectorInfo:
    return connector_info(herder.connector_info(name))


@router.delete("/connectors/{name}", status_code=204, response_class=Response, responses=error_responses(404))
def delete_connector(name: ConnectorName, herder: HerderDep) -> Response:
    herder.delete(name)
    return Response(status_code=204)


@router.get("/connectors/{name}/config", response_model=dict[str, str], responses=error_responses(404))
def get_connector_config(name: ConnectorName, herder: HerderDep) -> dict[str, str]:
    return herder.connector_config(name)


@router.put(
    "/connectors/{name}/config",
    response_model=ConnectorInfo,
    responses={201: {"model": ConnectorInfo, "description": "Created"}, **error_responses(400, 409)},
)
def put_connector_config(
    name: ConnectorName, config: ConfigBody, request: Request, response: Response, herder: HerderDep
) -> ConnectorInfo:
    """Create the connector (201) or replace its config (200); its tasks restart with the new config."""
    info, created = herder.put_config(name, _with_name(request_config(config), name))
    if created:
        response.status_code = 201
        response.headers["Location"] = connector_location(request, name)
    return connector_info(info)


@router.patch("/connectors/{name}/config", response_model=ConnectorInfo, responses=error_responses(400, 404))
def patch_connector_config(
    name: ConnectorName, patch: Annotated[ConfigPatch, Body()], herder: HerderDep
) -> ConnectorInfo:
    """Merge into the config; a null value removes the key. Tasks restart with the result."""
    values = {k: (None if v is None else scalar_string(v)) for k, v in patch.items()}
    return connector_info(herder.patch_config(name, values))
