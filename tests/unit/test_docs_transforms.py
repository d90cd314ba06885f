"""docs/transforms.md stays true: every built-in is documented with its keys, and the custom transform
example validates and routes as the doc says."""

from __future__ import annotations

import re
import sys
import uuid
from pathlib import Path

import pytest

from connectworker.api import SourceRecord
from connectworker.config.properties import load_connector_file
from connectworker.config.transforms import read_transforms
from connectworker.runtime.tasks.transform_chain import TransformationChain
from connectworker.topics.rule_parser import parse_topic_creation
from connectworker.transforms.registry import (
    DEBEZIUM_TRANSFORMS,
    PREDICATES,
    TRANSFORMS,
    builtin_predicate,
    builtin_transformation,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "transforms.md"
BLOCK = re.compile(r"<!-- example: (?P<name>[\w.]+) -->\n```\w+\n(?P<code>.*?)\n```", re.DOTALL)
UNDOCUMENTED_KEYS = {"replace.null.with.default", "offset.field", "blacklist", "whitelist"}  # said in prose


def test_every_builtin_and_each_of_its_keys_is_in_the_tables() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().split(" ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    debezium = {name.rpartition(".")[2]: name for name in DEBEZIUM_TRANSFORMS}
    for name in [*TRANSFORMS, *PREDICATES, *debezium]:
        cls = builtin_transformation(name) or builtin_predicate(name)
        assert cls is not None
        if name in debezium:
            assert f"`{debezium[name]}`" in rows[name], f"{name}'s row does not give Debezium's class name"
        row = rows.get(name.split("$")[0])
        assert row is not None, f"{name} has no row in docs/transforms.md"
        for key in set(cls().config_def().keys) - UNDOCUMENTED_KEYS:
            assert f"`{key}`" in row, f"{name}: key {key} is not in its row"
    assert "`replace.null.with.default`" in text and "`offset.field`" in text and "`blacklist`" in text


def test_the_custom_transform_example_works_as_documented(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    examples = {m["name"]: m["code"] for m in BLOCK.finditer(DOC.read_text(encoding="utf-8"))}
    module = f"mytransforms_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(examples["mytransforms.py"] + "\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    props = dict(line.split("=", 1) for line in examples["tenant.properties"].splitlines())
    props["transforms.tenant.type"] = props["transforms.tenant.type"].replace("mytransforms", module)
    try:
        assert read_transforms({k: v for k, v in props.items() if k != "transforms.tenant.field"}).problems == {
            "transforms.tenant.field": [
                'Missing required configuration "transforms.tenant.field" which has no default value.'
            ]
        }
        config = read_transforms(props).config
        assert config is not None
        chain = TransformationChain.build(config)
        routed = chain.apply(SourceRecord(None, None, "orders", {"tenant": "acme", "n": 1}))
        assert routed is not None and routed.topic == "acme.orders"
    finally:
        sys.modules.pop(module, None)


def test_the_outbox_example_validates_and_its_events_get_the_events_group(tmp_path: Path) -> None:
    examples = {m["name"]: m["code"] for m in BLOCK.finditer(DOC.read_text(encoding="utf-8"))}
    path = tmp_path / "outbox.properties"
    path.write_text(examples["outbox.properties"] + "\n", encoding="utf-8")
    props = load_connector_file(path)
    report = read_transforms(props)
    assert report.problems == {} and report.config is not None
    match = parse_topic_creation(props).match("outbox.event.Order")
    assert match is not None and match.rule == "events"
    assert (match.settings.partitions, match.settings.configs()["cleanup.policy"]) == (12, "compact")
