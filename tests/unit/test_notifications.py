"""Debezium's notifications (connectors/debezium/notifications.py): the record schemas field by field, the
`additional_data` of each incremental and initial-snapshot notification as Debezium fills it (in the order
a Java HashMap iterates it, checked against Java 17's), the `[Notification Service]` log line, the record
for the sink topic, and nothing at all without a channel."""

from __future__ import annotations

import json
import logging
import uuid

import pytest

from connectworker.api.errors import ConfigError
from connectworker.api.schema import SchemaType
from connectworker.connectors.debezium.notifications import (
    NOTIFICATION_KEY,
    NOTIFICATION_VALUE,
    IncrementalNotifications,
    InitialNotifications,
    Notifier,
    java_hash_map,
    java_text,
)
from connectworker.connectors.debezium.signal_types import Notification
from connectworker.converters.json import JsonConverter

NOW_MS = 1_700_000_000_123
PARTITION = {"server": "dbserver1"}
OFFSET = {"lsn": 12345, "txId": 7}


def incremental() -> IncrementalNotifications:
    return IncrementalNotifications("dbserver1", clock=lambda: NOW_MS)


def initial() -> InitialNotifications:
    return InitialNotifications("dbserver1", clock=lambda: NOW_MS)


def test_the_key_and_value_schemas_are_debeziums_field_by_field() -> None:
    assert (NOTIFICATION_KEY.name, NOTIFICATION_KEY.version, NOTIFICATION_KEY.optional) == (
        "io.debezium.connector.common.NotificationKey",
        1,
        False,
    )
    assert [(f.name, f.schema.type, f.schema.optional) for f in NOTIFICATION_KEY.fields] == [
        ("id", SchemaType.STRING, False)
    ]
    assert (NOTIFICATION_VALUE.name, NOTIFICATION_VALUE.version, NOTIFICATION_VALUE.optional) == (
        "io.debezium.connector.common.Notification",
        1,
        False,
    )
    assert [(f.name, f.schema.type, f.schema.optional) for f in NOTIFICATION_VALUE.fields] == [
        ("id", SchemaType.STRING, False),
        ("type", SchemaType.STRING, False),
        ("aggregate_type", SchemaType.STRING, False),
        ("additional_data", SchemaType.MAP, True),
        ("timestamp", SchemaType.INT64, False),
    ]
    data = NOTIFICATION_VALUE.fields[3].schema
    assert data.key_schema is not None and data.value_schema is not None
    assert (data.key_schema.type, data.key_schema.optional) == (SchemaType.STRING, False)
    assert (data.value_schema.type, data.value_schema.optional) == (SchemaType.STRING, False)


def test_the_sink_record_converts_to_the_json_kafka_writes_for_debeziums_record() -> None:
    record = Notifier(["sink"], "notifications", "dbserver1").notify(
        incremental().started("ad-hoc", ["public.a"]), PARTITION, OFFSET
    )
    assert record is not None
    converter = JsonConverter()
    converter.configure({}, is_key=False)
    written = converter.from_connect_data("notifications", record.value_schema, record.value)
    assert written is not None
    assert json.loads(written) == {
        "schema": {
            "type": "struct",
            "fields": [
                {"type": "string", "optional": False, "field": "id"},
                {"type": "string", "optional": False, "field": "type"},
                {"type": "string", "optional": False, "field": "aggregate_type"},
                {
                    "type": "map",
                    "keys": {"type": "string", "optional": False},
                    "values": {"type": "string", "optional": False},
                    "optional": True,
                    "field": "additional_data",
                },
                {"type": "int64", "optional": False, "field": "timestamp"},
            ],
            "optional": False,
            "name": "io.debezium.connector.common.Notification",
            "version": 1,
        },
        "payload": {
            "id": "ad-hoc",
            "type": "STARTED",
            "aggregate_type": "Incremental Snapshot",
            "additional_data": {"connector_name": "dbserver1", "data_collections": "public.a"},
            "timestamp": NOW_MS,
        },
    }
    key = converter.from_connect_data("notifications", record.key_schema, record.key)
    assert key is not None and json.loads(key)["payload"] == {"id": "ad-hoc"}


