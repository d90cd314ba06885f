"""What a task's FAILED status says when Kafka's producer refuses a record."""

from __future__ import annotations

from confluent_kafka import KafkaError, KafkaException

from connectworker.api.record import SourceRecord

TOO_LARGE = frozenset({KafkaError.MSG_SIZE_TOO_LARGE})  # raised by produce() itself as well


def _kafka_error(exc: BaseException) -> KafkaError | None:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return exc.args[0]
    return None


def placement(topic: str, partition: int | None) -> str:
    """Where a record was going, as a failure message names it."""
    return f"topic {topic!r}" if partition is None else f"topic {topic!r}, partition {partition}"


def pinned_partition_hint(topic: str, partition: int | None) -> str:
    """Why a record the task pinned to `partition` was refused as "unknown partition"."""
    return (
        f" The task set the record's partition to {partition}, which topic {topic!r} does not have: "
        f"return records with a partition below the topic's partition count, or none (the producer "
        f"then picks one)."
    )


def send_failure_message(task_name: str, record: SourceRecord, value: bytes | None, exc: BaseException) -> str:
    """Which record the producer refused, why, what to change, and what happens to the offsets."""
    err = _kafka_error(exc)
    reason = f"{err.str()} ({err.name()})" if err is not None else f"{type(exc).__name__}: {exc}"
    hint = ""
    if err is not None and err.code() in TOO_LARGE:
        size = len(value) if value is not None else 0
        hint = (
            f" The record value is {size:,} bytes: raise the producer's message.max.bytes "
            f"(worker: producer.message.max.bytes, connector: producer.override.message.max.bytes) and the "
            f"topic's max.message.bytes, or make the records smaller."
        )
    elif err is not None and err.code() == KafkaError._UNKNOWN_PARTITION and record.partition is not None:
        hint = pinned_partition_hint(record.topic, record.partition)
    return (
        f"Kafka's producer refused a record of task {task_name} ({placement(record.topic, record.partition)}, "
        f"source partition {record.source_partition!r}, source offset {record.source_offset!r}): {reason}.{hint} "
        f"Offsets are committed up to the record before it; this record and the ones after it are sent again "
        f"when the task restarts."
    )
