"""A deterministic data generator that writes to many topics, for the demo and the benchmarks.

Each task emits an endless (or `records`-bounded) sequence numbered 0, 1, 2, ... Record ``seq`` has
key ``str(seq)``, goes to topic ``topics[seq % topic.count]`` (the topics in a seeded, shuffled
order) and carries source offset ``{"seq": seq + 1}`` (the number of records emitted so far) in the
source partition ``{"task": <task id>}``. Everything except the ``ts`` field of JSON values is a
function of (`seed`, task id, seq), so a restarted task that resumes from its committed offset
continues the very same sequence.

The string format is built for throughput: payload templates are prepared once per task, and each
poll returns a `SourceRecordBatch` (columns of topics, keys and values; offsets built only when read),
so a record costs a string concatenation and no object of its own. JSON values come as a list of
`SourceRecord`s sharing one source-partition dict.
"""

from __future__ import annotations

import json
import logging
import random
import string
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

import connectworker
from connectworker.api.config_def import (
    ConfigDef,
    ConfigValue,
)
from connectworker.api.connector import SourceConnector, offset_refusal
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.exactly_once import ExactlyOnceSupport
from connectworker.api.record import SourceRecord, SourceRecordBatch, as_json, is_offset_count
from connectworker.api.schema import FLOAT64_SCHEMA, INT64_SCHEMA, STRING_SCHEMA, Schema
from connectworker.api.task import SourceTask
from connectworker.connectors.datagen_keys import (
    BATCH_SIZE_CONFIG,
    CONFIG_DEF,
    FORMAT_CONFIG,
    RATE_CONFIG,
    RECORDS_CONFIG,
    REGIONS,
    SEED_CONFIG,
    TASK_CONFIG_DEF,
    TASK_ID_CONFIG,
    TOPIC_COUNT_CONFIG,
    TOPIC_PATTERN_CONFIG,
    VALUE_SIZE_CONFIG,
    expand_topics,
    region_name,
)

log = logging.getLogger(__name__)

TASK_FIELD = "task"
SEQ_FIELD = "seq"

VALUE_SCHEMA_JSON = Schema.struct(
    "connectworker.datagen.Order",
    ("id", INT64_SCHEMA),
    ("region", STRING_SCHEMA),
    ("amount", FLOAT64_SCHEMA),
    ("ts", INT64_SCHEMA),
    ("payload", STRING_SCHEMA),
)
"""The schema of ``format=json`` values; ``payload`` is filler that brings a value to ~`value.size` bytes."""

_VARIANTS = 1024  # distinct payload bodies / amounts per task, cycled by seq
_VARIANT_BYTES = 16 * 1024 * 1024  # cap on the memory the string bodies of one key length take
_FILLER = string.ascii_letters + string.digits
_MAX_WAIT_S = 0.5  # longest single interruptible sleep in poll()
_ID_MARK = ";id="


def _body(head: str, pad: str, size: int) -> str:
    """A string value minus its key: ``amount=...;pad=<filler>;id=``, cut or padded to `size` chars."""
    fixed = len(head) + len(_ID_MARK)
    if size >= fixed:
        return head + pad[: size - fixed] + _ID_MARK
    return (head + _ID_MARK)[fixed - size :]


