"""`ConnectorContext`: what a running connector may ask of the worker that runs it (Kafka's
`ConnectorContext`).

A connector whose work changes while it runs (a table source that sees a new table, a source that
learns of a new shard) calls `request_task_reconfiguration()`: the worker calls `task_configs()`
again and, when the answer differs, stops the old tasks (their offsets committed) and starts the new
ones. A connector that cannot go on (its monitoring thread lost the database for good) calls
`raise_error(exc)`: the connector goes FAILED with that error, as when `start()` raises. Both may be
called from any thread the connector owns, and return at once: the work happens on the worker's side.
"""

from __future__ import annotations

from typing import Protocol


class ConnectorContext(Protocol):
    def request_task_reconfiguration(self) -> None:
        """Ask the worker to call `task_configs()` again and restart the tasks if the configs changed."""
        ...

    def raise_error(self, exc: BaseException) -> None:
        """Mark the connector FAILED with `exc` (its tasks are left as they are, as in Kafka)."""
        ...
