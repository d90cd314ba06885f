"""Finding connector classes by the names operators write in `connector.class`.

Accepts Kafka's fully qualified names and short aliases for the built-in connectors (as Kafka's
plugin loader does), and any importable ``module.Class`` path; `plugin.path` directories are added
to the import path first.

A class is only handed out once it is known to be usable: its module imports, it is a concrete
`SourceConnector` (no abstract method left), it can be instantiated, and `version()`, `config_def()`
and the `SourceTask` class it names behave. Otherwise `PluginNotFoundError` (or its subclass
`PluginLoadError`) says what is wrong, so a broken plugin is a validation error naming the class,
never a traceback.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import pkgutil
import sys
import traceback
import zipfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from types import ModuleType

from connectworker.api.config_def import ConfigDef
from connectworker.api.connector import SourceConnector
from connectworker.api.task import SourceTask

log = logging.getLogger(__name__)

_plugin_paths: list[str] = []  # the usable plugin.path entries, in order, for listing their connectors


class PluginNotFoundError(LookupError):
    """`connector.class` names no usable connector class; the message says why and what is allowed."""


class PluginLoadError(PluginNotFoundError):
    """The class was found, but its module does not import or the class cannot be used as a connector."""


def add_plugin_paths(paths: Iterable[str]) -> None:
    """Put the `plugin.path` entries on the import path; warn about each one that cannot hold modules."""
    for path in paths:
        problem = _plugin_path_problem(Path(path))
        if problem is not None:
            log.warning("plugin.path entry %s %s; it is ignored", path, problem)
            continue
        if path not in sys.path:
            sys.path.append(path)
        if path not in _plugin_paths:
            _plugin_paths.append(path)


def _plugin_path_problem(path: Path) -> str | None:
    if not path.exists():
        return "does not exist"
    if path.is_dir():
        return None
    if path.is_file() and zipfile.is_zipfile(path):
        return None  # a zip archive (or wheel) of modules is importable as it is
    return "is neither a directory nor a zip archive of modules"


def builtin_aliases() -> dict[str, str]:
    """Every name a built-in connector answers to: its own aliases, and, as Kafka's plugin loader gives a
    plugin, the simple name of each Java class name it accepts and that name without its `Connector`
    suffix (`PostgresConnector` and `Postgres` for `io.debezium.connector.postgresql.PostgresConnector`)."""
    from connectworker.connectors import BUILTIN_CONNECTORS

    aliases = dict(BUILTIN_CONNECTORS)
    for name, dotted in BUILTIN_CONNECTORS.items():
        if "." in name:
            simple = name.rsplit(".", 1)[1]
            for alias in (simple, simple.removesuffix("Connector")):
                aliases.setdefault(alias, dotted)
    return aliases


def describe_exception(exc: BaseException) -> str:
    """``Type: first line of the message (file, line N)``: enough to find the fault, without a traceback."""
    lines = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    if isinstance(exc, SyntaxError):
        text = f"{type(exc).__name__}: {exc.msg}"
        if exc.filename:
            return f"{text} ({exc.filename}, line {exc.lineno})"
        return text
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        return f"{text} ({frames[-1].filename}, line {frames[-1].lineno})"
    return text


def _missing_module(exc: ModuleNotFoundError, module_name: str) -> bool:
    """Whether `exc` says `module_name` itself (or a package above it) does not exist, rather than that
    the module exists but imports something missing."""
    return exc.name is not None and (module_name == exc.name or module_name.startswith(exc.name + "."))


@cache
def _import(dotted: str) -> type:
    """The object `dotted` names; only successes are cached, so a fixed module is imported again."""
    module_name, _, class_name = dotted.rpartition(".")
    if not module_name:
        raise PluginNotFoundError(dotted)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if _missing_module(exc, module_name):
            raise PluginNotFoundError(f"{dotted} (cannot import {module_name}: {exc})") from None
        raise PluginLoadError(f"importing module {module_name} failed: {describe_exception(exc)}") from None
    except Exception as exc:  # a plugin module may raise anything while it is imported
        raise PluginLoadError(f"importing module {module_name} failed: {describe_exception(exc)}") from None
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise PluginNotFoundError(f"{dotted} (module {module_name} has no {class_name})") from None


def import_object(dotted: str) -> object:
    """The object `dotted` (`module.Name`) names; `PluginNotFoundError` if there is none,
    `PluginLoadError` if its module fails to import."""
    return _import(dotted)


def abstract_methods(cls: type) -> list[str]:
    """The abstract methods `cls` leaves unimplemented, sorted."""
    return sorted(getattr(cls, "__abstractmethods__", ())) if inspect.isabstract(cls) else []


def _plural(names: list[str]) -> str:
    return ("method " if len(names) == 1 else "methods ") + ", ".join(names)


def _task_class_problem(connector: SourceConnector) -> str | None:
    try:
        task_class = connector.task_class()
    except Exception as exc:
        # Some connectors only know their task class after start(); the worker reports it then.
        log.debug("%s.task_class() raised before start(): %s", type(connector).__name__, describe_exception(exc))
        return None
    if not (inspect.isclass(task_class) and issubclass(task_class, SourceTask)):
        return f"its task_class() returned {task_class!r}, not a SourceTask subclass"
    missing = abstract_methods(task_class)
    if missing:
        return (
            f"its task class {task_class.__module__}.{task_class.__qualname__} does not implement "
            f"SourceTask's abstract {_plural(missing)}"
        )
    return None


def connector_class_problem(cls: type[SourceConnector]) -> str | None:
    """What makes `cls` unusable as a connector (a phrase starting with "it" or "its"), or None."""
    missing = abstract_methods(cls)
    if missing:
        return f"it does not implement SourceConnector's abstract {_plural(missing)}"
    try:
        connector = cls()
    except Exception as exc:
        return f"its constructor raised {describe_exception(exc)}"
    for method in ("version", "config_def"):
        try:
            result = getattr(connector, method)()
        except Exception as exc:
            return f"its {method}() raised {describe_exception(exc)}"
        if method == "config_def" and not isinstance(result, ConfigDef):
            return f"its config_def() returned {type(result).__name__}, not a ConfigDef"
    return _task_class_problem(connector)


@cache
def _usable(cls: type, name: str) -> type[SourceConnector]:
    """`cls` once checked; only successes are cached, so a broken class is checked (and reported) again."""
    if not (inspect.isclass(cls) and issubclass(cls, SourceConnector)):
        raise PluginNotFoundError(f"Class {name} is not a connectworker SourceConnector")
    problem = connector_class_problem(cls)
    if problem is not None:
        raise PluginLoadError(f"Class {name} cannot be used: {problem}")
    return cls


def resolve_connector_class(name: str) -> type[SourceConnector]:
    """The SourceConnector subclass `name` refers to; raises PluginNotFoundError saying what is allowed,
    or PluginLoadError saying what is wrong with the plugin."""
    dotted = builtin_aliases().get(name, name)
    try:
        cls = _import(dotted)
    except PluginLoadError as exc:
        raise PluginLoadError(f"Class {name} could not be loaded: {exc}") from None
    except PluginNotFoundError as exc:
        allowed = ", ".join(sorted(builtin_aliases()))
        raise PluginNotFoundError(
            f"Class {name} could not be found: {exc}. Use a built-in connector ({allowed}) or an "
            f"importable module.Class path (directories in plugin.path are searched)"
        ) from None
    return _usable(cls, name)


def connector_plugins() -> list[tuple[str, type[SourceConnector]]]:
    """Distinct connector classes with their canonical (dotted) names: the built-ins, and the usable
    connectors defined in the modules found on `plugin.path` (as Kafka's plugin scanner lists them)."""
    seen: dict[str, type[SourceConnector]] = {}
    for dotted in builtin_aliases().values():
        seen.setdefault(dotted, resolve_connector_class(dotted))
    for dotted, cls in plugin_path_connectors():
        seen.setdefault(dotted, cls)
    return sorted(seen.items())


def plugin_path_connectors() -> list[tuple[str, type[SourceConnector]]]:
    """Usable connector classes defined in the modules and packages under the `plugin.path` entries.
    A module that fails to import is skipped with a WARN naming it (once per process, as importing is
    only tried once), never an error: one broken plugin must not hide the others."""
    found: list[tuple[str, type[SourceConnector]]] = []
    for entry in list(_plugin_paths):
        for info in pkgutil.walk_packages([entry], onerror=lambda name: None):
            module = _plugin_module(info.name, entry)
            if module is None:
                continue
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if (
                    issubclass(cls, SourceConnector)
                    and cls.__module__ == module.__name__
                    and connector_class_problem(cls) is None
                ):
                    found.append((f"{module.__name__}.{cls.__qualname__}", cls))
    return found


@cache
def _plugin_module(name: str, entry: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except Exception as exc:
        log.warning(
            "plugin.path %s: module %s cannot be imported (%s); its connectors are not listed",
            entry,
            name,
            describe_exception(exc),
        )
        return None
