"""Helpers of the PostgreSQL change data capture tests: a database per test (its replication slots dropped
before it), statements run on it, and the connector's props."""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg2
from confluent_kafka import Consumer, Message, TopicPartition

from connectworker.api.record import SourceRecord
from connectworker.connectors.postgres_cdc.connector import PostgresCdcConnector
from connectworker.connectors.postgres_cdc.task import PostgresCdcTask
from connectworker.testing import TaskHarness, connector_task_props
from tests.integration.harness import wait_until
from tests.postgres import Postgres

ENVELOPE_FIELDS = ["before", "after", "source", "op", "ts_ms", "ts_us", "ts_ns", "transaction"]
"""The fields of Debezium's (2.6+) change event envelope, in its order."""


class CdcDatabase:
    def __init__(self, server: Postgres, name: str) -> None:
        self.server, self.name = server, name
        self.slot = f"slot_{name}"

    def connect(self, database: str | None = None, user: str | None = None, password: str | None = None) -> Any:
        connection = psycopg2.connect(
            host=self.server.host,
            port=self.server.port,
            dbname=database or self.name,
            user=user or self.server.user,
            password=password or self.server.password,
        )
        connection.autocommit = True
        return connection

    def execute(self, *statements: str) -> None:
        """Run `statements` in one transaction."""
        connection = self.connect()
        try:
            connection.autocommit = False
            with connection.cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)
            connection.commit()
        finally:
            connection.close()

    def query(self, statement: str) -> list[tuple[Any, ...]]:
        connection = self.connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute(statement)
                return list(cursor.fetchall())
        finally:
            connection.close()

    def confirmed_flush_lsn(self) -> int:
        [(lsn,)] = self.query(
            f"SELECT confirmed_flush_lsn - '0/0' FROM pg_replication_slots WHERE slot_name = '{self.slot}'"
        )
        return int(lsn)

    def props(self, **overrides: str) -> dict[str, str]:
        return {
            "name": f"cdc-{self.name}",
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "database.hostname": self.server.host,
            "database.port": str(self.server.port),
            "database.user": self.server.user,
            "database.password": self.server.password,
            "database.dbname": self.name,
            "database.sslmode": "disable",
            "topic.prefix": self.name,
            "plugin.name": "pgoutput",
            "slot.name": self.slot,
            "poll.interval.ms": "100",
            **overrides,
        }


@contextmanager
def cdc_database(server: Postgres) -> Iterator[CdcDatabase]:
    """A database of its own for the test; its slots are dropped (their clients ended) before it is."""
    name = f"c_{uuid.uuid4().hex[:12]}"
    database = CdcDatabase(server, name)
    admin = database.connect("postgres")
    try:
        with admin.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {name}")
    finally:
        admin.close()
    try:
        yield database
    finally:
        admin = database.connect("postgres")  # a new one: the server may have been restarted meanwhile
        with admin.cursor() as cursor:
            for _ in range(200):  # a client's walsender ends a moment after the client closed its connection
                cursor.execute(
                    "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots "
                    "WHERE database = %s AND active_pid IS NOT NULL",
                    (name,),
                )
                cursor.execute(
                    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                    "WHERE database = %s AND NOT active",
                    (name,),
                )
                cursor.execute("SELECT count(*) FROM pg_replication_slots WHERE database = %s", (name,))
                if cursor.fetchone()[0] == 0:
                    break
                time.sleep(0.05)
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


# -- the task without a worker -------------------------------------------------------------------
def harness(db: CdcDatabase, **overrides: str) -> TaskHarness:
    """The PostgreSQL CDC connector's task on `db`, as the worker would start it (testing kit's harness)."""
    return TaskHarness(PostgresCdcTask, connector_task_props(PostgresCdcConnector, db.props(**overrides))[0])


def poll_records(h: TaskHarness, count: int) -> list[SourceRecord]:
    """The next `count` records the task polls (at most 300 polls)."""
    start = len(h.records)
    for _ in range(300):
        h.poll()
        if len(h.records) - start >= count:
            break
    assert len(h.records) - start >= count, f"got {h.records[start:]}"
    return h.records[start : start + count]


