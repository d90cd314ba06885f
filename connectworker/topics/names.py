"""Kafka's rules for topic names, checked before asking a broker to create a topic.

Apache Kafka rejects an illegal name at CreateTopics time, but some Kafka-compatible brokers (the
Tansu test broker among them) accept anything, so the worker checks names itself.
"""

from __future__ import annotations

import re

MAX_NAME_LENGTH = 249
"""Kafka's limit: partition directories are named `<topic>-<partition>` and must fit in 255 bytes."""

_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")  # ASCII only: no \w, which would admit any Unicode letter


def validate_topic_name(name: str) -> str | None:
    """None when `name` is a legal Kafka topic name, otherwise a message saying what is wrong.

    The checks and their order follow Kafka's `Topic.validate`: not empty, not "." or "..", at most
    249 characters, only ASCII letters, digits, '.', '_' and '-'.
    """
    if not isinstance(name, str):
        return f"Topic name must be a string, got {type(name).__name__}"
    if not name:
        return "Topic name is illegal, it can't be empty"
    if name in (".", ".."):
        return 'Topic name cannot be "." or ".."'
    if len(name) > MAX_NAME_LENGTH:
        return (
            f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters "
            f"(it has {len(name)}), topic name: {name[:60]}…"
        )
    if _LEGAL.fullmatch(name) is None:
        bad = sorted({ch for ch in name if _LEGAL.fullmatch(ch) is None})
        shown = ", ".join(repr(ch) for ch in bad)
        return (
            f"Topic name {name!r} is illegal, it contains a character other than ASCII alphanumerics, "
            f"'.', '_' and '-': {shown}"
        )
    return None


def metric_name(topic: str) -> str:
    """The topic name as it appears in metric names, where Kafka replaces '.' with '_'."""
    return topic.replace(".", "_")


def collides(a: str, b: str) -> bool:
    """True when two *different* topic names map to the same metric name ('.' and '_' collide).

    Kafka only warns about such a pair (its `Topic.hasCollision` also says True for equal names;
    equal names are the same topic, so here they do not collide).
    """
    return a != b and metric_name(a) == metric_name(b)
