"""Who decides the lifecycle: the standalone herder (create, reconfigure, pause, restart, delete,
persisted in the connector store), its errors, the automatic restarts of FAILED connectors and tasks
(`auto_restart.py`, ticked by the herder's `supervisor.py` thread), and `standalone.py`, which assembles a standalone
worker from its files (broker, offsets, topic creation, worker, herder).

May import everything of runtime below it (worker, tasks, offsets, topic_creation, observability,
clients), config and topics. The REST API and the CLI drive the herder; nothing here imports them.

Its public surface (`__all__`) is what other packages (Spark's among them) use; names resolve on
first use, so importing the package imports none of its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.runtime.herder.standalone import StandaloneRuntime

_EXPORTS = {
    "StandaloneRuntime": "standalone",
}
__all__ = [
    "StandaloneRuntime",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
