"""`tests/INDEX.md`, the way from a module to its tests, says what the test files import today."""

from __future__ import annotations

from tests.tests_index import REPO, index


def test_the_index_of_tests_is_current() -> None:
    written = (REPO / "tests" / "INDEX.md").read_text(encoding="utf-8")
    assert written == index(), "tests/INDEX.md is stale: run `python -m tests.tests_index > tests/INDEX.md`"


def test_the_index_names_a_module_with_the_tests_that_import_it() -> None:
    lines = index().splitlines()
    line = next(entry for entry in lines if entry.startswith("- `connectworker.log_levels`:"))
    assert "`unit/test_cli_log_level.py`" in line and "`unit/test_rest_loggers.py`" in line
