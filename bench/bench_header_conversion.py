"""What record headers cost the conversion of a poll, in the same run, without a broker.

`RecordSerializer.convert_records` (the task's key, value and header converters over one poll; the
step before anything is produced) on polls of 500 `SourceRecord`s with ~100-byte string values and
StringConverter for keys and values:

- no headers: the common case, which must cost what it cost before headers were converted (one scan
  of the poll, which also tells the sender it may take its fastest path);
- two `str` headers, SimpleHeaderConverter: sent as they are, no converter call;
- two typed headers (an int and a float32 `SchemaAndValue`, different in every record, so no cache
  helps), SimpleHeaderConverter: Kafka's text;
- the same two typed headers, JsonConverter (`schemas.enable` true, Kafka's default): the envelope.

Each variant is timed `rounds` times (the best of 5 repeats of 40 polls each round), rounds interleaved
so a drifting machine affects all alike; ns per record are medians over the rounds.
Run: `python -m bench.bench_header_conversion [rounds]`.
"""

from __future__ import annotations

import statistics
import sys
import threading
import timeit
from collections.abc import Callable

from bench.results import write_section
from connectworker.api import SchemaAndValue, SourceRecord
from connectworker.api.schema import Schema, SchemaType
from connectworker.config.error_handling import ErrorHandling
from connectworker.converters import HeaderConverter, SimpleHeaderConverter, StringConverter, load_header_converter
from connectworker.converters.values_text import _shortest_digits
from connectworker.runtime.tasks.error_tolerance import ToleranceOperator
from connectworker.runtime.tasks.record_conversion import RecordSerializer

POLL = 500
POLLS_PER_REPEAT = 40
FLOAT32 = Schema(SchemaType.FLOAT32)


def serializer(headers: HeaderConverter) -> RecordSerializer:
    key, value = StringConverter(), StringConverter()
    key.configure({}, True)
    value.configure({}, False)
    return RecordSerializer(key, value, ToleranceOperator(ErrorHandling(), "bench-0", threading.Event()), headers)


def typed(n: int) -> list[tuple[str, object]]:
    return [("n", n), ("f", SchemaAndValue(FLOAT32, n / 7))]


def poll(headers: Callable[[int], list[tuple[str, object]]]) -> list[SourceRecord]:
    partition = {"bench": 0}
    return [
        SourceRecord(partition, {"n": n}, "bench", f"{n:>10}" + "x" * 90, str(n), headers=headers(n))
        for n in range(POLL)
    ]


VARIANTS: dict[str, tuple[Callable[[], HeaderConverter], Callable[[int], list[tuple[str, object]]]]] = {
    "no headers": (SimpleHeaderConverter, lambda n: []),
    "2 str headers, SimpleHeaderConverter": (SimpleHeaderConverter, lambda n: [("a", "x"), ("b", "y")]),
    "2 typed headers, SimpleHeaderConverter": (SimpleHeaderConverter, lambda n: typed(n)),
    "2 typed headers, JsonConverter": (lambda: load_header_converter("JsonConverter", {}), lambda n: typed(n)),
}


def ns_per_record(variant: str) -> float:
    make_converter, headers = VARIANTS[variant]
    convert, records = serializer(make_converter()).convert_records, poll(headers)
    forget = _shortest_digits.cache_clear  # every poll meets its numbers for the first time

    def one_poll() -> None:
        forget()
        convert(records)

    best = min(timeit.repeat(one_poll, number=POLLS_PER_REPEAT, repeat=5))
    return best / POLLS_PER_REPEAT / POLL * 1e9


def main(rounds: int = 7) -> None:
    results: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(rounds):
        for name in VARIANTS:
            results[name].append(ns_per_record(name))
    base = statistics.median(results["no headers"])
    rows = ["| poll | ns/record (median) | rounds | over no headers |", "|---|---:|---|---:|"]
    for name, times in results.items():
        median = statistics.median(times)
        rows.append(f"| {name} | {median:.0f} | {', '.join(f'{t:.0f}' for t in times)} | {median - base:+.0f} |")
    body = (
        f"`RecordSerializer.convert_records` on polls of {POLL} records (~100-byte str values, StringConverter "
        f"keys and values), best of 5 x {POLLS_PER_REPEAT} polls per round, {rounds} interleaved rounds.\n\n"
        + "\n".join(rows)
        + f"\n\nCommand: `python -m bench.bench_header_conversion {rounds}`"
    )
    write_section("Header conversion cost", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
