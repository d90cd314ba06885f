"""The type mapping (connectors/mysql_cdc/types.py) applied to what a real MariaDB 10.11 gives: its
information_schema `COLUMN_TYPE` texts and the values PyMySQL reads in a UTC session, as the snapshot reads
them; MariaDB's JSON is LONGTEXT and maps to a plain string."""

from __future__ import annotations

import uuid

from connectworker.api.schema import SchemaType
from connectworker.connectors.mysql_cdc.types import MySqlTypeOptions, require_type
from tests.mariadb import MariaDb


def test_mariadb_columns_map_as_debezium_writes_them(mariadb: MariaDb) -> None:
    name = f"t_{uuid.uuid4().hex[:10]}"
    mariadb.execute(
        f"CREATE DATABASE {name}",
        f"CREATE TABLE {name}.t (id INT UNSIGNED PRIMARY KEY, flag TINYINT(1), big BIGINT UNSIGNED, "
        "price DECIMAL(10,2), created DATETIME(3), seen TIMESTAMP(0) NULL, day DATE, span TIME(6), y YEAR, "
        "doc JSON, colour ENUM('red','green'), tags SET('a','b','c'), bits BIT(12), raw BLOB)",
        f"INSERT INTO {name}.t VALUES (4294967295, 1, 18446744073709551615, -12.34, '2018-06-20 13:37:03.123', "
        "'2018-06-20 13:37:03', '2018-06-20', '-01:30:00.5', 2024, '{\"a\": 1}', 'green', 'c,a', b'101000000011', "
        "x'ff00')",
    )
    connection = mariadb.connect(name, init_command="SET time_zone = '+00:00'", binary_prefix=False)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s "
                "AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION",
                (name,),
            )
            types = list(cursor.fetchall())
            cursor.execute("SELECT * FROM t")
            [row] = cursor.fetchall()
    finally:
        connection.close()
        mariadb.execute(f"DROP DATABASE {name}")
    options = MySqlTypeOptions(time_precision="adaptive_time_microseconds")
    mapped = {}
    for (column, text), value in zip(types, row, strict=True):
        kind = require_type(f"{name}.t", column, text, options)
        mapped[column] = (kind.schema.name or kind.schema.type, kind.parse(value))
    assert mapped == {
        "id": (SchemaType.INT64, 4294967295),
        "flag": (SchemaType.INT16, 1),
        "big": (SchemaType.INT64, -1),  # bigint.unsigned.handling.mode=long: Java's long wraps
        "price": ("org.apache.kafka.connect.data.Decimal", b"\xfb\x2e"),
        "created": ("io.debezium.time.Timestamp", 1529501823123),
        "seen": ("io.debezium.time.ZonedTimestamp", "2018-06-20T13:37:03Z"),
        "day": ("io.debezium.time.Date", 17702),
        "span": ("io.debezium.time.MicroTime", -5_400_500_000),
        "y": ("io.debezium.time.Year", 2024),
        "doc": (SchemaType.STRING, '{"a": 1}'),  # MariaDB's JSON is LONGTEXT with a json_valid check
        "colour": ("io.debezium.data.Enum", "green"),
        "tags": ("io.debezium.data.EnumSet", "a,c"),
        "bits": ("io.debezium.data.Bits", b"\x03\x0a"),
        "raw": (SchemaType.BYTES, b"\xff\x00"),
    }
