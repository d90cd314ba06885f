"""docs/configuration.md is the generator's output, so it lists every worker key, every common connector
key and every built-in connector's keys as the declarations say; and the generator reads what it
shows (defaults, constraints, allowed values) from those declarations, new fields included."""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path
from typing import Literal

from pydantic import Field

from connectworker.config.connector_keys import COMMON_CONFIG_DEF
from connectworker.config.error_handling import ERROR_HANDLING_CONFIG_DEF
from connectworker.config.exactly_once import EMBEDDED_BROKER_CAVEAT
from connectworker.config.reference import (
    PREFIX_NOTES,
    REGENERATE,
    allowed_values,
    embedded_broker_caveat,
    render,
    worker_keys_table,
)
from connectworker.config.worker_config import INTERNAL_FIELDS, PASS_THROUGH_PREFIXES, WorkerConfig
from connectworker.config.worker_env import worker_key
from connectworker.connectors import BUILTIN_CONNECTORS, DataGenConnector, FileStreamSourceConnector

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "configuration.md"


def test_the_committed_reference_is_the_generators_output() -> None:
    """Runs the documented command itself (as a module, in a fresh interpreter)."""
    result = subprocess.run(
        [sys.executable, "-m", "connectworker.config.reference"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if current != result.stdout:
        diff = "".join(
            list(
                difflib.unified_diff(
                    current.splitlines(keepends=True),
                    result.stdout.splitlines(keepends=True),
                    "docs/configuration.md",
                    "generated",
                )
            )[:60]
        )
        raise AssertionError(
            f"docs/configuration.md is stale; regenerate it with\n    {REGENERATE}\n"
            f"from the repository root, and commit it.\n{diff}"
        )
    assert result.stdout.startswith("<!-- Generated") and REGENERATE in result.stdout.splitlines()[1]


def test_the_reference_and_the_readme_say_what_the_worker_warns_about_exactly_once_on_the_embedded_broker() -> None:
    """The same words as the warning a worker logs at start (only keys set as code), in the exactly-once
    section of docs/configuration.md and below the README's embedded-broker paragraph."""
    shown = embedded_broker_caveat()
    assert shown.replace("`", "") == EMBEDDED_BROKER_CAVEAT
    assert "`exactly.once.source.support=enabled` cannot hold with `bootstrap.servers=embedded`" in shown
    exactly_once = DOC.read_text(encoding="utf-8").split("### Exactly once")[1].split("\n### ")[0]
    assert f"**The embedded broker:** {shown}" in exactly_once
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start")[1].split("\n## ")[0]
    assert f"`bootstrap.servers=embedded` still starts, with this warning:\n\n> {shown}\n" in quick_start


def _rows(text: str) -> dict[str, str]:
    """Table rows by their first cell's key (without backticks); a later table's row wins."""
    return {line.split("|")[1].strip().strip("`"): line for line in text.splitlines() if line.startswith("| `")}


def test_every_declared_worker_key_has_a_row_with_its_default_and_variable() -> None:
    rows = _rows(render().split("\n## Connector keys")[0])
    for field in WorkerConfig.model_fields:
        if field in INTERNAL_FIELDS:
            continue
        row = rows.get(worker_key(field))
        assert row is not None, f"worker key {worker_key(field)} is missing"
        assert f"`CONNECT_{field.upper()}`" in row
    assert (
        "| `offset.flush.interval.ms` | int | `60000` | ≥ 1 | `CONNECT_OFFSET_FLUSH_INTERVAL_MS` |"
        in rows["offset.flush.interval.ms"]
    )
    assert (
        "| `exactly.once.source.support` | string | `disabled` | `enabled`, `disabled` |"
        in rows["exactly.once.source.support"]
    )
    assert "| `rest.port` | int | *none* | 0..65535 |" in rows["rest.port"]
    assert '| `plugin.path` | list | `""` |' in rows["plugin.path"]


def test_every_worker_key_is_described() -> None:
    """A key added to WorkerConfig needs Field(description=...): the reference shows it."""
    missing = [
        worker_key(f)
        for f, info in WorkerConfig.model_fields.items()
        if f not in INTERNAL_FIELDS and not (info.description or "").strip()
    ]
    assert missing == [], f"give these WorkerConfig fields a Field(description=...): {missing}"


def test_every_pass_through_prefix_is_explained() -> None:
    missing = [prefix for prefix in PASS_THROUGH_PREFIXES if not PREFIX_NOTES.get(prefix)]
    assert missing == [], (
        f"add a note for these prefixes to PREFIX_NOTES in connectworker/config/reference.py: {missing}"
    )
    assert set(PREFIX_NOTES) <= set(PASS_THROUGH_PREFIXES), "PREFIX_NOTES names a prefix the worker does not pass on"


def test_a_field_added_to_the_worker_config_is_picked_up() -> None:
    class Extended(WorkerConfig):
        log_format: Literal["text", "json"] = Field("text", description="How log lines look.")
        metrics_listener_port: int | None = Field(None, ge=1, le=65535, description="A | B")

    table = "\n".join(worker_keys_table(Extended))
    assert "| `log.format` | string | `text` | `text`, `json` | `CONNECT_LOG_FORMAT` | How log lines look. |" in table
    assert "| `metrics.listener.port` | int | *none* | 1..65535 | `CONNECT_METRICS_LISTENER_PORT` | A \\| B |" in table
    assert "pass.through" not in table and "unknown.keys" not in table


def test_allowed_values_are_read_from_the_validators() -> None:
    common, errors = COMMON_CONFIG_DEF.keys, ERROR_HANDLING_CONFIG_DEF.keys
    assert allowed_values(common["tasks.max"]) == "≥ 1"
    assert allowed_values(errors["errors.tolerance"]) == "`none`, `all`"
    datagen = DataGenConnector().config_def().keys
    assert allowed_values(datagen["topic.count"]).startswith("1..")
    assert allowed_values(datagen["format"]) == "`string`, `json`"
    assert allowed_values(FileStreamSourceConnector().config_def().keys["batch.size"]) == "≥ 1"


def test_common_and_builtin_connector_keys_are_listed() -> None:
    text = render()
    rows = _rows(text)
    for key in [
        "name",
        "connector.class",
        "tasks.max",
        "key.converter",
        "errors.tolerance",
        "exactly.once.support",
        "transaction.boundary",
        "transforms",
        "transforms.<alias>.type",
        "predicates.<predicate>.type",
        "topic.creation.groups",
        "topic.creation.default.partitions",
        "topic.creation.<group>.include",
        "topic.creation",
        "topic.creation.<rule>.regex",
    ]:
        assert key in rows, f"connector key {key} is missing"
    assert (
        "| `topic.creation.<group>.partitions` | int | the default group's |"
        in rows["topic.creation.<group>.partitions"]
    )
    for connector in (DataGenConnector, FileStreamSourceConnector):
        section = text.split(
            f"`connectworker.connectors.{connector.__module__.rsplit('.', 1)[-1]}.{connector.__name__}`."
        )[1].split("\n### ")[0]
        for key in connector().config_def().keys:
            assert f"| `{key}` |" in section, f"{connector.__name__}: key {key} is missing"
    for alias in BUILTIN_CONNECTORS:
        assert f"`{alias}`" in text
