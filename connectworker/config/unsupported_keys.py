"""Kafka Connect keys that connectworker accepts but does not implement, in one place.

A Kafka user's files carry over unchanged, so such keys must not fail start-up; but they must not be
dropped without a word either: each is reported in one WARN line per connector (or per worker file).
When a later version implements a key, remove its entry here (a key a connector or the common
connector keys declare is never reported, whatever this list says).

Patterns are exact keys, or prefixes ending in ``.`` or ``*`` (``admin.override.`` matches every
``admin.override.<key>``; ``name*`` matches every key starting with ``name``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Iterable, Mapping

from connectworker.api.config_def import closest_name

log = logging.getLogger("connectworker.config")

UNIMPLEMENTED_CONNECTOR_KEYS: tuple[str, ...] = (
    "offsets.storage.topic",  # offsets live in offset.storage.file.filename
    "errors.deadletterqueue.",  # sink connectors only, in Kafka too
    "consumer.override.",  # no consumers: producer.override.*, admin.override.* are applied
    "config.action.reload",
    "connector.plugin.version",
    "key.converter.plugin.version",
    "value.converter.plugin.version",
    "header.converter.plugin.version",
)

# Worker keys of Kafka Connect that have no effect in connectworker, with what to do instead (if anything).
UNIMPLEMENTED_WORKER_KEYS: dict[str, str] = {
    "heartbeat.interval.ms": "distributed mode",
    "session.timeout.ms": "distributed mode",
    "rebalance.timeout.ms": "distributed mode",
    "worker.sync.timeout.ms": "distributed mode",
    "worker.unsync.backoff.ms": "distributed mode",
    "scheduled.rebalance.max.delay.ms": "distributed mode",
    "connect.protocol": "distributed mode",
    "inter.worker.": "distributed mode",
    "metrics.": "metrics are Prometheus histograms and counters at GET /metrics; Kafka's sampling "
    "settings do not apply",
    "metric.reporters": "metrics are served in Prometheus' format at GET /metrics (and metrics.listener)",
    "auto.include.jmx.reporter": "there is no JMX; metrics are served at GET /metrics",
    "rest.extension.classes": "",
    "rest.advertised.port": "",
    "rest.advertised.listener": "",
    "admin.listeners": "",
    "access.control.allow.": "",
    "response.http.headers.config": "",
    "topic.tracking.": "active topics are always tracked",
    "plugin.discovery": "plugin.path entries are put on the Python import path",
    "spark.checkpoint.location": "connectworker spark runs each task as a long-lived Spark task: no streaming "
    "query, so no checkpoint and no micro-batches",
    "spark.trigger.interval.ms": "connectworker spark runs each task as a long-lived Spark task: no streaming "
    "query, so no checkpoint and no micro-batches",
    "client.id": "producers are called connector-producer-<connector>-<task>, as in Kafka",
}

# Keys that mean nothing to any current Kafka Connect either: accepted without a word.
OBSOLETE_WORKER_KEYS: tuple[str, ...] = ("internal.key.converter", "internal.value.converter")


def matches(key: str, pattern: str) -> bool:
    if pattern.endswith("*"):
        return key.startswith(pattern[:-1])
    if pattern.endswith("."):
        return key.startswith(pattern)
    return key == pattern


def unimplemented_connector_keys(props: Iterable[str], declared: Collection[str]) -> list[str]:
    """The keys of `props` that Kafka connectors use but connectworker ignores, sorted; keys in
    `declared` (the connector's own and the common ones) are never among them."""
    return sorted(
        key for key in props if key not in declared and any(matches(key, p) for p in UNIMPLEMENTED_CONNECTOR_KEYS)
    )


def worker_key_note(key: str) -> str | None:
    """Why a Kafka worker key has no effect here ("" when nothing more is to be said), or None if the key
    is not a Kafka worker key connectworker knows of."""
    for pattern, note in UNIMPLEMENTED_WORKER_KEYS.items():
        if matches(key, pattern):
            return note
    return None


def is_obsolete_worker_key(key: str) -> bool:
    return any(key == p or key.startswith(p + ".") for p in OBSOLETE_WORKER_KEYS)


class ConnectorKeyWarnings:
    """Warns once per connector name and set of ignored keys, so a config parsed again (the command line
    then the connector store, or an unchanged REST update) is not reported twice. `why` ends the line:
    ``{verb}`` is "is" or "are"."""

    def __init__(self, why: str = "not implemented by this version of connectworker and {verb} ignored") -> None:
        """`why` follows the keys and "is"/"are"; `{verb}` repeats that verb, `{a}` is "a " for one key,
        `{s}` "s" for several."""
        self._why = why
        self._lock = threading.Lock()
        self._reported: dict[str, frozenset[str]] = {}

    def report(self, name: str, keys: list[str]) -> None:
        with self._lock:
            if not keys or self._reported.get(name) == frozenset(keys):
                return
            self._reported[name] = frozenset(keys)
        one = len(keys) == 1
        why = self._why.format(verb="is" if one else "are", a="a " if one else "", s="" if one else "s")
        log.warning("Connector %s: %s %s %s", name, ", ".join(keys), "is" if one else "are", why)


CONNECTOR_KEY_WARNINGS = ConnectorKeyWarnings()
JAVA_ONLY_KEY_WARNINGS = ConnectorKeyWarnings(
    "read by Java clients only and {verb} ignored (librdkafka has no equivalent)"
)
MISSPELT_KEY_WARNINGS = ConnectorKeyWarnings(
    "declared by neither the connector nor Kafka Connect, and {verb} handed to the connector as written"
)
UNUSED_ADMIN_OVERRIDE_WARNINGS = ConnectorKeyWarnings(
    "ignored: the connector has no topic.creation.* keys, so it creates no topics and has no Admin client of its own"
)


def worker_key_warnings(
    ignored: Mapping[str, str],
    source: str,
    shown: Mapping[str, str] | None = None,
    known: Iterable[str] = (),
) -> list[str]:
    """The WARN lines for worker keys that have no effect (`ignored`: key → value, from `source`): Kafka keys
    not implemented here (one line), and keys neither Kafka nor connectworker know (one line each, likely
    misspelt: the closest of the `known` keys is named). `shown` names a key differently in the message
    (e.g. by the variable that set it)."""
    known = list(known)
    lines: list[str] = []
    unimplemented: list[str] = []
    for key in ignored:
        if is_obsolete_worker_key(key):
            continue
        name = (shown or {}).get(key, key)
        note = worker_key_note(key)
        if note is None:
            near = closest_name(key, known)
            hint = f"; did you mean {near!r}?" if near is not None else ""
            lines.append(f"Unknown worker configuration key {name!r} in {source} is ignored{hint}")
        else:
            unimplemented.append(f"{name} ({note})" if note else name)
    if unimplemented:
        lines.insert(
            0,
            f"Kafka Connect worker keys in {source} that this version of connectworker does not "
            f"implement are ignored: {'; '.join(unimplemented)}",
        )
    return lines
