"""docs/connectors.md stays true: its example connector loads as a plugin and its example tests pass."""

from __future__ import annotations

import importlib
import re
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from connectworker.api import SourceConnector
from connectworker.plugins import resolve_connector_class
from connectworker.testing import TaskHarness

DOC = Path(__file__).resolve().parents[2] / "docs" / "connectors.md"
BLOCK = re.compile(r"<!-- example: (?P<name>[\w.]+) -->\n```python\n(?P<code>.*?)\n```", re.DOTALL)


def examples() -> dict[str, str]:
    """The marked code blocks of the doc by name."""
    return {m["name"]: m["code"] for m in BLOCK.finditer(DOC.read_text(encoding="utf-8"))}


@pytest.fixture
def ticker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The example connector saved as a module in a plugin.path-like directory, as the doc says to."""
    name = f"ticker_{uuid.uuid4().hex[:8]}"  # unique: the plugin loader caches classes by dotted name
    (tmp_path / f"{name}.py").write_text(examples()["ticker.py"] + "\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module(name)
    sys.modules.pop(name, None)


def test_the_doc_has_both_examples_and_the_connector_is_under_62_lines() -> None:
    found = examples()
    assert set(found) == {"ticker.py", "test_ticker.py"}
    assert len(found["ticker.py"].splitlines()) < 62


def test_the_example_connector_is_a_usable_plugin(ticker: ModuleType) -> None:
    cls = resolve_connector_class(f"{ticker.__name__}.TickerConnector")
    assert issubclass(cls, SourceConnector) and cls is ticker.TickerConnector


def test_the_example_connector_runs_in_the_harness(ticker: ModuleType) -> None:
    props = {"name": "ticker", "topic": "numbers", "count": "5", "batch.size": "2"}
    harness = TaskHarness.for_connector(ticker.TickerConnector, props)
    records = harness.run(polls=4)  # 2 + 2 + 1 numbers, then a poll that waits and returns None
    assert [(r.topic, r.key, r.value) for r in records] == [("numbers", str(n), n) for n in range(5)]
    assert harness.committed_offset({"stream": "ticker"}) == {"next": 5}


def test_the_example_tests_pass(ticker: ModuleType) -> None:
    namespace: dict[str, object] = {"__name__": "test_ticker", **vars(ticker)}
    exec(compile(examples()["test_ticker.py"], f"{DOC}:test_ticker.py", "exec"), namespace)
    tests = {name: fn for name, fn in namespace.items() if name.startswith("test_") and callable(fn)}
    assert len(tests) == 3
    for test in tests.values():
        run: Callable[[], None] = test
        run()
