"""What every route needs: the herder (from the app's state) and request-config normalisation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, Path, Request

from connectworker.api.config_def import config_text
from connectworker.rest.models import ConfigScalar
from connectworker.runtime.herder.protocol import Herder


def get_herder(request: Request) -> Herder:
    herder: Herder = request.app.state.herder
    return herder


HerderDep = Annotated[Herder, Depends(get_herder)]
ConnectorName = Annotated[str, Path(description="The connector's name", examples=["datagen-example"])]
TaskId = Annotated[int, Path(description="The task's number, from 0", examples=[0])]
PluginName = Annotated[str, Path(description="A connector class name or alias", examples=["DataGen"])]


def scalar_string(value: ConfigScalar) -> str:
    """A JSON scalar as the string Kafka's Jackson would make of it."""
    return config_text(value)


def request_config(config: Mapping[str, ConfigScalar]) -> dict[str, str]:
    return {key: scalar_string(value) for key, value in config.items()}


def connector_location(request: Request, name: str) -> str:
    """The absolute URL of a connector, for the Location header of 201 responses."""
    return f"{str(request.base_url).rstrip('/')}/connectors/{quote(name, safe='')}"
