"""`--log-level` takes Kafka's level names (the table `/admin/loggers` uses: TRACE is 5) in any case,
and refuses others with the list of allowed ones instead of a traceback."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from connectworker.cli import build_parser
from connectworker.log_levels import OFF, TRACE, level_name


@pytest.mark.parametrize(
    ("given", "level"),
    [
        ("TRACE", TRACE),
        ("trace", TRACE),
        ("DEBUG", logging.DEBUG),
        ("info", logging.INFO),
        ("WARN", logging.WARNING),
        ("warning", logging.WARNING),
        ("ERROR", logging.ERROR),
        ("FATAL", logging.CRITICAL),
        ("off", OFF),
    ],
)
def test_kafka_and_python_level_names_are_accepted(given: str, level: int) -> None:
    args = build_parser().parse_args(["--log-level", given, "plan", "c.properties", "--topic", "t"])
    assert args.log_level == level


def test_an_unknown_level_is_refused_with_the_allowed_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["--log-level", "LOUD", "plan", "c.properties", "--topic", "t"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert (
        "argument --log-level: invalid level 'LOUD'; allowed: TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF "
        "(any case; WARNING and CRITICAL too)" in err
    )


def test_trace_runs_the_command_with_trace_logging_which_admin_loggers_names_trace() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import logging, sys\nfrom connectworker.cli import main\n"
            "main(sys.argv[1:])\nprint(logging.getLogger().getEffectiveLevel())",
            "--log-level",
            "TRACE",
            "plan",
            "missing.properties",
            "--topic",
            "t",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(TRACE) and level_name(TRACE) == "TRACE"
    assert "file not found: missing.properties" in result.stderr and "Traceback" not in result.stderr
