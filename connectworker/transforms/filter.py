"""`Filter`: drops every record it is applied to.

It has no keys. On its own it drops everything; it is meant to be made conditional with a predicate
(`transforms.<alias>.predicate`, optionally `negate`), to drop only the records that match (or do not).
A dropped record is not produced, and its source offset still advances.
"""

from __future__ import annotations

from connectworker.api.record import SourceRecord
from connectworker.api.transform import Transformation

__all__ = ["Filter"]


class Filter(Transformation):
    """Drops all records, filtering them from subsequent transformations in the chain."""

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return None
