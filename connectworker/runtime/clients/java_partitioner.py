"""The partition Kafka's Java producer picks for a keyed record: murmur2 of the key, made positive,
modulo the partition count (librdkafka calls it `murmur2_random`).

Offset records name their partition explicitly with it, so that a task's transactional producer and
the offset store's own producer put a source partition's offsets in the same topic partition as Kafka
Connect would, whatever partitioner the task's producer uses for the connector's records.
"""

from __future__ import annotations

__all__ = ["java_partition", "murmur2"]

_SEED = 0x9747B28C
_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Kafka's `Utils.murmur2`, as an unsigned 32-bit value."""
    length = len(data)
    h = (_SEED ^ length) & _MASK
    whole = length - length % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = ((h * _M) & _MASK) ^ k
    rest = length % 4
    if rest == 3:
        h ^= data[whole + 2] << 16
    if rest >= 2:
        h ^= data[whole + 1] << 8
    if rest >= 1:
        h ^= data[whole]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h


def java_partition(key: bytes, partitions: int) -> int:
    """`Utils.toPositive(Utils.murmur2(key)) % partitions`."""
    return (murmur2(key) & 0x7FFFFFFF) % partitions
