"""How `connectworker` writes its log to stderr: `text` (one readable line each) or `json` (one JSON
object per line, with `connector`, `task` and `topic` where a line is about one).

The format comes from `--log-format`, else the worker file's `log.format`, else `text`. Logging starts
before the worker file is read (so that reading it can log), hence `use_format` switches the handler's
formatter once the file says `json`.
"""

from __future__ import annotations

import logging
import sys
from typing import Literal

from pythonjsonlogger.json import JsonFormatter

from connectworker.runtime.observability.log_context import LogContextFilter

__all__ = ["LOG_FORMATS", "LogFormat", "report", "setup_logging", "use_format"]

LogFormat = Literal["text", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("text", "json")
TEXT = "[%(asctime)s] %(levelname)s %(message)s (%(name)s)"
_handler: logging.Handler | None = None
_format: LogFormat = "text"


def _formatter(fmt: LogFormat) -> logging.Formatter:
    if fmt == "json":
        return JsonFormatter(
            "{asctime}{levelname}{name}{message}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            json_ensure_ascii=False,
        )
    return logging.Formatter(TEXT)


def setup_logging(level: int, fmt: LogFormat = "text") -> None:
    """One stderr handler on the root logger, at `level`, in `fmt`; like `logging.basicConfig`, nothing
    changes where the root logger has handlers already (a program that calls `main()` keeps its own)."""
    global _handler, _format
    root = logging.getLogger()
    if root.handlers:
        return
    _format = fmt
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_formatter(fmt))
    handler.addFilter(LogContextFilter())
    root.addHandler(handler)
    root.setLevel(level)
    _handler = handler


def use_format(fmt: LogFormat) -> None:
    """Switch the handler `setup_logging` installed to `fmt` (nothing to switch before it ran)."""
    global _format
    if _handler is not None:
        _handler.setFormatter(_formatter(fmt))
        _format = fmt


def report(message: str) -> None:
    """The command's last word (why it exits): a plain stderr line, or in the JSON format an ERROR
    object like every other line, so a log collector parses the whole stream."""
    if _format == "json":
        logging.getLogger("connectworker").error(message)
    else:
        print(message, file=sys.stderr)
