"""Kafka's (log4j) level names on Python's levels, one table for `--log-level` and `/admin/loggers`.

TRACE is 5 (below DEBUG, as in log4j: a logger at TRACE shows DEBUG lines too), WARN is WARNING, FATAL
is CRITICAL and OFF lies above CRITICAL; Python's own WARNING and CRITICAL are accepted as well.
"""

from __future__ import annotations

import logging

__all__ = ["ALLOWED", "LEVELS", "OFF", "TRACE", "level_name"]

TRACE = 5
OFF = logging.CRITICAL + 10
LEVELS = {
    "TRACE": TRACE,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "WARNING": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
    "CRITICAL": logging.CRITICAL,
    "OFF": OFF,
}
ALLOWED = "TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF (any case; WARNING and CRITICAL too)"
_NAMES = (
    (OFF, "OFF"),
    (logging.CRITICAL, "FATAL"),
    (logging.ERROR, "ERROR"),
    (logging.WARNING, "WARN"),
    (logging.INFO, "INFO"),
    (logging.DEBUG, "DEBUG"),
    (TRACE, "TRACE"),
)


def level_name(level: int) -> str:
    """Kafka's name for a Python level (the nearest named level at or below it)."""
    return next((name for value, name in _NAMES if level >= value), "TRACE")
