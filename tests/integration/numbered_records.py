"""Reading back numbered records (DataGen's keys are 0, 1, 2, ...) to prove none was lost."""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

from connectworker.runtime.offsets.file_store import partition_key


def consume_keys(
    bootstrap: str, topic: str, count: int, timeout: float = 30.0, *, isolation: str = "read_uncommitted"
) -> Counter[int]:
    """How often each key of `topic` was found, reading until keys 0..count-1 were all seen (or
    `timeout` passed), then a moment longer so duplicates at the end are counted too."""
    consumer = Consumer(
        {
            "isolation.level": isolation,
            "bootstrap.servers": bootstrap,
            "group.id": f"test-{uuid.uuid4().hex}",  # required, though unused: partitions are assigned, not
            "enable.auto.commit": False,  # subscribed (a group join takes ~20 s on Tansu)
            "allow.auto.create.topics": False,
        }
    )
    seen: Counter[int] = Counter()
    missing = set(range(count))
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        deadline = time.monotonic() + timeout
        grace_until: float | None = None
        while time.monotonic() < (grace_until or deadline):
            for msg in consumer.consume(num_messages=10_000, timeout=0.3):
                err = msg.error()
                if err is not None:
                    if err.code() in (KafkaError._PARTITION_EOF, KafkaError.UNKNOWN_TOPIC_OR_PART):
                        continue
                    raise RuntimeError(f"consume failed: {err}")
                key = int(msg.key() or b"-1")
                seen[key] += 1
                missing.discard(key)
            if not missing and grace_until is None:
                grace_until = time.monotonic() + 0.5
    finally:
        consumer.close()
    return seen


def assert_none_lost(seen: Counter[int], count: int) -> None:
    """Every record 0..count-1 is in Kafka; duplicates are allowed (at least once) but reported."""
    missing = sorted(set(range(count)) - set(seen))
    duplicates = sum(n - 1 for n in seen.values() if n > 1)
    shown = ", ".join(map(str, missing[:20])) + (" ..." if len(missing) > 20 else "")
    assert not missing, (
        f"{len(missing)} of {count} records lost (first: {shown}); "
        f"{sum(seen.values())} records read, {duplicates} duplicates"
    )


def committed_seq(offsets_file: Path, connector: str, task: int = 0) -> int:
    """The DataGen `seq` committed for one task in the offsets file (0 if none yet)."""
    if not offsets_file.exists():
        return 0
    offsets = json.loads(offsets_file.read_text()).get(connector, {})
    return int(offsets.get(partition_key({"task": task}), {}).get("seq", 0))