def test_the_sink_record_goes_to_the_topic_at_the_connectors_partition_and_offset() -> None:
    notification = incremental().completed("ad-hoc")
    record = Notifier(["sink"], "dbserver1.notifications", "dbserver1").notify(notification, PARTITION, OFFSET)
    assert record is not None
    assert (record.topic, record.source_partition, record.source_offset) == (
        "dbserver1.notifications",
        PARTITION,
        OFFSET,
    )
    assert (record.key_schema, record.value_schema) == (NOTIFICATION_KEY, NOTIFICATION_VALUE)
    assert record.key == {"id": "ad-hoc"}
    assert record.value == {
        "id": "ad-hoc",
        "type": "COMPLETED",
        "aggregate_type": "Incremental Snapshot",
        "additional_data": {"connector_name": "dbserver1"},
        "timestamp": NOW_MS,
    }
    # before the connector has an offset, Debezium's record carries an empty one
    first = Notifier(["sink"], "n", "dbserver1").notify(notification, PARTITION, None)
    assert first is not None and first.source_offset == {}


def test_incremental_notifications_carry_debeziums_additional_data() -> None:
    made = incremental()
    started = made.started("ad-hoc", ["public.a", "public.b"])
    assert (started.id, started.aggregate_type, started.type, started.timestamp) == (
        "ad-hoc",
        "Incremental Snapshot",
        "STARTED",
        NOW_MS,
    )
    assert started.additional_data == {"connector_name": "dbserver1", "data_collections": "public.a,public.b"}
    assert made.paused("ad-hoc", ["public.a"]).additional_data == {
        "connector_name": "dbserver1",
        "data_collections": "public.a",
    }
    assert made.resumed("ad-hoc", ["public.a"]).type == "RESUMED"
    progress = made.in_progress("ad-hoc", ["public.a"], "public.a", [1000], [10])
    assert list(progress.additional_data.items()) == [
        ("current_collection_in_progress", "public.a"),
        ("connector_name", "dbserver1"),
        ("maximum_key", "1000"),
        ("data_collections", "public.a"),
        ("last_processed_key", "10"),
    ]
    scanned = made.table_scan_completed("ad-hoc", ["public.a"], "public.a", 1000, "SUCCEEDED")
    assert list(scanned.additional_data.items()) == [
        ("scanned_collection", "public.a"),
        ("connector_name", "dbserver1"),
        ("total_rows_scanned", "1000"),
        ("data_collections", "public.a"),
        ("status", "SUCCEEDED"),
    ]
    assert made.completed("ad-hoc").additional_data == {"connector_name": "dbserver1"}
    assert made.aborted("ad-hoc", ["public.a", "public.b"]).additional_data == {
        "connector_name": "dbserver1",
        "data_collections": "public.a,public.b",
    }
    assert made.aborted("ad-hoc").additional_data == {"connector_name": "dbserver1"}


def test_keys_join_their_values_with_commas_nulls_as_debezium_writes_them() -> None:
    made = incremental()
    composite = made.in_progress("ad-hoc", ["db.a"], "db.a", [3, "x", None, True], [1, "a", None, False])
    assert composite.additional_data["maximum_key"] == "3,x,<null>,true"
    assert composite.additional_data["last_processed_key"] == "1,a,<null>,false"
    unknown = made.in_progress("ad-hoc", ["db.a"], "db.a", None, [1])
    assert unknown.additional_data["maximum_key"] == '"<null>"'  # Debezium's `orElse("\"<null>\"")`


def test_a_notification_without_a_correlation_id_gets_a_random_uuid() -> None:
    made = incremental()
    ids = {made.completed(None).id, made.completed(None).id}
    assert len(ids) == 2
    assert all(uuid.UUID(i).version == 4 for i in ids)


def test_an_unknown_table_scan_status_is_refused_naming_the_allowed_ones() -> None:
    with pytest.raises(ValueError) as refused:
        incremental().table_scan_completed("ad-hoc", ["a"], "a", 0, "DONE")
    assert str(refused.value) == (
        "table scan status 'DONE' is not one of "
        "EMPTY, NO_PRIMARY_KEY, SKIPPED, SQL_EXCEPTION, SUCCEEDED, UNKNOWN_SCHEMA"
    )


def test_initial_snapshot_notifications_carry_debeziums_additional_data() -> None:
    made = initial()
    started = made.started()
    assert (started.aggregate_type, started.type, started.additional_data) == (
        "Initial Snapshot",
        "STARTED",
        {"connector_name": "dbserver1"},
    )
    assert uuid.UUID(started.id).version == 4 and started.id != made.started().id
    assert list(made.table_in_progress("public.a", ["public.a", "public.b"]).additional_data.items()) == [
        ("current_collection_in_progress", "public.a"),
        ("connector_name", "dbserver1"),
        ("data_collections", "public.a,public.b"),
    ]
    assert list(made.table_completed("public.a", 3, ["public.a"]).additional_data.items()) == [
        ("scanned_collection", "public.a"),
        ("connector_name", "dbserver1"),
        ("total_rows_scanned", "3"),
        ("data_collections", "public.a"),
        ("status", "SUCCEEDED"),
    ]
    assert list(made.table_failed("public.a").additional_data.items()) == [
        ("connector_name", "dbserver1"),
        ("scanned_collection", "public.a"),
        ("status", "SQL_EXCEPTION"),
    ]
    assert [n.type for n in (made.completed(), made.aborted(), made.skipped())] == ["COMPLETED", "ABORTED", "SKIPPED"]
    assert made.skipped().additional_data == {"connector_name": "dbserver1"}


