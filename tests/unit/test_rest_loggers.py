"""`/admin/loggers` semantics on Python loggers: Kafka's level names, hierarchy, explicit levels."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from connectworker.log_levels import OFF, TRACE, level_name
from connectworker.rest.errors import BadRequest, NotFound
from connectworker.rest.loggers import LoggerLevels

BASE = "tests.rest.loggers"


@pytest.fixture
def loggers() -> Iterator[LoggerLevels]:
    names = [BASE, f"{BASE}.child", f"{BASE}.child.leaf", f"{BASE}x"]
    saved = {n: logging.getLogger(n).level for n in names}
    try:
        yield LoggerLevels()
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


def test_kafka_level_names() -> None:
    assert [level_name(v) for v in (1, TRACE, 10, 20, 25, 30, 40, 50, OFF)] == [
        "TRACE",
        "TRACE",
        "DEBUG",
        "INFO",
        "INFO",
        "WARN",
        "ERROR",
        "FATAL",
        "OFF",
    ]


def test_setting_a_level_applies_to_the_logger_and_its_descendants_only(loggers: LoggerLevels) -> None:
    for name in (f"{BASE}.child", f"{BASE}.child.leaf", f"{BASE}x"):
        logging.getLogger(name)
    changed = loggers.set(f"{BASE}.child", "warn")
    assert changed == [f"{BASE}.child", f"{BASE}.child.leaf"]
    assert logging.getLogger(f"{BASE}.child.leaf").level == logging.WARNING
    assert logging.getLogger(f"{BASE}x").level == logging.NOTSET  # a sibling with a common prefix
    listed = loggers.all()
    assert listed[f"{BASE}.child"].level == "WARN" and listed[f"{BASE}.child"].last_modified is not None
    assert "root" in listed and f"{BASE}x" not in listed  # only explicitly set levels are listed


def test_get_reports_the_effective_level_and_404_for_unknown_loggers(loggers: LoggerLevels) -> None:
    loggers.set(BASE, "ERROR")
    logging.getLogger(f"{BASE}.child")
    assert loggers.get(f"{BASE}.child").level == "ERROR"
    assert loggers.get("ROOT").level == level_name(logging.getLogger().getEffectiveLevel())
    with pytest.raises(NotFound, match=r"Logger no\.such\.logger\.here not found"):
        loggers.get("no.such.logger.here")


def test_unknown_levels_are_bad_requests(loggers: LoggerLevels) -> None:
    with pytest.raises(BadRequest, match="Invalid log level 'LOUD'"):
        loggers.set(BASE, "LOUD")
    assert BASE in loggers.set(BASE, " debug ")  # any case, as in Kafka
    assert logging.getLogger(BASE).level == logging.DEBUG
