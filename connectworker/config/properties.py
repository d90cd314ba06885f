"""Reading worker and connector files in the formats Kafka Connect accepts.

`.properties` files are parsed with `javaproperties` (escapes, continuations and `:` separators
behave as in Java). Connector files may also be JSON: a flat map, or ``{"name": ..., "config": {...}}``
as posted to Kafka Connect's REST API.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import javaproperties

from connectworker.api.config_def import config_text
from connectworker.api.errors import ConfigError


def load_properties(path: str | Path) -> dict[str, str]:
    """Parse a Java `.properties` file into a str→str dict."""
    p = Path(path)
    try:
        with p.open("r", encoding="utf-8") as fh:
            return dict(javaproperties.load(fh))
    except FileNotFoundError:
        raise ConfigError(f"file not found: {p}", source=str(p)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"cannot read properties: {exc}", source=str(p)) from None


def _stringify(key: str, value: Any, source: str) -> str:
    if isinstance(value, str | int | float) or (
        isinstance(value, list) and all(isinstance(v, str | int | float) for v in value)
    ):
        return config_text(value)
    raise ConfigError({key: f"value must be a string, number, boolean or list of those; got {value!r}"}, source=source)


def connector_config_from_json(data: Any, *, source: str) -> dict[str, str]:
    """Flatten a JSON connector definition (flat map or name+config) into str→str properties."""
    if not isinstance(data, dict):
        raise ConfigError("a JSON connector file must hold an object", source=source)
    if "config" in data and isinstance(data["config"], Mapping):
        extra = set(data) - {"name", "config", "initial_state"}
        if extra:
            raise ConfigError(
                {k: 'unexpected top-level key; put connector keys under "config"' for k in sorted(extra)}, source=source
            )
        config = {k: _stringify(k, v, source) for k, v in data["config"].items()}
        name = data.get("name")
        if name is not None:
            if not isinstance(name, str):
                raise ConfigError({"name": "must be a string"}, source=source)
            if "name" in config and config["name"] != name:
                raise ConfigError(
                    {"name": f"top-level name {name!r} differs from config name {config['name']!r}"}, source=source
                )
            config["name"] = name
        return config
    return {k: _stringify(k, v, source) for k, v in data.items()}


def load_connector_file(path: str | Path) -> dict[str, str]:
    """Load a connector definition from `.properties` or `.json` (chosen by content for other names)."""
    p = Path(path)
    if p.suffix.lower() == ".properties":
        return load_properties(p)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"file not found: {p}", source=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read file: {exc}", source=str(p)) from None
    if p.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", source=str(p)
            ) from None
        return connector_config_from_json(data, source=str(p))
    return load_properties(p)
