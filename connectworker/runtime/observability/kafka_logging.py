"""librdkafka's log lines, through Python logging, each distinct line at most once per interval.

Without a ``logger`` client setting librdkafka writes straight to stderr (``%3|1700000000.123|FAIL|…``),
past Python logging, so neither ``--log-level`` nor ``/admin/loggers`` reaches it, and an unreachable
cluster prints a reconnect failure every ~50 ms. `client_log_settings` returns the setting that sends
those lines to the ``connectworker.kafka`` logger instead, through one shared `RepeatFilter`: the
first occurrence of a line is logged, repeats within `REPEAT_INTERVAL_S` are only counted, and a line
"(repeated N times in the last 30 s)" says so when the interval is over.

How confluent-kafka (2.16) delivers them, checked against an unreachable ``127.0.0.1:1``: with
``logger`` set, log lines are queued on the client's main queue and handed to ``logger.log(level,
"%s [%s] %s", facility, client_name, line)`` only inside ``poll()`` (and ``flush()`` for producers),
on the polling thread. A producer is polled by its task anyway. An ``AdminClient`` is not:
``list_topics``, ``describe_topics`` or a future's result never serve the queue, so an admin client
that nobody polls keeps its lines (and their memory) forever. `serve_logs_in_background` polls one
for as long as it exists.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

KAFKA_LOGGER = "connectworker.kafka"
REPEAT_INTERVAL_S = 30.0
ADMIN_LOG_POLL_INTERVAL_S = 1.0

log = logging.getLogger(KAFKA_LOGGER)

# "[thrd:127.0.0.1:9092/bootstrap]: " names librdkafka's internal thread: noise to an operator.
_THREAD_PREFIX = re.compile(r"^\[thrd:[^\]]*\]:\s*")
# Parts that change from one repeat to the next: "after 12ms", "3 identical error(s) suppressed",
# "2/3 brokers are down". Digits inside addresses (127.0.0.1:9092, ipv4#…) and broker ids (/1) are kept.
_VARYING_NUMBER = re.compile(r"(?<![\w.:#/-])\d+(?:\.\d+)?(?:ms|s|us)?(?![\w.:])")


_TIMING_SUFFIX = re.compile(r"\s*\(after \d+ms in state \w+[^)]*\)$")


def without_timing(line: str) -> str:
    """`line` without librdkafka's "(after 0ms in state CONNECT)" suffix, for a one-line message."""
    return _TIMING_SUFFIX.sub("", line)


def normalised(line: str) -> str:
    """`line` with the numbers that vary between repeats of the same event replaced by ``N``."""
    return _VARYING_NUMBER.sub("N", line)


def readable(line: str) -> str:
    """A librdkafka line without its internal thread name."""
    return _THREAD_PREFIX.sub("", line)


class PollableClient(Protocol):
    def poll(self, timeout: float = ...) -> Any: ...


@dataclass
class _Window:
    started: float
    level: int
    last_text: str
    sources: set[str]
    suppressed: int = 0


