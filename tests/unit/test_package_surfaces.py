"""Every package states its public surface, and every name it states resolves."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys

import pytest

PACKAGES = ["api", "config", "converters", "rest", "runtime", "spark", "testing", "topics"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves(package: str) -> None:
    module = importlib.import_module(f"connectworker.{package}")
    assert module.__all__, f"connectworker.{package} states no public names"
    missing = [name for name in module.__all__ if getattr(module, name, None) is None]
    assert missing == []


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    import connectworker.runtime

    with pytest.raises(AttributeError, match=re.escape("'connectworker.runtime' has no attribute 'Wroker'")):
        connectworker.runtime.Wroker  # noqa: B018


def test_importing_the_task_context_does_not_import_the_herder_or_fastapi() -> None:
    """What a Spark executor imports to run a task stays small."""
    code = (
        "import sys, connectworker.runtime.tasks.task_context; "
        "print(sorted(m for m in ('connectworker.runtime.herder.herder', 'fastapi') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
