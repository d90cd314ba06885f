"""The keys both CDC connectors share, tried as a Debezium operator's file uses them, on both real servers:
the column mappers (`column.mask.with.N.chars`, `column.mask.hash.<algorithm>.with.salt.<salt>`,
`column.truncate.to.N.chars`, `column.propagate.source.type`) in the snapshot and the stream alike, the
include lists matched ignoring case, and a list naming no column warned about."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.broker import Broker
from tests.integration.cdc_helpers import CdcDatabase, cdc_database, harness, poll_records, read_until
from tests.integration.harness import running_worker
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database
from tests.mariadb import MariaDb
from tests.postgres import Postgres

SALT = "CzQMA0cB5K"


def v1_sha256(value: str, length: int) -> str:
    """Debezium's V1 hash, computed here from its definition: SHA-256 of the salt, then the value as Java's
    ObjectOutputStream writes a String (stream header, TC_STRING, the length, modified UTF-8), in hex, cut to
    the column's length."""
    data = value.encode()
    serialized = b"\xac\xed\x00\x05t" + len(data).to_bytes(2, "big") + data
    return hashlib.sha256(SALT.encode() + serialized).hexdigest()[:length]


@pytest.fixture
def pg(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        yield database


@pytest.fixture
def my(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def test_postgres_masks_hashes_and_truncates_in_the_snapshot_and_the_stream_and_keeps_the_key_in_clear(
    pg: CdcDatabase, caplog: pytest.LogCaptureFixture
) -> None:
    pg.execute(
        "CREATE TABLE customers (email varchar(40) PRIMARY KEY, name varchar(20), phone text, age int)",
        "INSERT INTO customers VALUES ('anna@example.com', 'Anna', '0612345678', 30)",
    )
    table = "public.customers"
    with (
        caplog.at_level(logging.WARNING),
        harness(
            pg,
            **{
                "table.include.list": "PUBLIC.Customers",  # Debezium's lists ignore case
                "column.mask.with.5.chars": f"{table}.email",
                f"column.mask.hash.SHA-256.with.salt.{SALT}": f"{table}.name",
                "column.truncate.to.4.chars": f"{table}.phone,{table}.emial",
                "column.propagate.source.type": f"{table}.age",
            },
        ) as h,
    ):
        [snapshot] = poll_records(h, 1)
        pg.execute(
            "INSERT INTO customers VALUES ('bob@example.com', 'Bob', '0798765432', NULL)",
            "UPDATE customers SET phone = '0611111111' WHERE email = 'anna@example.com'",
        )
        created, updated = poll_records(h, 2)
    assert snapshot.value["after"] == {"email": "*****", "name": v1_sha256("Anna", 20), "phone": "0612", "age": 30}
    assert created.value["after"] == {"email": "*****", "name": v1_sha256("Bob", 20), "phone": "0798", "age": None}
    assert updated.value["before"] is None and updated.value["after"]["phone"] == "0611"
    # Debezium builds the key without mappers: the masked key column is in clear there, and the key schema
    # carries no mapper's parameters
    assert [r.key for r in (snapshot, created, updated)] == [
        {"email": "anna@example.com"},
        {"email": "bob@example.com"},
        {"email": "anna@example.com"},
    ]
    value_fields = {f.name: f.schema for f in snapshot.value_schema.fields[1].schema.fields}  # after
    assert dict(value_fields["email"].parameters).get("masked") == "true"
    assert dict(value_fields["age"].parameters) == {
        "__debezium.source.column.type": "INT4",
        "__debezium.source.column.length": "10",
        "__debezium.source.column.scale": "0",
        "__debezium.source.column.name": "age",
    }
    assert snapshot.key_schema is not None and not snapshot.key_schema.fields[0].schema.parameters
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("'public.customers.emial' matches no captured column" in w for w in warnings), warnings
    assert any("public.customers.email" in w and "key" in w for w in warnings), warnings


def test_mysql_masks_hashes_truncates_and_propagates_the_source_type_in_the_snapshot_and_the_stream(
    broker: Broker, my: MySqlDatabase, tmp_path: Path
) -> None:
    my.execute(
        "CREATE TABLE customers (id INT PRIMARY KEY, email VARCHAR(40), name VARCHAR(20), phone TEXT, "
        "price DECIMAL(8,2))",
        "INSERT INTO customers VALUES (1, 'anna@example.com', 'Anna', '0612345678', 1.50)",
    )
    bootstrap, table = broker.bootstrap_servers, f"{my.name}.customers"
    topic = f"{my.name}.{table}"
    props = my.props(
        bootstrap,
        **{
            "table.include.list": table.upper(),
            "column.mask.with.5.chars": f"{table}.email",
            f"column.mask.hash.SHA-256.with.salt.{SALT}": f"{table}.name",
            "column.truncate.to.4.chars": f"{table}.phone",
            "column.propagate.source.type": f"{table}.price",
        },
    )
    with running_worker(json_worker(bootstrap, tmp_path), props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 1})
        my.execute("INSERT INTO customers VALUES (2, 'bob@example.com', 'Bob', '0798765432', NULL)")
        messages = read_until(bootstrap, topic, lambda k, v: k == {"id": 2})
    payloads = {key["id"]: value for key, value in messages if value is not None}
    snapshot, created = payloads[1]["payload"], payloads[2]["payload"]
    assert (snapshot["op"], created["op"]) == ("r", "c")
    assert {k: snapshot["after"][k] for k in ("email", "name", "phone")} == {
        "email": "*****",
        "name": v1_sha256("Anna", 20),
        "phone": "0612",
    }
    assert {k: created["after"][k] for k in ("email", "name", "phone")} == {
        "email": "*****",
        "name": v1_sha256("Bob", 20),
        "phone": "0798",
    }
    after_schema = next(f for f in payloads[2]["schema"]["fields"] if f["field"] == "after")
    fields: dict[str, Any] = {f["field"]: f for f in after_schema["fields"]}
    assert fields["price"]["parameters"]["__debezium.source.column.type"] == "DECIMAL"
    assert fields["price"]["parameters"]["__debezium.source.column.length"] == "8"
    assert fields["price"]["parameters"]["__debezium.source.column.scale"] == "2"
