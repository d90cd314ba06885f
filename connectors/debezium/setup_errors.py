"""The error a CDC connector raises when the database or its user is not set up for change data capture."""

from __future__ import annotations

from connectworker.api.errors import ConnectError


class SetupError(ConnectError):
    """The server or the user cannot be captured from as configured; `key` is the config key to blame, so
    validation answers on it and a task fails naming it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def first_line(exc: BaseException) -> str:
    """A driver error's first line (the rest is often the statement or a hint already said)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
