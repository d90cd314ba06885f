"""Where a change record goes and how it is described, decided once per table (and per kind of record)."""

from __future__ import annotations

from typing import Any

from connectworker.api.schema import Schema

Route = tuple[str, Schema | None, Schema | None, tuple[tuple[str, Any], ...]]
"""A record's topic, key schema, value schema and headers (only the events of a primary-key change have any).
The same tuple object for every record of a table's route: a poll whose records share one is handed on as a
columnar batch (pending.py)."""
