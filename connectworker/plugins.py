"""Finding connector classes by the names operators write in `connector.class`.

Accepts Kafka's fully qualified names and short aliases for the built-in connectors (as Kafka's
plugin loader does), and any importable ``module.Class`` path; `plugin.path` directories are added
to the import path first.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Iterable
from functools import cache

from connectworker.api.connector import SourceConnector


class PluginNotFoundError(LookupError):
    pass


def add_plugin_paths(paths: Iterable[str]) -> None:
    for path in paths:
        if path not in sys.path:
            sys.path.append(path)


def builtin_aliases() -> dict[str, str]:
    from connectors import BUILTIN_CONNECTORS

    return dict(BUILTIN_CONNECTORS)


@cache
def _import(dotted: str) -> type:
    module_name, _, class_name = dotted.rpartition(".")
    if not module_name:
        raise PluginNotFoundError(dotted)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise PluginNotFoundError(f"{dotted} (cannot import {module_name}: {exc})") from None
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise PluginNotFoundError(f"{dotted} (module {module_name} has no {class_name})") from None


def resolve_connector_class(name: str) -> type[SourceConnector]:
    """The SourceConnector subclass `name` refers to; raises PluginNotFoundError saying what is allowed."""
    dotted = builtin_aliases().get(name, name)
    try:
        cls = _import(dotted)
    except PluginNotFoundError as exc:
        allowed = ", ".join(sorted(builtin_aliases()))
        raise PluginNotFoundError(
            f"Class {name} could not be found: {exc}. Use a built-in connector ({allowed}) or an "
            f"importable module.Class path (directories in plugin.path are searched)") from None
    if not (inspect.isclass(cls) and issubclass(cls, SourceConnector)):
        raise PluginNotFoundError(f"Class {name} is not a connectworker SourceConnector")
    return cls


def connector_plugins() -> list[tuple[str, type[SourceConnector]]]:
    """Distinct built-in connector classes with their canonical (dotted) names."""
    seen: dict[str, type[SourceConnector]] = {}
    for dotted in builtin_aliases().values():
        seen.setdefault(dotted, resolve_connector_class(dotted))
    return sorted(seen.items())