class RepeatFilter:
    """Logs each distinct (level, normalised) line at most once per `interval_s`, then a summary.

    A line seen again after its interval is logged again with "(repeated N times in the last T s)";
    one that does not come back gets that summary on its own once its interval is over (a timer
    does it, so a burst that stops is still accounted for).
    """

    def __init__(
        self,
        logger: logging.Logger = log,
        interval_s: float = REPEAT_INTERVAL_S,
        *,
        clock: Callable[[], float] = time.monotonic,
        summary_timer: bool = True,
    ) -> None:
        self._logger = logger
        self._interval_s = interval_s
        self._clock = clock
        self._summary_timer = summary_timer
        self._windows: dict[tuple[int, str], _Window] = {}
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def emit(self, level: int, text: str, key: str | None = None, source: str = "") -> None:
        """Log `text` at `level` unless the same line (or `key`) was logged within the interval;
        `source` (a client's name) lets a summary say how many clients repeated it."""
        if not self._logger.isEnabledFor(level):
            return
        wanted = (level, normalised(text) if key is None else key)
        lines: list[tuple[int, str]] = []
        with self._lock:
            now = self._clock()
            window = self._windows.get(wanted)
            if window is None or now - window.started >= self._interval_s:
                repeats = f" {self._repeats(window, now)}" if window is not None and window.suppressed else ""
                lines.append((level, text + repeats))
                self._windows[wanted] = _Window(now, level, text, {source})
            else:
                window.suppressed += 1
                window.last_text = text
                window.sources.add(source)
                self._schedule_summary(window.started + self._interval_s - now)
            lines.extend(self._expired(now))
        for line_level, line in lines:
            self._logger.log(line_level, "%s", line)

    def flush_summaries(self) -> None:
        """Log the summary of every interval that is over (called by the timer; tests call it too)."""
        with self._lock:
            self._timer = None
            now = self._clock()
            lines = self._expired(now)
            pending = [w.started for w in self._windows.values() if w.suppressed]
            if pending:
                self._schedule_summary(min(pending) + self._interval_s - now)
        for level, line in lines:
            self._logger.log(level, "%s", line)

    def _repeats(self, window: _Window, now: float) -> str:
        times = "once" if window.suppressed == 1 else f"{window.suppressed} times"
        clients = f", by {len(window.sources)} clients" if len(window.sources) > 1 else ""
        return f"(repeated {times} in the last {max(1, round(now - window.started))} s{clients})"

    def _expired(self, now: float) -> list[tuple[int, str]]:
        """Forget the windows whose interval is over; return the summaries of those with repeats."""
        out = []
        for key, window in list(self._windows.items()):
            if now - window.started >= self._interval_s:
                del self._windows[key]
                if window.suppressed:
                    out.append((window.level, f"{window.last_text} {self._repeats(window, now)}"))
        return out

    def _schedule_summary(self, delay_s: float) -> None:
        if not self._summary_timer or self._timer is not None:
            return
        self._timer = threading.Timer(max(0.0, delay_s) + 0.05, self.flush_summaries)
        self._timer.daemon = True
        self._timer.start()


_REPEATS = RepeatFilter()


class KafkaClientLog:
    """What confluent-kafka's ``logger`` setting calls: forwards to `connectworker.kafka`, de-duplicated.

    The lines of every client share one `RepeatFilter`, keyed without the client's name, so N tasks
    that all lose the same broker log it once per interval, not N times.
    """

    def __init__(self, client: str, repeats: RepeatFilter | None = None) -> None:
        self.client = client
        self._repeats = repeats or _REPEATS

    def log(self, level: int, msg: str, *args: Any) -> None:
        if len(args) == 3:  # ("%s [%s] %s", facility, rdkafka name, line): the librdkafka name is noise
            facility, _, line = (str(a) for a in args)
            text = readable(line)
            self._repeats.emit(
                level, f"{self.client}: {facility} {text}", key=normalised(f"{facility} {text}"), source=self.client
            )
        else:
            self._repeats.emit(level, f"{self.client}: {msg % args if args else msg}", source=self.client)


def client_log_settings(client: str) -> dict[str, Any]:
    """Config entries to merge into every confluent-kafka client's config; `client` names it in logs."""
    return {"logger": KafkaClientLog(client)}


def log_client_error(client: str, level: int, text: str) -> None:
    """Log an error a client reported through ``error_cb`` (which librdkafka then no longer logs)."""
    _REPEATS.emit(level, f"{client}: {text}", key=normalised(text), source=client)


def serve_logs_in_background(
    client: PollableClient, name: str, interval_s: float = ADMIN_LOG_POLL_INTERVAL_S
) -> threading.Thread:
    """Poll `client` (an AdminClient) every `interval_s` so its log lines and error callbacks are
    served; the thread holds only a weak reference and ends once the client is gone or closed."""
    ref = weakref.ref(client)
    del client

    def run() -> None:
        while True:
            target = ref()
            if target is None or getattr(target, "closed", False):
                return
            target.poll(0)
            del target
            time.sleep(interval_s)

    thread = threading.Thread(target=run, name=f"kafka-log-{name}", daemon=True)
    thread.start()
    return thread
