"""`/admin/loggers`: Python logger levels, named and set the way Kafka's (log4j) endpoint does.

Kafka's level names map onto Python's as `connectworker.log_levels` says (TRACE is 5, OFF above
CRITICAL), the table `--log-level` uses too. The root logger is called ``root``. Setting a level applies to the
named logger and to every logger below it in the dotted hierarchy, as in Kafka.
"""

from __future__ import annotations

import logging
import threading
import time

from connectworker.log_levels import LEVELS, level_name
from connectworker.rest.errors import BadRequest, NotFound
from connectworker.rest.models import LoggerLevel

ROOT = "root"


def _existing() -> dict[str, logging.Logger]:
    manager = logging.Logger.manager
    return {name: obj for name, obj in list(manager.loggerDict.items()) if isinstance(obj, logging.Logger)}


class LoggerLevels:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._modified: dict[str, int] = {}

    def _level(self, name: str, logger: logging.Logger, effective: bool) -> LoggerLevel:
        level = logger.getEffectiveLevel() if effective else logger.level
        return LoggerLevel(level=level_name(level), last_modified=self._modified.get(name))

    def all(self) -> dict[str, LoggerLevel]:
        """The root logger and every logger whose level is set explicitly."""
        out = {
            name: self._level(name, logger, False)
            for name, logger in _existing().items()
            if logger.level != logging.NOTSET
        }
        out[ROOT] = self._level(ROOT, logging.getLogger(), False)
        return dict(sorted(out.items()))

    def get(self, name: str) -> LoggerLevel:
        if name.lower() == ROOT:
            return self._level(ROOT, logging.getLogger(), True)
        logger = _existing().get(name)
        if logger is None:
            raise NotFound(f"Logger {name} not found.")
        return self._level(name, logger, True)

    def set(self, name: str, level: str) -> list[str]:
        """Set `level` on `name` and its descendants; returns the names changed."""
        value = LEVELS.get(level.strip().upper())
        if value is None:
            raise BadRequest(f"Invalid log level '{level}'. Use one of {', '.join(LEVELS)}.")
        existing = _existing()
        if name.lower() == ROOT:
            targets = {ROOT: logging.getLogger(), **existing}
        else:
            targets = {n: lg for n, lg in existing.items() if n == name or n.startswith(name + ".")}
            targets.setdefault(name, logging.getLogger(name))
        now = int(time.time() * 1000)
        with self._lock:
            for logger_name, logger in targets.items():
                logger.setLevel(value)
                self._modified[logger_name] = now
        return sorted(targets)