def test_additional_data_is_in_java_hash_map_order() -> None:
    # Java 17: new HashMap<>(Map.of(...)) then put("connector_name", ...), printed
    assert list(java_hash_map({"data_collections": "a", "connector_name": "c"})) == [
        "connector_name",
        "data_collections",
    ]
    assert list(java_hash_map({"scanned_collection": "a", "status": "s", "connector_name": "c"})) == [
        "connector_name",
        "scanned_collection",
        "status",
    ]
    assert list(java_hash_map({"connector_name": "c"})) == ["connector_name"]


def test_the_log_channel_logs_debeziums_line(caplog: pytest.LogCaptureFixture) -> None:
    notifier = Notifier(["log"], None, "dbserver1")
    caplog.set_level(logging.INFO, logger="connectworker.connectors.debezium.notifications")
    progress = incremental().in_progress("ad-hoc", ["public.a"], "public.a", [1000], [1])
    assert notifier.notify(progress, PARTITION, OFFSET) is None  # no sink: no record
    assert [r.getMessage() for r in caplog.records] == [
        "[Notification Service]  {id='ad-hoc', aggregateType='Incremental Snapshot', type='IN_PROGRESS', "
        "additionalData={current_collection_in_progress=public.a, connector_name=dbserver1, maximum_key=1000, "
        "data_collections=public.a, last_processed_key=1}, timestamp=1700000000123}"
    ]
    assert caplog.records[0].levelno == logging.INFO


def test_java_text_is_debeziums_notification_to_string() -> None:
    # NotificationServiceTest's expectation, after its two-space prefix
    notification = Notification("id1", "Test", "Test", {"Key1": "Value1"}, 1684279500)
    assert java_text(notification) == (
        "{id='id1', aggregateType='Test', type='Test', additionalData={Key1=Value1}, timestamp=1684279500}"
    )


def test_the_notifier_makes_notifications_for_its_connector() -> None:
    notifier = Notifier(["log"], None, "dbserver2", clock=lambda: NOW_MS)
    started = notifier.incremental.started("ad-hoc", ["public.a"])
    assert (started.additional_data["connector_name"], started.timestamp) == ("dbserver2", NOW_MS)
    assert notifier.initial.completed().additional_data == {"connector_name": "dbserver2"}


def test_both_channels_log_and_make_the_record(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="connectworker.connectors.debezium.notifications")
    record = Notifier(["sink", "log"], "n", "dbserver1").notify(incremental().completed("x"), PARTITION, OFFSET)
    assert record is not None and record.value["type"] == "COMPLETED"
    assert len(caplog.records) == 1 and "type='COMPLETED'" in caplog.records[0].getMessage()


def test_no_channel_sends_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    notifier = Notifier([], "notifications", "dbserver1")
    assert not notifier.enabled
    assert notifier.notify(incremental().started("ad-hoc", ["a"]), PARTITION, OFFSET) is None
    assert notifier.notify_pending(incremental().started("ad-hoc", ["a"]), OFFSET) is None
    assert caplog.records == []


def test_the_pending_form_is_the_record_for_the_connectors_queue() -> None:
    notifier = Notifier(["sink"], "n", "dbserver1")
    pending = notifier.notify_pending(incremental().completed("x"), OFFSET)
    assert pending is not None
    offset, key, value, route = pending
    assert (offset, key, value["type"], route) == (OFFSET, {"id": "x"}, "COMPLETED", notifier.route)
    assert route == ("n", NOTIFICATION_KEY, NOTIFICATION_VALUE, ())


def test_sink_without_a_topic_and_unknown_channels_are_refused_naming_the_key() -> None:
    with pytest.raises(ConfigError) as missing:
        Notifier(["sink"], None, "dbserver1")
    assert missing.value.problems == {
        "notification.sink.topic.name": "required when notification.enabled.channels includes sink"
    }
    with pytest.raises(ConfigError) as unknown:
        Notifier(["log", "jmx"], None, "dbserver1")
    assert unknown.value.problems == {"notification.enabled.channels": "unknown channel(s) jmx; allowed: sink, log"}
