"""Turning one poll's records into the bytes the producer sends, before any of them is sent.

Every record of a poll is converted first; only then is anything handed to the producer, so a record
that cannot be converted never leaves a half-sent poll behind whose offsets might be committed.

The common case runs in C loops, column by column: the keys (or values) are read off the records with
`attrgetter`, then encoded all at once, by `str.encode` for converters that declare a `str_encoding`
(when every one is a `str`) or by the converter's `from_connect_values`. Only when one of them raises
does the slow path run: record by record, through the task's `ToleranceOperator` (retry
`RetriableError`, then skip or fail). The record that made the fast path fail is thus converted once
more before `errors.retry.timeout` counts: harmless for errors that repeat, one immediate extra attempt
for a retriable one.

Headers go through the task's header converter (`header.converter`) with the key and value, as Kafka
converts them. Whether a poll has any is learnt in the survey (`poll_survey.py`) that tells the sender
whether its records set nothing but topic, key and value (`ConvertedPoll.plain`), a pass made anyway: a poll
without headers costs nothing more. Plain `str` header values are encoded inline when the converter
allows it (`SimpleHeaderConverter` does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import repeat
from operator import attrgetter
from typing import Any

from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.api.schema import SchemaAndValue
from connectworker.converters.base import Converter
from connectworker.converters.header_converters import HeaderConverter, SimpleHeaderConverter
from connectworker.runtime.tasks.error_tolerance import Skipped, ToleranceOperator
from connectworker.runtime.tasks.poll_survey import PollSurvey, scan

ConvertedHeaders = list[tuple[str, bytes | str | None]]
"""Header names and values for the producer (a `str` value is sent UTF-8 encoded)."""

_TOPIC, _KEY, _VALUE = attrgetter("topic"), attrgetter("key"), attrgetter("value")
_KEY_SCHEMA, _VALUE_SCHEMA = attrgetter("key_schema"), attrgetter("value_schema")


def _encoded(
    converter: Converter,
    topics: Sequence[str],
    schemas: Callable[[], Sequence[Any]],
    data: Sequence[Any],
    encoding: str | None,
) -> list[bytes | None]:
    """`data` (a poll's keys or values) through `converter`, in C loops: `str.encode` when `encoding`
    (the converter's `str_encoding`, unless the caller tried it already) is set and every item is a `str`,
    else its `from_connect_values` (`schemas` gives their schemas, read only then). Raises what the
    converter raises."""
    texts = _str_encoded(data, encoding) if encoding else None
    return texts if texts is not None else converter.from_connect_values(topics, schemas(), data)


def _column_encoded(
    converter: Converter,
    topics: Sequence[str],
    records: Sequence[SourceRecord],
    field: Callable[[SourceRecord], Any],
    schema: Callable[[SourceRecord], Any],
) -> list[bytes | None]:
    """One field of every record (`field`: `_KEY` or `_VALUE`) through `converter`, as `_encoded`. For
    UTF-8 text the field is read and encoded in one C loop, without a list of the values in between (one
    pass over the records fewer); anything else reads the column first."""
    encoding = converter.str_encoding
    if encoding == "utf-8":
        try:
            return list(map(str.encode, map(field, records)))
        except (TypeError, UnicodeError):
            encoding = None  # not all text: the converter decides, without a second try at encoding
    return _encoded(converter, topics, lambda: list(map(schema, records)), list(map(field, records)), encoding)


def _str_encoded(data: Sequence[Any], encoding: str) -> list[bytes | None] | None:
    """Every item of `data` encoded; None when not all of them are text (or one cannot be encoded), so
    that the converter says what to do with them."""
    try:
        if encoding == "utf-8":
            return list(map(str.encode, data))
        return list(map(str.encode, data, repeat(encoding, len(data))))
    except (TypeError, UnicodeError):
        return None


@dataclass(slots=True)
class ConvertedPoll:
    """The converted form of a poll, index-aligned: `topics[i]`, `keys[i]`, `values[i]` (and
    `records[i]` for a list poll). Records skipped under `errors.tolerance=all` are in `dropped`."""

    topics: Sequence[str]
    keys: list[bytes | None]
    values: list[bytes | None]
    records: Sequence[SourceRecord] | None
    dropped: list[SourceRecord] = field(default_factory=list)
    polled: int = 0
    """How many records the task returned (sent and dropped alike)."""
    kept: list[int] | None = None
    """For each converted record, its index in the poll; None when nothing was dropped."""
    headers: list[ConvertedHeaders | None] | None = None
    """For each converted record, its headers as the producer takes them (None: it has none); None when no
    record of the poll has a header."""
    plain: bool = True
    """No record sets a partition, a timestamp or headers: topic, key and value are all there is to send."""

    def polled_index(self, index: int) -> int:
        """The position in the poll of converted record `index`."""
        return index if self.kept is None else self.kept[index]


class RecordSerializer:
    """A task's key, value and header converters, applied to whole polls."""

    def __init__(
        self,
        key_converter: Converter,
        value_converter: Converter,
        tolerance: ToleranceOperator,
        header_converter: HeaderConverter | None = None,
    ) -> None:
        self.key_converter = key_converter
        self.value_converter = value_converter
        self.header_converter = header_converter if header_converter is not None else SimpleHeaderConverter()
        self._tolerance = tolerance
        encoding = self.header_converter.str_encoding
        # the producer encodes a str header value as UTF-8 itself
        self._header_str: str | None = None if encoding in (None, "utf-8") else encoding
        self._header_str_inline = encoding is not None

    def convert_headers(self, record: SourceRecord) -> ConvertedHeaders | None:
        """`record`'s headers through the header converter (None when it has none)."""
        headers = record.headers
        if not headers:
            return None
        convert, topic = self.header_converter.from_connect_header, record.topic
        inline, encoding = self._header_str_inline, self._header_str
        out: ConvertedHeaders = []
        for name, value in headers:
            converted: Any
            if inline and type(value) is str:
                converted = value if encoding is None else value.encode(encoding)
            elif isinstance(value, SchemaAndValue):
                converted = convert(topic, name, value.schema, value.value)
            else:
                converted = convert(topic, name, None, value)
            out.append((name, converted))
        return out

    def convert_records(self, records: Sequence[SourceRecord], surveyed: PollSurvey | None = None) -> ConvertedPoll:
        """`records` converted; `surveyed`: what `poll_survey.survey` found in them, if the caller asked."""
        try:
            one_topic = surveyed.topic if surveyed is not None else None
            topics = [one_topic] * len(records) if one_topic is not None else list(map(_TOPIC, records))
            keys = _column_encoded(self.key_converter, topics, records, _KEY, _KEY_SCHEMA)
            values = _column_encoded(self.value_converter, topics, records, _VALUE, _VALUE_SCHEMA)
            plain, with_headers = scan(records) if surveyed is None else (surveyed.plain, surveyed.with_headers)
            headers = [self.convert_headers(r) for r in records] if with_headers else None
        except Exception:  # some record cannot be converted: find it, and retry, skip or fail it
            return self._convert_one_by_one(records, None)
        return ConvertedPoll(topics, keys, values, records, polled=len(records), headers=headers, plain=plain)

    def convert_batch(self, batch: SourceRecordBatch) -> ConvertedPoll:
        """The columnar form: no record objects, one key schema and one value schema for all."""
        topics, count = batch.topics, len(batch)
        try:  # the columns' lengths were checked when the batch was built
            kc, vc = self.key_converter, self.value_converter
            keys = _encoded(kc, topics, lambda: [batch.key_schema] * count, batch.keys, kc.str_encoding)
            values = _encoded(vc, topics, lambda: [batch.value_schema] * count, batch.values, vc.str_encoding)
        except Exception:
            return self._convert_one_by_one(batch, batch)
        return ConvertedPoll(topics, keys, values, None, polled=count)

    def _convert_one_by_one(self, records: Sequence[SourceRecord], batch: SourceRecordBatch | None) -> ConvertedPoll:
        kconv, vconv = self.key_converter.from_connect_data, self.value_converter.from_connect_data
        run = self._tolerance.run
        out = ConvertedPoll([], [], [], None if batch is not None else [], polled=len(records))
        topics: list[str] = []
        kept: list[SourceRecord] = []
        out.kept = []
        headers: list[ConvertedHeaders | None] = []
        for index, record in enumerate(records):  # a SourceRecordBatch builds each record on access
            key = run("key converter", partial(kconv, record.topic, record.key_schema, record.key), record)
            if isinstance(key, Skipped):
                out.dropped.append(record)
                continue
            value = run("value converter", partial(vconv, record.topic, record.value_schema, record.value), record)
            if isinstance(value, Skipped):
                out.dropped.append(record)
                continue
            converted = (
                run("header converter", partial(self.convert_headers, record), record) if record.headers else None
            )
            if isinstance(converted, Skipped):
                out.dropped.append(record)
                continue
            headers.append(converted)
            topics.append(record.topic)
            out.kept.append(index)
            out.keys.append(key)
            out.values.append(value)
            kept.append(record)
        out.topics = topics
        if any(headers):
            out.headers = headers
        if batch is None:
            out.records = kept
            out.plain = scan(kept)[0]
        return out
