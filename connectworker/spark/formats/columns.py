"""The columns of `connect-source` rows and the columns `connect-kafka` accepts.

Source rows carry Spark's Kafka-sink columns (``topic, key, value, partition, headers, timestamp``),
key and value already serialised by the connector's converters, plus where each record came from:
``connector``, ``task``, ``source_partition`` (canonical JSON), ``source_offset`` (JSON) and
``source_index``, the record's position in its task's micro-batch. The sink uses the index to find
the newest offset of each source partition even if the rows were reshuffled on the way.

The sink accepts any DataFrame with Spark's Kafka-sink columns; other columns are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    ByteType,
    DataType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructType,
    TimestampType,
)

from connectworker.api.errors import ConfigError

SOURCE_SCHEMA_DDL = (
    "topic STRING, key BINARY, value BINARY, partition INT, "
    "headers ARRAY<STRUCT<key: STRING, value: BINARY>>, timestamp TIMESTAMP, "
    "connector STRING, task INT, source_partition STRING, source_offset STRING, source_index BIGINT"
)

HEADER_TYPE = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))
SOURCE_ARROW_SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("key", pa.binary()),
        ("value", pa.binary()),
        ("partition", pa.int32()),
        ("headers", HEADER_TYPE),
        ("timestamp", pa.timestamp("us", tz="UTC")),
        ("connector", pa.string()),
        ("task", pa.int32()),
        ("source_partition", pa.string()),
        ("source_offset", pa.string()),
        ("source_index", pa.int64()),
    ]
)

SOURCE_COLUMNS = ("connector", "source_partition", "source_offset", "source_index")
_BYTES = (StringType, BinaryType)
_INTEGRAL = (ByteType, ShortType, IntegerType, LongType)


@dataclass(frozen=True)
class SinkColumns:
    """Which optional columns a DataFrame given to `connect-kafka` has."""

    topic: bool
    key: bool
    partition: bool
    headers: bool
    timestamp: bool
    source: bool  # connect-source rows: the sink commits their source offsets

    @classmethod
    def of(cls, schema: StructType, *, topic_option: str | None) -> SinkColumns:
        """Check `schema` as Spark's Kafka sink does; raise `ConfigError` naming each bad column."""
        types = {f.name.lower(): f.dataType for f in schema.fields}
        problems: dict[str, str] = {}

        def check(name: str, allowed: tuple[type[DataType], ...], what: str, *, required: bool) -> bool:
            dtype = types.get(name)
            if dtype is None:
                if required:
                    problems[name] = f"required column is missing; it must be {what}"
                return False
            if not isinstance(dtype, allowed):
                problems[name] = f"must be {what}, got {dtype.simpleString()}"
            return True

        check("value", _BYTES, "a string or binary", required=True)
        has_topic = check("topic", (StringType,), "a string", required=topic_option is None)
        if "topic" in problems and topic_option is None:
            problems["topic"] += " (or give the option topic)"
        has_key = check("key", _BYTES, "a string or binary", required=False)
        has_partition = check("partition", _INTEGRAL, "an int", required=False)
        has_headers = "headers" in types
        if has_headers and not _is_header_type(types["headers"]):
            problems["headers"] = (
                f"must be array<struct<key: string, value: binary>>, got {types['headers'].simpleString()}"
            )
        has_timestamp = check("timestamp", (TimestampType,), "a timestamp", required=False)
        has_source = "source_offset" in types
        if has_source:
            check("connector", (StringType,), "a string (connect-source rows)", required=True)
            check("source_partition", (StringType,), "a string (connect-source rows)", required=True)
            check("source_offset", (StringType,), "a string (connect-source rows)", required=True)
            check("source_index", _INTEGRAL, "a bigint (connect-source rows)", required=True)
        if problems:
            raise ConfigError({f"column {k}": v for k, v in problems.items()}, source="connect-kafka")
        return cls(has_topic, has_key, has_partition, has_headers, has_timestamp, has_source)


def _is_header_type(dtype: DataType) -> bool:
    if not isinstance(dtype, ArrayType) or not isinstance(dtype.elementType, StructType):
        return False
    fields = {f.name: f.dataType for f in dtype.elementType.fields}
    return (
        set(fields) == {"key", "value"}
        and isinstance(fields["key"], StringType)
        and isinstance(fields["value"], _BYTES)
    )
