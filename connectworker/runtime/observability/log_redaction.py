"""Keeping connector secrets out of the logs.

The REST API accepts configs that carry passwords; a connector or the worker may later put one in a log
line (an exception message quoting a bad value, say). While the REST server runs, a log-record factory
replaces every known secret value with ``[hidden]`` in each record's message and traceback, whichever
logger wrote it. Values shorter than `MIN_LENGTH` characters are left alone in free text: replacing
them would mangle unrelated words, and REST responses hide them by key anyway.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from connectworker.runtime.observability.secrets import HIDDEN, MIN_SCRUB_LENGTH

MIN_LENGTH = MIN_SCRUB_LENGTH

RecordFactory = Callable[..., logging.LogRecord]


class SecretRedactor:
    """Install once with `install()`; feed it the current secret values with `set_secrets()`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: tuple[str, ...] = ()
        self._previous: RecordFactory | None = None

    def set_secrets(self, values: Iterable[str]) -> None:
        usable = {v for v in values if len(v) >= MIN_LENGTH and v != HIDDEN}
        with self._lock:
            # Longest first, so a secret that contains another one is replaced whole.
            self._secrets = tuple(sorted(usable, key=len, reverse=True))

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, HIDDEN)
        return text

    def install(self) -> None:
        if self._previous is not None:
            return
        previous = logging.getLogRecordFactory()
        self._previous = previous

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            if self._secrets:
                self._clean(record)
            return record

        logging.setLogRecordFactory(factory)

    def uninstall(self) -> None:
        if self._previous is not None:
            logging.setLogRecordFactory(self._previous)
            self._previous = None

    def _clean(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a malformed %-format: let the handler report it as usual
            return
        cleaned = self.redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            cleaned_tb = self.redact(text)
            if cleaned_tb != text:
                record.exc_text = cleaned_tb  # formatters use a cached exc_text instead of formatting again
