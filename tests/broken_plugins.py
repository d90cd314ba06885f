"""Connector plugin modules broken in each way an operator may meet, written to a `plugin.path` directory.

`BROKEN` maps a case to (module source, class name, what the validation message must say).
"""

from __future__ import annotations

import uuid
from pathlib import Path

_CONCRETE_CONNECTOR = """
from connectworker.connectors.datagen import DataGenConnector
from connectworker.api import SourceTask
"""

BROKEN: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "abstract connector": (
        """
from connectworker.api import SourceConnector

class Plugin(SourceConnector):
    def version(self):
        return "1"
    def start(self, props):
        pass
    def task_class(self):
        raise NotImplementedError
    def stop(self):
        pass
""",
        "Plugin",
        ("does not implement SourceConnector's abstract methods config_def, task_configs",),
    ),
    "abstract task": (
        _CONCRETE_CONNECTOR
        + """
class Task(SourceTask):
    def start(self, props):
        pass
    def poll(self):
        return None
    def stop(self):
        pass

class Plugin(DataGenConnector):
    def task_class(self):
        return Task
""",
        "Plugin",
        ("task class", ".Task does not implement SourceTask's abstract method version"),
    ),
    "constructor raises": (
        _CONCRETE_CONNECTOR
        + """
class Plugin(DataGenConnector):
    def __init__(self):
        raise ValueError("no licence key found")
""",
        "Plugin",
        ("its constructor raised ValueError: no licence key found", "line 7"),
    ),
    "config_def raises": (
        _CONCRETE_CONNECTOR
        + """
class Plugin(DataGenConnector):
    def config_def(self):
        raise RuntimeError("config_def is broken")
""",
        "Plugin",
        ("its config_def() raised RuntimeError: config_def is broken",),
    ),
    "validate raises": (
        _CONCRETE_CONNECTOR
        + """
class Plugin(DataGenConnector):
    def validate(self, props):
        raise KeyError("validate is broken")
""",
        "Plugin",
        ("cannot validate the configuration: KeyError: 'validate is broken'",),
    ),
    "import raises": (
        """
import os

raise RuntimeError("cannot reach the licence server\\nsecond line of the message")
""",
        "Plugin",
        ("importing module", "failed: RuntimeError: cannot reach the licence server", "line 4"),
    ),
    "syntax error": (
        """
x = 1
def broken(:
    pass
""",
        "Plugin",
        ("SyntaxError: ", "line 3"),
    ),
    "imports a missing module": (
        """
import no_such_dependency_for_connectworker_tests
""",
        "Plugin",
        ("ModuleNotFoundError: No module named 'no_such_dependency_for_connectworker_tests'",),
    ),
}


def write_plugin(directory: Path, source: str) -> str:
    """Write `source` as a uniquely named module in `directory`; return the module name."""
    directory.mkdir(parents=True, exist_ok=True)
    name = f"broken_plugin_{uuid.uuid4().hex[:12]}"
    (directory / f"{name}.py").write_text(source)
    return name
