"""Exceptions shared by connectors and the worker (Kafka Connect's `ConnectException` family)."""


class ConnectError(Exception):
    """Base class of every error the worker or a connector raises on purpose."""


class DataError(ConnectError):
    """A record's data cannot be handled as asked (Kafka's `DataException`): the message says which part
    and why, e.g. a transform given a string where it needs a struct."""


class RetriableError(ConnectError):
    """A transient failure: the worker retries the operation instead of failing the task."""


class DryRunUnsupported(ConnectError):
    """A connector or task cannot take part in a dry run without touching something outside the worker's
    process (its `dry_start` says why). The dry run then goes on without it: see `SourceTask.dry_start`."""


class ConfigError(ConnectError):
    """A configuration is invalid. `problems` maps each offending key to what is wrong with it."""

    def __init__(self, problems: dict[str, str] | str, *, source: str | None = None) -> None:
        if isinstance(problems, str):
            problems = {"": problems}
        self.problems: dict[str, str] = dict(problems)
        self.source = source
        lines = [f"{key}: {msg}" if key else msg for key, msg in self.problems.items()]
        head = f"Invalid configuration in {source}" if source else "Invalid configuration"
        super().__init__(head + ":\n  " + "\n  ".join(lines))
