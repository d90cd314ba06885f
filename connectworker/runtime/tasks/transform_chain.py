"""A task's transform chain: its own instances of the connector's transforms and predicates, applied
to each polled record in order, before conversion and before topic creation (which therefore sees
the topic a routing transform chose, as in Kafka).

A transform that returns None drops the record: it is not produced, and its offset still advances.
A transform (or predicate) that raises is handled by the task's `errors.tolerance`: with `all` the
record is skipped and logged, with `none` the task fails naming the transform and the record's
source partition and offset.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecord
from connectworker.api.transform import Predicate, Transformation
from connectworker.config.transforms import TransformsConfig
from connectworker.runtime.tasks.error_tolerance import Skipped, ToleranceOperator
from connectworker.transforms.side import copy_record

log = logging.getLogger(__name__)

__all__ = ["TransformError", "TransformationChain", "TransformedPoll"]


class TransformError(ConnectError):
    """A transform or predicate raised; the message names which."""


@dataclass(frozen=True, slots=True)
class _Step:
    alias: str
    transformation: Transformation
    predicate: Predicate | None
    negate: bool

    def apply(self, record: SourceRecord, *, probe: bool = False) -> SourceRecord | None:
        """The step applied to `record`; with `probe`, `record` has only a topic and a timestamp (the topic
        plan's), and a transform that routes by data says so through its `plan_route`."""
        if self.predicate is not None:
            try:
                holds = self.predicate.test(record)
            except RetriableError:
                raise
            except Exception as exc:
                raise TransformError(
                    f"The predicate of transform {self.alias!r} failed: {type(exc).__name__}: {exc}"
                ) from exc
            if holds == self.negate:
                return record
        apply = getattr(self.transformation, "plan_route", None) if probe else None
        try:
            return (apply or self.transformation.apply)(record)
        except RetriableError:
            raise  # retried within errors.retry.timeout, as Kafka does
        except Exception as exc:
            raise TransformError(
                f"Transform {self.alias!r} ({type(self.transformation).__name__}) failed: {type(exc).__name__}: {exc}"
            ) from exc


@dataclass(slots=True)
class TransformedPoll:
    """The records a poll left after the chain, `origin[i]` the poll index of `records[i]`; `dropped`
    are those the chain (or `errors.tolerance=all`) dropped."""

    records: list[SourceRecord]
    origin: list[int]
    dropped: list[SourceRecord]


class TransformationChain:
    def __init__(self, steps: Sequence[_Step], predicates: Sequence[Predicate] = ()) -> None:
        self._steps = tuple(steps)
        self._predicates = tuple(predicates)

    @classmethod
    def build(cls, config: TransformsConfig) -> TransformationChain:
        """Instantiate and configure the chain's transforms and predicates (once per task, as Kafka)."""
        predicates: dict[str, Predicate] = {}
        steps: list[_Step] = []
        try:
            for alias, spec in config.predicates.items():
                predicate = spec.cls()
                predicate.configure(spec.props)
                predicates[alias] = predicate
            for t in config.transforms:
                transformation = t.cls()
                transformation.configure(t.props)
                steps.append(
                    _Step(
                        t.alias, transformation, predicates[t.predicate] if t.predicate is not None else None, t.negate
                    )
                )
        except Exception:
            TransformationChain(steps, list(predicates.values())).close()
            raise
        return cls(steps, list(predicates.values()))

    def __bool__(self) -> bool:
        return bool(self._steps)

    def apply(self, record: SourceRecord, *, probe: bool = False) -> SourceRecord | None:
        current: SourceRecord | None = record
        for step in self._steps:
            if current is None:
                return None
            current = step.apply(current, probe=probe)
        return current

    def apply_poll(self, records: Sequence[SourceRecord], tolerance: ToleranceOperator) -> TransformedPoll:
        out = TransformedPoll([], [], [])
        kept, origin, dropped = out.records, out.origin, out.dropped
        # The loop of `apply`, inlined: at ~1 µs per transform, a call layer per step would cost as much
        # as the transforms themselves; built-ins that can (`apply_to_copy`) write into one copy of the
        # record instead of making a new record each. A record that raises is run again through `apply`,
        # whose errors name the transform, under errors.retry.* and errors.tolerance.
        steps = [
            (
                s.transformation.apply,
                getattr(s.transformation, "apply_to_copy", None),
                None if s.predicate is None else s.predicate.test,
                s.negate,
            )
            for s in self._steps
        ]
        for index, record in enumerate(records):
            current: SourceRecord | Skipped | None = record
            owned = False  # whether `current` is a copy no one else holds (the polled record must not change)
            try:
                for transform, in_place, test, negate in steps:
                    if test is not None and test(current) == negate:  # type: ignore[arg-type]
                        continue
                    if in_place is not None:  # a built-in that may write into a copy the chain owns
                        if not owned:
                            current, owned = copy_record(current), True  # type: ignore[arg-type]
                        result = in_place(current)
                    else:
                        result = transform(current)  # type: ignore[arg-type]
                    owned = owned and result is current
                    current = result
                    if current is None:
                        break
            except Exception:
                current = tolerance.run("transformation", partial(self.apply, record), record)
            if current is None or isinstance(current, Skipped):
                dropped.append(record)
            else:
                kept.append(current)
                origin.append(index)
        return out

    def route(self, topic: str) -> SourceRecord | None:
        """What the chain makes of a record with only a topic (and the time now): for the topic plan of
        transforms that route by topic (and time) alone. Raises `TransformError` for the others. A
        built-in whose `apply` would take such a record for data (Debezium's take it for a tombstone)
        answers through `plan_route` instead."""
        return self.apply(SourceRecord(None, None, topic, None, timestamp=int(time.time() * 1000)), probe=True)

    def close(self) -> None:
        closeables: list[Transformation | Predicate] = [*(s.transformation for s in self._steps), *self._predicates]
        for closeable in closeables:
            try:
                closeable.close()
            except Exception:
                log.exception("Closing %s failed", type(closeable).__name__)
