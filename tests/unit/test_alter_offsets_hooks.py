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
    (SqlSourceConnector, {}, {"table": "orders"}, {"incrementing": 1}, 'A partition is {"protocol": "1"'),
    (SqlSourceConnector, {}, {"query": "query"}, {"incrementing": "x"}, "An offset is null or holds non-negative"),
    (SqlSourceConnector, {}, {"query": "query"}, {}, "An offset is null or holds non-negative"),
    (PostgresCdcConnector, CDC, {"server": "other"}, None, 'The partition of this connector is {"server": "shop"}'),
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