def _filler(rng: random.Random, size: int) -> str:
    """`size` seeded random characters; a random block of at most 4 KiB is repeated for big sizes."""
    block = "".join(rng.choices(_FILLER, k=min(size, 4096)))
    return (block * (size // len(block) + 1))[:size] if block else ""


class DataGenConnector(SourceConnector):
    """Splits generation over `tasks.max` tasks, each with its own id and sequence."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return connectworker.__version__

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        results = super().validate(props)
        pattern, count = results[TOPIC_PATTERN_CONFIG], results[TOPIC_COUNT_CONFIG]
        if not pattern.errors and not count.errors:
            try:
                expand_topics(pattern.value, count.value, 0)
            except ConfigError as exc:
                pattern.errors.extend(exc.problems.values())
        return results

    def start(self, props: Mapping[str, str]) -> None:
        config = CONFIG_DEF.parse(props, source="DataGenConnector")
        expand_topics(config[TOPIC_PATTERN_CONFIG], config[TOPIC_COUNT_CONFIG], 0)
        self._props = dict(props)

    def dry_start(self, props: Mapping[str, str]) -> None:
        self.start(props)  # checks the keys: nothing outside the process

    def task_class(self) -> type[SourceTask]:
        return DataGenTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, TASK_ID_CONFIG: str(task_id)} for task_id in range(max(1, max_tasks))]

    def stop(self) -> None:
        """Nothing to release: the tasks hold all state."""

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        """Records are a function of their sequence number: re-read from an offset, they are the same."""
        return ExactlyOnceSupport.SUPPORTED

    def unused_offset_reason(
        self, props: Mapping[str, str], partition: Mapping[str, Any], offset: Mapping[str, Any]
    ) -> str | None:
        """An offset of a task the configuration no longer runs (tasks.max lowered), or a malformed one."""
        if refused := offset_refusal(self, props, partition, offset):
            return refused
        try:
            tasks = max(1, int(props.get("tasks.max", "1")))
        except ValueError:
            return None
        task = partition[TASK_FIELD]
        if task >= tasks:
            return f"the connector runs {tasks} task(s) (tasks.max), none numbered {task}"
        return None

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> bool:
        """A partition is one task's (`{"task": N}`), an offset None or the records emitted (`{"seq": N}`)."""
        for partition, offset in offsets:
            task = partition.get(TASK_FIELD)
            if set(partition) != {TASK_FIELD} or not is_offset_count(task):
                raise ConnectError(
                    f'A DataGen partition is {{"{TASK_FIELD}": <task id>}} with a non-negative integer (got '
                    f"{as_json(partition)})"
                )
            if offset is None:
                continue
            if set(offset) != {SEQ_FIELD} or not is_offset_count(offset[SEQ_FIELD]):
                raise ConnectError(
                    f'A DataGen offset is null or {{"{SEQ_FIELD}": <records emitted>}} with a non-negative '
                    f"integer (got {as_json(offset)} for task {task})"
                )
        return True


class DataGenTask(SourceTask):
    """Generates the deterministic sequence of one task; see the module docstring."""

    idle_wait_s: float = 0.5
    """How long `poll` waits (interruptibly) before returning None once `records` is reached."""

    clock: Callable[[], float] = staticmethod(time.monotonic)
    """The time source of rate limiting (replaceable in tests)."""

    def __init__(self) -> None:
        self._stop_event = threading.Event()
        self._task_id = 0
        self._partition: dict[str, Any] = {TASK_FIELD: 0}
        self._seq = 0
        self._limit = -1
        self._batch_size = 100
        self._rate = 0.0
        self._tokens = 0.0
        self._capacity = 1.0
        self._target = 1.0
        self._refilled_at = 0.0
        self._json = False
        self._value_size = 100
        self._topic_cycle: list[str] = []  # topic of seq is _topic_cycle[seq % topic.count]
        self._region_cycle: list[str] = []  # region of that topic, for json values
        self._amounts: list[float] = []
        self._texts: list[tuple[str, str]] = []  # (head, filler) of each distinct string body
        self._bodies: list[str] = []  # string value of seq is _bodies[seq % len] + str(seq)
        self._bodies_key_len = -1
        self._payload = ""

    def version(self) -> str:
        return connectworker.__version__

    def dry_start(self, props: Mapping[str, str]) -> None:
        self.start(props)  # a generator: it reads and writes nothing outside the process

    def start(self, props: Mapping[str, str]) -> None:
        config = TASK_CONFIG_DEF.parse(props, source="DataGenTask")
        self._task_id = config[TASK_ID_CONFIG]
        topics = expand_topics(config[TOPIC_PATTERN_CONFIG], config[TOPIC_COUNT_CONFIG], self._task_id)
        self._partition = {TASK_FIELD: self._task_id}
        self._limit = config[RECORDS_CONFIG]
        self._batch_size = config[BATCH_SIZE_CONFIG]
        self._json = config[FORMAT_CONFIG].lower() == "json"
        self._value_size = config[VALUE_SIZE_CONFIG]

        # A string seed is hashed with SHA-512 by `random`, so it is stable across runs and platforms.
        rng = random.Random(f"datagen:{config[SEED_CONFIG]}:{self._task_id}")
        order = list(range(len(topics)))
        rng.shuffle(order)
        self._topic_cycle = [topics[i] for i in order]
        self._region_cycle = [region_name(i) for i in order]
        self._amounts = [rng.randrange(100, 1_000_000) / 100 for _ in range(_VARIANTS)]
        variants = max(1, min(_VARIANTS, _VARIANT_BYTES // max(1, self._value_size)))
        self._texts = [self._text(rng, self._amounts[i]) for i in range(variants)]
        self._bodies_key_len = -1
        self._payload = self._json_payload(rng)

        self._rate = config[RATE_CONFIG]
        # At most one second's worth of records, and never more than one batch, at once.
        self._capacity = max(1.0, min(float(self._batch_size), self._rate))
        # Let ~50 ms of records accumulate before emitting, so a fast rate is not served one record a poll;
        # at most half the capacity, so that tokens earned while oversleeping are kept, not capped away.
        self._target = max(1.0, min(self._capacity / 2, self._rate * 0.05))
        self._tokens = self._target
        self._refilled_at = self.clock()

        self._seq = self._resume_seq()
        self._stop_event.clear()
        log.info(
            "DataGen task %d starts at seq %d, writing to %d topic(s) (%s, ...)",
            self._task_id,
            self._seq,
            len(topics),
            topics[0],
        )

    def _text(self, rng: random.Random, amount: float) -> tuple[str, str]:
        """The head and the filler that the string bodies of one variant are built from."""
        return f"amount={amount:.2f};pad=", _filler(rng, self._value_size)

    def _json_payload(self, rng: random.Random) -> str:
        sample = {"id": 10**9, "region": REGIONS[0], "amount": 1234.56, "ts": 1_700_000_000_000, "payload": ""}
        bare = len(json.dumps(sample, separators=(",", ":")))
        return _filler(rng, max(0, self._value_size - bare))

    def _resume_seq(self) -> int:
        offset = self.context.offset_storage_reader.offset(self._partition)
        seq = None if offset is None else offset.get(SEQ_FIELD)
        if seq is None:
            return 0
        if not is_offset_count(seq):
            raise ConnectError(
                f"DataGen task {self._task_id}: the committed offset {as_json(offset)} has an "
                f"invalid '{SEQ_FIELD}' (expected a non-negative integer)"
            )
        return seq

    def poll(self) -> list[SourceRecord] | SourceRecordBatch | None:
        if self._stop_event.is_set():
            return None
        count = self._batch_size
        if self._limit >= 0:
            count = min(count, self._limit - self._seq)
            if count <= 0:
                self._stop_event.wait(self.idle_wait_s)
                return None
        if self._rate > 0:
            count = self._take(count)
            if count == 0:
                return None
        start = self._seq
        stop = start + count
        self._seq = stop
        if self._json:
            return self._json_records(start, stop)
        return self._string_batch(start, stop)

    def _take(self, wanted: int) -> int:
        """How many records the rate allows now (at most `wanted`); sleeps, interruptibly, if none."""
        self._refill()
        if self._tokens < self._target:
            wait = (self._target - self._tokens) / self._rate
            if self._stop_event.wait(min(wait, _MAX_WAIT_S)):
                return 0
            self._refill()
        count = min(wanted, int(self._tokens))
        self._tokens -= count
        return count

    def _refill(self) -> None:
        now = self.clock()
        self._tokens = min(self._capacity, self._tokens + (now - self._refilled_at) * self._rate)
        self._refilled_at = now

    def _string_batch(self, start: int, stop: int) -> SourceRecordBatch:
        """Records `start`..`stop`-1 as columns: no record object and no offset dict per record."""
        topics: list[str] = []
        keys: list[str] = []
        values: list[str] = []
        # Body lengths depend on the key's length, which changes only at powers of ten.
        while start < stop:
            boundary = min(stop, 10 ** len(str(start)))
            self._string_columns(start, boundary, topics, keys, values)
            start = boundary
        return SourceRecordBatch(
            self._partition,
            _SeqOffsets(self._seq - len(keys), self._seq),
            topics,
            keys,
            values,
            key_schema=STRING_SCHEMA,
            value_schema=STRING_SCHEMA,
        )

    def _string_columns(self, start: int, stop: int, topics: list[str], keys: list[str], values: list[str]) -> None:
        """Append records `start`..`stop`-1, whose keys all have the same number of digits."""
        key_len = len(str(start))
        if key_len != self._bodies_key_len:
            size = max(0, self._value_size - key_len)
            self._bodies = [_body(head, pad, size) for head, pad in self._texts]
            self._bodies_key_len = key_len
        bodies, cycle = self._bodies, self._topic_cycle
        n_bodies, n_topics = len(bodies), len(cycle)
        new_keys = list(map(str, range(start, stop)))
        topics += [cycle[seq % n_topics] for seq in range(start, stop)]
        values += [bodies[seq % n_bodies] + key for seq, key in zip(range(start, stop), new_keys, strict=True)]
        keys += new_keys

    def _json_records(self, start: int, stop: int) -> list[SourceRecord]:
        topics, regions, amounts = self._topic_cycle, self._region_cycle, self._amounts
        partition, payload, value_schema = self._partition, self._payload, VALUE_SCHEMA_JSON
        n_topics, n_amounts = len(topics), len(amounts)
        ts = int(time.time() * 1000)
        records = []
        for seq in range(start, stop):
            i = seq % n_topics
            value = {"id": seq, "region": regions[i], "amount": amounts[seq % n_amounts], "ts": ts, "payload": payload}
            records.append(
                SourceRecord(
                    partition,
                    {SEQ_FIELD: seq + 1},
                    topics[i],
                    value,
                    str(seq),
                    None,
                    value_schema,
                    STRING_SCHEMA,
                    None,
                    [],
                )
            )
        return records

    def stop(self) -> None:
        self._stop_event.set()


class _SeqOffsets(Sequence[dict[str, int]]):
    """The source offsets ``{"seq": n}`` of records start..stop-1, built only when read."""

    __slots__ = ("_start", "_stop")

    def __init__(self, start: int, stop: int) -> None:
        self._start, self._stop = start, stop

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> dict[str, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, int]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, int] | list[dict[str, int]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        size = len(self)
        if not -size <= index < size:
            raise IndexError(index)
        return {SEQ_FIELD: self._start + (index % size) + 1}
