"""The built-in connectors' `alter_offsets` (Kafka's `alterOffsets`, KIP-875): the offsets an operator may
set through `PATCH /connectors/NAME/offsets`, and those each refuses, saying why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from connectworker.api import SourceConnector
from connectworker.api.errors import ConnectError
from connectworker.connectors.datagen import DataGenConnector
from connectworker.connectors.file_source import FileStreamSourceConnector
from connectworker.connectors.postgres_cdc.connector import PostgresCdcConnector
from connectworker.connectors.sql.connector import SqlSourceConnector

CDC = {"topic.prefix": "shop"}

ACCEPTED: list[tuple[type[SourceConnector], Mapping[str, str], dict[str, Any], dict[str, Any] | None]] = [
    (FileStreamSourceConnector, {}, {"filename": "/data/in.txt"}, {"position": 0}),
    (FileStreamSourceConnector, {}, {"filename": "/data/in.txt"}, None),
    (DataGenConnector, {}, {"task": 1}, {"seq": 250}),
    (DataGenConnector, {}, {"task": 0}, None),
    (SqlSourceConnector, {}, {"protocol": "1", "table": "public.orders"}, {"incrementing": 42}),
    (SqlSourceConnector, {}, {"query": "query"}, {"timestamp": 1700000000000, "timestamp_nanos": 5}),
    (PostgresCdcConnector, CDC, {"server": "shop"}, {"lsn": 23785528, "txId": 760, "ts_usec": 1}),
    (PostgresCdcConnector, CDC, {"server": "shop"}, None),
]

REFUSED: list[tuple[type[SourceConnector], Mapping[str, str], dict[str, Any], dict[str, Any] | None, str]] = [
    (FileStreamSourceConnector, {}, {"file": "x"}, {"position": 1}, "Partition objects should contain the key"),
    (FileStreamSourceConnector, {}, {"filename": "x"}, {"line": 1}, "contain the key 'position'"),
    (FileStreamSourceConnector, {}, {"filename": "x"}, {"position": True}, "expected to be a Long value"),
    (DataGenConnector, {}, {"task": "0"}, {"seq": 1}, 'A DataGen partition is {"task": <task id>}'),
    (DataGenConnector, {}, {"task": 0}, {"seq": -3}, 'A DataGen offset is null or {"seq": <records emitted>}'),
    (DataGenConnector, {}, {"task": 0}, {"seq": "abc"}, '(got {"seq": "abc"} for task 0)'),  # as JSON, as written
    (SqlSourceConnector, {}, {"table": "orders"}, {"incrementing": 1}, 'A partition is {"protocol": "1"'),
    (SqlSourceConnector, {}, {"query": "query"}, {"incrementing": "x"}, "An offset is null or holds non-negative"),
    (SqlSourceConnector, {}, {"query": "query"}, {}, "An offset is null or holds non-negative"),
    (PostgresCdcConnector, CDC, {"server": "other"}, None, 'The partition of this connector is {"server": "shop"}'),
    (PostgresCdcConnector, CDC, {"server": "other"}, None, 'got {"server": "other"}'),
    (PostgresCdcConnector, CDC, {"server": "shop"}, {"lsn": "0/16B3748"}, "holds the LSN to stream from"),
]


@pytest.mark.parametrize(("connector", "props", "partition", "offset"), ACCEPTED)
def test_offsets_a_task_can_resume_from_are_accepted(
    connector: type[SourceConnector], props: Mapping[str, str], partition: dict[str, Any], offset: dict[str, Any] | None
) -> None:
    assert connector().alter_offsets(props, [(partition, offset)]) is True


@pytest.mark.parametrize(("connector", "props", "partition", "offset", "message"), REFUSED)
def test_offsets_a_task_could_not_resume_from_are_refused_saying_why(
    connector: type[SourceConnector],
    props: Mapping[str, str],
    partition: dict[str, Any],
    offset: dict[str, Any] | None,
    message: str,
) -> None:
    with pytest.raises(ConnectError) as refused:
        connector().alter_offsets(props, [(partition, offset)])
    assert message in str(refused.value)


FILE = {"file": "/data/in.txt"}
USED: list[tuple[type[SourceConnector], Mapping[str, str], dict[str, Any], dict[str, Any]]] = [
    (FileStreamSourceConnector, FILE, {"filename": "/data/in.txt"}, {"position": 7}),
    (DataGenConnector, {"tasks.max": "2"}, {"task": 1}, {"seq": 250}),
    (SqlSourceConnector, {}, {"protocol": "1", "table": "public.orders"}, {"incrementing": 42}),
    (SqlSourceConnector, {"query": "SELECT 1"}, {"query": "query"}, {"incrementing": 42}),
    (PostgresCdcConnector, CDC, {"server": "shop"}, {"lsn": 23785528}),
]

UNUSED: list[tuple[type[SourceConnector], Mapping[str, str], dict[str, Any], dict[str, Any], str]] = [
    (FileStreamSourceConnector, FILE, {"filename": "/old.txt"}, {"position": 7}, "the connector reads /data/in.txt;"),
    (FileStreamSourceConnector, {}, {"filename": "/old.txt"}, {"position": 7}, "the connector reads standard input"),
    (FileStreamSourceConnector, FILE, {"filename": "/data/in.txt"}, {"pos": 7}, "contain the key 'position'"),
    (DataGenConnector, {"tasks.max": "2"}, {"task": 2}, {"seq": 1}, "runs 2 task(s) (tasks.max), none numbered 2"),
    (DataGenConnector, {}, {"task": 0}, {"seq": "x"}, "A DataGen offset is null or"),
    (
        SqlSourceConnector,
        {"query": "SELECT 1"},
        {"protocol": "1", "table": "t"},
        {"incrementing": 1},
        "reads its query",
    ),
    (SqlSourceConnector, {}, {"query": "query"}, {"incrementing": 1}, "reads tables, not a query"),
    (
        PostgresCdcConnector,
        CDC,
        {"server": "shop-v1"},
        {"lsn": 1},
        'The partition of this connector is {"server": "shop"}',
    ),
]


@pytest.mark.parametrize(("connector", "props", "partition", "offset"), USED)
def test_an_offset_a_task_of_the_config_resumes_from_is_not_flagged(
    connector: type[SourceConnector], props: Mapping[str, str], partition: dict[str, Any], offset: dict[str, Any]
) -> None:
    assert connector().unused_offset_reason(props, partition, offset) is None


@pytest.mark.parametrize(("connector", "props", "partition", "offset", "reason"), UNUSED)
def test_an_offset_no_task_of_the_config_would_use_is_flagged_saying_why(
    connector: type[SourceConnector],
    props: Mapping[str, str],
    partition: dict[str, Any],
    offset: dict[str, Any],
    reason: str,
) -> None:
    assert reason in (connector().unused_offset_reason(props, partition, offset) or "")
