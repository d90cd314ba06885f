"""Whether a task's producer can reach the Kafka cluster, as a note for its status and one WARN line
per interval, instead of silence (or a flood of librdkafka lines).

librdkafka reports connection trouble through the producer's ``error_cb`` (served inside ``poll()``
and ``flush()``) and keeps retrying on its own: records wait in the producer's queue for up to
``message.timeout.ms`` and go out when a broker answers again. It reports the cluster-level fact,
"every broker is down", once (``_ALL_BROKERS_DOWN``), and each failed connection attempt on its own
(``_TRANSPORT``, ``_RESOLVE``, …). A failing connection to one broker of several is not an outage (the
others may lead every partition the task writes to), so only the cluster-level codes set the note;
the per-connection ones refine its detail. librdkafka never reports that the cluster is back, so
the task says so: `healthy()` when it has proof (a flush that left nothing unacknowledged, or an ack).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from confluent_kafka import KafkaError

from connectworker.runtime.observability.kafka_logging import REPEAT_INTERVAL_S, log_client_error, without_timing

log = logging.getLogger(__name__)

UNREACHABLE_CODES = frozenset({KafkaError._ALL_BROKERS_DOWN, KafkaError._AUTHENTICATION})
"""Codes that mean the cluster as a whole does not answer the worker (or refuses its credentials)."""

CONNECTION_CODES = frozenset({KafkaError._TRANSPORT, KafkaError._RESOLVE, KafkaError._SSL, KafkaError._TIMED_OUT})
"""Codes about one connection; librdkafka logs them itself. While the cluster is unreachable they
say why; otherwise they are no outage."""


class ConnectivityMonitor:
    """Turns one task producer's ``error_cb`` reports into a status note and rate-limited log lines.

    Thread-safe: `error_cb` runs on whichever thread polls or flushes the producer, `note` is read by
    the REST layer, `healthy` is called by the task.
    """

    def __init__(
        self,
        task: str,
        bootstrap_servers: str,
        *,
        interval_s: float = REPEAT_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.task = task
        self.bootstrap_servers = bootstrap_servers
        self._interval_s = interval_s
        self._clock = clock
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self._down_since: float | None = None  # monotonic
        self._down_since_wall = 0.0
        self._cause = ""  # what librdkafka said: "1/1 brokers are down"
        self._detail = ""  # the latest connection error: "Connect to ipv4#… failed: Connection refused"
        self._detail_at = 0.0
        self._warned_at: float | None = None

    @property
    def unreachable(self) -> bool:
        return self._down_since is not None

    @property
    def note(self) -> str | None:
        """One line for the task's status while the cluster is unreachable, else None."""
        with self._lock:
            return self._note() if self._down_since is not None else None

    def error_cb(self, err: KafkaError) -> None:
        """The producer's ``error_cb``."""
        code = err.code()
        text = err.str() or err.name()
        if code in UNREACHABLE_CODES:
            self._unreachable(text)
        elif code in CONNECTION_CODES:
            self._connection_error(text)
        else:  # with an error_cb set, librdkafka no longer logs these itself
            level = logging.ERROR if err.fatal() else logging.WARNING
            log_client_error(f"Task {self.task} producer", level, f"{text} ({err.name()})")

    def healthy(self) -> None:
        """The cluster answered this task (a flush left nothing unacknowledged, or a record was acked)."""
        if self._down_since is None:  # the common case, without taking the lock
            return
        with self._lock:
            if self._down_since is None:
                return
            outage_s = self._clock() - self._down_since
            self._down_since = None
            self._warned_at = None
            self._cause = self._detail = ""
        log.info(
            "Task %s: Kafka cluster reachable again after %.0f s (bootstrap.servers=%s)",
            self.task,
            outage_s,
            self.bootstrap_servers,
        )

    def _unreachable(self, cause: str) -> None:
        with self._lock:
            if self._down_since is None:
                self._down_since = self._clock()
                self._down_since_wall = self._wall_clock()
                if self._down_since - self._detail_at > self._interval_s:
                    self._detail = ""  # an old error (an idle connection closed long ago) explains nothing
            self._cause = cause
            line = self._warning_due()
        if line is not None:
            log.warning("Task %s: %s", self.task, line)

    def _connection_error(self, detail: str) -> None:
        with self._lock:
            self._detail = without_timing(detail)
            self._detail_at = self._clock()
            line = self._warning_due() if self._down_since is not None else None
        if line is not None:
            log.warning("Task %s: %s", self.task, line)

    def _warning_due(self) -> str | None:
        """The note, if no WARN was logged for it within the interval (call with the lock held)."""
        now = self._clock()
        if self._warned_at is not None and now - self._warned_at < self._interval_s:
            return None
        self._warned_at = now
        return self._note()

    def _note(self) -> str:
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self._down_since_wall))
        why = "; ".join(part for part in (self._cause, self._detail) if part)
        return (
            f"Kafka cluster unreachable since {since} (bootstrap.servers={self.bootstrap_servers}): {why}; "
            f"records stay buffered for up to message.timeout.ms and are sent when it is back"
        )
