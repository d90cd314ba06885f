"""The error a CDC connector raises when the database or its user is not set up for change data capture."""

from __future__ import annotations

from connectworker.api.errors import ConnectError


class SetupError(ConnectError):
    """The server or the user cannot be captured from as configured; `key` is the config key to blame, so
    validation answers on it and a task fails naming it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


class SetupErrors(ConnectError):
    """Every setup problem a server check found, so that validation names them all at once (a task that
    cannot start fails with them all too)."""

    def __init__(self, errors: list[SetupError]) -> None:
        super().__init__("; ".join(str(error) for error in errors))
        self.errors = errors


def raise_setup_errors(errors: list[SetupError]) -> None:
    """Raise the one error found, or all of them together; nothing when there is none."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise SetupErrors(errors)


def first_line(exc: BaseException) -> str:
    """A driver error's first line (the rest is often the statement or a hint already said)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
