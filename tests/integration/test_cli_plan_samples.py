"""`connectworker plan --record`: sample records routed through the transforms, for those that route by the
record's data (Debezium's outbox EventRouter): the topics each sample goes to, planned by their rule."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.test_cli_standalone import run_cli

CONNECTOR = """name=outbox
connector.class=DataGen
topic.pattern=inventory.public.outbox
topic.count=1
topic.creation.default.replication.factor=1
topic.creation.default.partitions=1
topic.creation.groups=outbox
topic.creation.outbox.include=outbox\\\\.event\\\\..*
topic.creation.outbox.partitions=6
topic.creation.outbox.cleanup.policy=compact
topic.creation.outbox.retention.ms=604800000
"""
OUTBOX = "transforms=outbox\ntransforms.outbox.type=io.debezium.transforms.outbox.EventRouter\n"
UNWRAP = "transforms=unwrap\ntransforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState\n"
SHORT_ORDER = {
    "op": "c",
    "after": {"id": "8b1f", "aggregatetype": "Order", "aggregateid": "42", "type": "OrderCreated", "payload": "{}"},
}
ROW_SCHEMA = {
    "type": "struct",
    "optional": True,
    "name": "inventory.public.outbox.Value",
    "fields": [
        {"field": name, "type": "string", "optional": name == "payload"}
        for name in ("id", "aggregatetype", "aggregateid", "type", "payload")
    ],
}
CONVERTER_CUSTOMER = {  # as JsonConverter (schemas.enable=true) writes a Debezium change event
    "schema": {
        "type": "struct",
        "name": "inventory.public.outbox.Envelope",
        "fields": [
            {**ROW_SCHEMA, "field": "before"},
            {**ROW_SCHEMA, "field": "after"},
            {"field": "op", "type": "string"},
            {"field": "ts_ms", "type": "int64", "optional": True},
        ],
    },
    "payload": {
        "before": None,
        "after": {"id": "c1", "aggregatetype": "Customer", "aggregateid": "7", "type": "Created", "payload": "{}"},
        "op": "c",
        "ts_ms": 1700000000000,
    },
}


def plan(tmp_path: Path, transforms: str, *records: object) -> list[dict[str, object]]:
    connector = tmp_path / "outbox.properties"
    connector.write_text(CONNECTOR + transforms)
    args = ["plan", str(connector), "--topic", "inventory.public.outbox", "--json"]
    for number, record in enumerate(records):
        path = tmp_path / f"record-{number}.json"
        path.write_text(json.dumps(record))
        args += ["--record", str(path)]
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    entries: list[dict[str, object]] = json.loads(result.stdout)
    return entries


def test_each_aggregate_types_topic_is_planned_by_the_outbox_rule(tmp_path: Path) -> None:
    entries = plan(tmp_path, OUTBOX, SHORT_ORDER, CONVERTER_CUSTOMER, SHORT_ORDER)
    assert [(e["emitted"], e["topic"], e["rule"], e["create"]) for e in entries] == [
        ("inventory.public.outbox", "outbox.event.Order", "outbox", True),
        ("inventory.public.outbox", "outbox.event.Customer", "outbox", True),
    ]
    for entry in entries:
        assert entry["partitions"] == 6
        assert entry["configs"] == {"cleanup.policy": "compact", "retention.ms": "604800000"}
    assert "sample record 1; sample record 3" in str(entries[0]["reason"])  # both Order samples


def test_without_a_sample_the_plan_says_the_router_needs_one(tmp_path: Path) -> None:
    [entry] = plan(tmp_path, OUTBOX)
    assert entry["topic"] == "inventory.public.outbox"
    assert "routing unknown" in str(entry["reason"]) and "--record" in str(entry["reason"])


def test_unwrap_keeps_the_topic_and_a_deleted_sample_is_said_dropped(tmp_path: Path) -> None:
    [entry] = plan(tmp_path, UNWRAP)  # a record with only a topic is not taken for a tombstone
    assert (entry["topic"], entry["create"], entry["rule"]) == ("inventory.public.outbox", True, "default")
    deleted = {"op": "d", "before": {"id": 1}}
    [entry] = plan(tmp_path, UNWRAP + "transforms.unwrap.delete.tombstone.handling.mode=drop\n", deleted)
    assert entry["create"] is False and "sample record 1 dropped by the transforms" in str(entry["reason"])


def test_a_record_file_that_is_not_json_is_refused_naming_the_option(tmp_path: Path) -> None:
    connector = tmp_path / "outbox.properties"
    connector.write_text(CONNECTOR + OUTBOX)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = run_cli("plan", str(connector), "--topic", "inventory.public.outbox", "--record", str(bad))
    assert result.returncode == 2
    assert "--record" in result.stderr and "bad.json: cannot be read as JSON" in result.stderr
