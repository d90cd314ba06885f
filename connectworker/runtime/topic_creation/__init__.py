"""Topic creation at run time, in one room: the gate a task asks before producing to a new topic
(`gate.py`), the worker-wide service behind it with its known-topic cache (`service.py`), the gates of
Spark's Python workers, kept per process (`per_process.py`), and the topics a connector requires
(`required_topics.py`). A task process's gate, which the worker's service answers over the task channel,
is the runners' (`runners/remote_topic_gate.py`); a topic deleted while a task writes to it is the task's
(`tasks/vanished_topics.py`).

What a topic should look like (the rules, one topic's decision, the create-topic policy) lives in
`connectworker.topics`, which the dry run shares. May import: api, config, topics, transforms,
runtime's `clients`, `observability.kafka_logging` and `connectworker.process_cache`.

Its public surface (`__all__`) is what other packages (Spark's among them) use; names resolve on
first use, so importing the package imports none of its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.runtime.topic_creation.per_process import creation_service, topic_gate
    from connectworker.runtime.topic_creation.required_topics import RequiredTopics

_EXPORTS = {
    "RequiredTopics": "required_topics",
    "creation_service": "per_process",
    "topic_gate": "per_process",
}
__all__ = [
    "RequiredTopics",
    "creation_service",
    "topic_gate",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