# -- reading the topics back ---------------------------------------------------------------------
def read_until(bootstrap: str, topic: str, done: Any, timeout: float = 90) -> list[Any]:
    """(key, value) of the topic's messages, JSON-decoded, from the beginning until `done(key, value)`."""
    out: list[Any] = []

    def take(message: Any) -> bool:
        key = json.loads(message.key()) if message.key() else None
        value = json.loads(message.value()) if message.value() is not None else None
        out.append((key, value))
        return bool(done(key, value))

    consume_until(bootstrap, topic, take, timeout, lambda: f"the end of {topic} ({len(out)} messages read)")
    return out


def consume_until(
    bootstrap: str, topic: str, take: Callable[[Message], bool], timeout: float, what: Callable[[], str]
) -> None:
    """Each of the topic's messages from its beginning (every partition) handed to `take` until it returns
    true; `what` names what was awaited if `timeout` passes first."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"cdc-{topic}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "topic.metadata.refresh.interval.ms": 500,
        }
    )
    try:
        assign_all(consumer, topic, timeout)

        def step() -> bool:
            return any(take(message) for message in consumer.consume(500, timeout=0.5) if not message.error())

        wait_until(step, timeout, what)
    finally:
        consumer.close()


def assign_all(consumer: Consumer, topic: str, timeout: float) -> None:
    """Every partition of `topic` (once it exists) from its start: no consumer group to join."""

    partitions: list[int] = []

    def exists() -> bool:
        metadata = consumer.list_topics(topic, timeout=5).topics.get(topic)
        partitions[:] = list(metadata.partitions) if metadata is not None and metadata.error is None else []
        return bool(partitions)

    wait_until(exists, timeout, f"the topic {topic}")
    consumer.assign([TopicPartition(topic, p, 0) for p in partitions])


def read_all(bootstrap: str, topic: str) -> list[Any]:
    """(key, value) of every message the topic holds now (to each partition's high watermark), JSON-decoded."""

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"all-{topic}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "topic.metadata.refresh.interval.ms": 500,
        }
    )
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in partitions}
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        out: list[Any] = []
        seen = dict.fromkeys(partitions, 0)

        def step() -> bool:
            for message in consumer.consume(500, timeout=0.5):
                if message.error():
                    continue
                seen[message.partition()] = message.offset() + 1
                key = json.loads(message.key()) if message.key() else None
                out.append((key, json.loads(message.value()) if message.value() is not None else None))
            return all(seen[p] >= ends[p] for p in partitions)

        wait_until(step, 60, lambda: f"{topic} read to its end ({len(out)} messages)")
        # Tansu's high watermarks can lag behind the records after multi-record batches: read on until a
        # second passes without a message, so the partitions' last records are not left out.
        quiet_until = time.monotonic() + 1.0
        while time.monotonic() < quiet_until:
            before = len(out)
            step()
            if len(out) > before:
                quiet_until = time.monotonic() + 1.0
        return out
    finally:
        consumer.close()


def read_ids(bootstrap: str, topic: str, ids: range, timeout: float = 60) -> set[int]:
    """The row ids of the topic's change events, read until every one of `ids` was seen."""
    seen: set[int] = set()

    def done(key: Any, value: Any) -> bool:
        if value is not None:
            seen.add(key["id"])
        return seen >= set(ids)

    read_until(bootstrap, topic, done, timeout)
    return seen


def decimal_json(unscaled: int) -> str:
    """A Connect `Decimal` as Kafka's JsonConverter writes it (decimal.format=BASE64): the unscaled value's
    big-endian two's-complement bytes, as few as hold it, in base64."""
    length = (unscaled if unscaled >= 0 else ~unscaled).bit_length() // 8 + 1
    return base64.b64encode(unscaled.to_bytes(length, "big", signed=True)).decode()
