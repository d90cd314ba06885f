"""Before any task starts: can the executors' Python import what the tasks need?

On a cluster the executors run their own Python (`PYSPARK_PYTHON` / `spark.pyspark.python`, on their
own machines). If it lacks connectworker or a connector's module, each task's Spark job fails with
a `ModuleNotFoundError` deep in a Java stack trace, raised while unpickling the task.
So `connectworker spark` first runs one small job on the executors that imports those modules and
reports, per executor process, its interpreter, its version and what it could not import, and stops
with one message that says what is missing where and how to ship it.

The probe function is defined inside `probe_function`, so cloudpickle sends its code by value: it
runs even where connectworker itself cannot be imported. A job that cannot run Python at all (no such
interpreter, another Python version) is reported with the first line of Spark's error.

A `local[...]` master whose executors run the driver's own interpreter (directly or through the
launcher of `python_launcher.py`) is not checked: its Python workers are child processes of this one,
with its environment, so they import what it imports (the check would delay the first record by a
second or more).
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark import SparkContext

from connectworker.api.errors import ConnectError
from connectworker.config.connector_config import ConnectorConfig
from connectworker.spark.runner.python_launcher import runs_this_interpreter

log = logging.getLogger(__name__)

RUNTIME_MODULES = ("connectworker.runtime.runners.remote_task",)  # what Spark unpickles in the tasks' jobs
HOW_TO_SHIP = (
    "Make them importable on every executor: point PYSPARK_PYTHON (or spark.conf.spark.pyspark.python) at "
    "an interpreter with connectworker[spark] and your connectors installed; or ship a packed virtualenv "
    "(venv-pack) with spark.conf.spark.archives=env.tar.gz#env and "
    "spark.conf.spark.pyspark.python=./env/bin/python; connector modules alone can also go in a plugin.path "
    "directory (connectworker spark ships it) or in --py-files (spark.conf.spark.submit.pyFiles)."
)
_ERROR_LINE = re.compile(r"^(?:\w+\.)*(\w*(?:Error|Exception|Mismatch)\w*): .+$", re.MULTILINE)


@dataclass(frozen=True)
class ExecutorPython:
    """What one executor Python process reported."""

    host: str
    executable: str
    version: str
    missing: dict[str, str]  # module -> the import error


def required_modules(connectors: Sequence[ConnectorConfig]) -> dict[str, str]:
    """Module name -> what needs it: connectworker's task runtime, then each connector's and task's."""
    needed = dict.fromkeys(RUNTIME_MODULES, "connectworker[spark]")
    for connector in connectors:
        cls = connector.connector_class
        needed.setdefault(cls.__module__, f"connector.class {connector.class_name} of {connector.name}")
        task = cls().task_class()
        needed.setdefault(task.__module__, f"the task class {task.__qualname__} of {connector.name}")
    return needed


def probe_function(modules: Sequence[str], plugin_path: Sequence[str]) -> Callable[[Iterable[int]], Iterator[Any]]:
    """A `mapPartitions` function reporting the Python process it runs in (one dict). It references
    nothing of connectworker, so it unpickles anywhere."""

    def probe(items: Iterable[int]) -> Iterator[Any]:
        import importlib
        import socket
        import sys

        for _ in items:
            pass
        for entry in plugin_path:  # as the task runtime does: plugin.path entries that exist here
            if os.path.exists(entry) and entry not in sys.path:
                sys.path.append(entry)
        missing = {}
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception as exc:  # any failure to import is what the report is about
                missing[name] = f"{type(exc).__name__}: {exc}"
        version = ".".join(str(v) for v in sys.version_info[:3])
        yield {"host": socket.gethostname(), "executable": sys.executable, "version": version, "missing": missing}

    return probe


def probe_executors(context: SparkContext, modules: Sequence[str], plugin_path: Sequence[str]) -> list[ExecutorPython]:
    """Run the probe in as many tasks as the cluster has cores (at least 2): one report per task. With
    Python worker reuse (Spark's default) the workers it starts stay warm for the connector tasks."""
    tasks = max(2, context.defaultParallelism)
    context.setJobDescription("connectworker: checking the executors' Python")
    try:
        rows = context.parallelize(range(tasks), tasks).mapPartitions(probe_function(modules, plugin_path)).collect()
    finally:
        context.setJobDescription(None)  # type: ignore[arg-type]
    return [ExecutorPython(r["host"], r["executable"], r["version"], r["missing"]) for r in rows]


def spark_error_line(error: BaseException) -> str:
    """The Python error inside Spark's error text (the last one: the root cause), else its first line."""
    text = str(error)
    lines = [m.group(0).strip() for m in _ERROR_LINE.finditer(text)]
    if lines:
        return lines[-1]
    return (text.strip().splitlines() or [type(error).__name__])[0]


def runs_driver_python(context: SparkContext) -> bool:
    """A local master whose Python workers run this very interpreter (or its launcher)."""
    local = (context.master or "").startswith("local")
    return local and runs_this_interpreter(context.pythonExec or "python3")


def check_executors(context: SparkContext, connectors: Sequence[ConnectorConfig], plugin_path: Sequence[str]) -> None:
    """Raise `ConnectError` with one readable message if an executor cannot import what tasks need."""
    needed = required_modules(connectors)
    python = context.pythonExec or "python3"
    try:
        reports = probe_executors(context, list(needed), plugin_path)
    except Exception as exc:  # Py4JJavaError and friends: Spark could not run Python there at all
        raise ConnectError(
            f"Spark could not run Python on the executors (their interpreter: {python}, from PYSPARK_PYTHON "
            f"or spark.pyspark.python): {spark_error_line(exc)}. They need Python "
            f"{sys.version_info.major}.{sys.version_info.minor} with {', '.join(needed)} importable. "
            f"{HOW_TO_SHIP}"
        ) from None
    broken = [r for r in reports if r.missing]
    if not broken:
        hosts = sorted({r.host for r in reports})
        log.info(
            "Executors' Python can import connectworker and the connectors (%s on %s)",
            ", ".join(sorted({f"{r.executable} {r.version}" for r in reports})),
            ", ".join(hosts),
        )
        return
    where = sorted({f"{r.executable} (Python {r.version}) on {r.host}" for r in broken})
    missing: dict[tuple[str, str], list[str]] = {}  # (what needs them, the error) -> modules
    for r in broken:
        for module, error in r.missing.items():
            modules = missing.setdefault((needed[module], error), [])
            if module not in modules:
                modules.append(module)
    what = "; ".join(f"{', '.join(modules)} (needed by {why}): {error}" for (why, error), modules in missing.items())
    raise ConnectError(
        f"The Spark executors cannot import what the connector tasks need. Executor Python: "
        f"{', '.join(where)}. Missing: {what}. {HOW_TO_SHIP}"
    )
