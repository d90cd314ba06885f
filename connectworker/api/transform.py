"""Single Message Transforms and predicates, as a connector configuration names them (Kafka's KIP-66, KIP-585).

`transforms=a,b` applies `a` then `b` to every record a task polls, before conversion (and before
topic creation, which sees the topic after the chain). A transform returns the record changed, a new
record, or None to drop it (its offset still advances). `transforms.a.predicate=p` applies `a` only to
records for which `predicates.p` holds (`transforms.a.negate=true`: only to the others).

Write your own by subclassing `Transformation` (or `Predicate`) and naming the class by its Python path
in `transforms.<alias>.type`. Keys under `transforms.<alias>.` (without the prefix, and without `type`,
`predicate` and `negate`) are passed to `configure`, after `config_def()` validated them. Records are
dataclasses: return ``dataclasses.replace(record, topic=...)`` rather than changing the one received.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef
from connectworker.api.record import SourceRecord

__all__ = ["Predicate", "Transformation"]


class Transformation(ABC):
    """One step of a connector's transform chain."""

    def config_def(self) -> ConfigDef:
        """The transform's keys (relative to `transforms.<alias>.`), validated before `configure`."""
        return ConfigDef()

    def configure(self, props: Mapping[str, str]) -> None:
        """Called once, with the transform's keys (prefix removed), before the first `apply`."""

    @abstractmethod
    def apply(self, record: SourceRecord) -> SourceRecord | None:
        """The record transformed, or None to drop it. Raise `DataError` for a record it cannot handle."""

    def close(self) -> None:
        """Called when the task stops."""


class Predicate(ABC):
    """A condition a transform can be made conditional on."""

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def configure(self, props: Mapping[str, str]) -> None:
        """Called once, with the predicate's keys (`predicates.<alias>.` removed)."""

    @abstractmethod
    def test(self, record: SourceRecord) -> bool: ...

    def close(self) -> None:
        """Called when the task stops."""
