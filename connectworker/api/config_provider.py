"""Config providers: where `${provider:[path:]key}` references in worker and connector configs get their
values, as Kafka's `org.apache.kafka.common.config.provider.ConfigProvider`.

A worker names its providers with `config.providers=file,vault` and gives each a class with
`config.providers.<name>.class` (Kafka's class names for the built-in ones, or the Python path of a
`ConfigProvider` subclass); `config.providers.<name>.param.<key>` keys are handed to `configure()`
without their prefix. A reference is resolved by calling `get(path, keys)` with every key the configs
ask of that path at once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Set


class ConfigProvider(ABC):
    """One source of config values, e.g. a properties file, the environment or a secrets store.

    Signal a problem (a file that cannot be read, a path that may not be read) by raising
    `connectworker.api.ConfigError` with a message naming what is wrong; never put a value in it. A key
    that `get` leaves out of its answer is reported by the worker with `describe_missing`'s text.
    """

    def configure(self, configs: Mapping[str, str]) -> None:
        """Take the provider's `config.providers.<name>.param.*` keys (without that prefix). Raise
        ConfigError naming the offending key (e.g. ``{"allowed.paths": "..."}``) to refuse them."""

    @abstractmethod
    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        """The values of `keys` at `path` ("" when the reference has no path), leaving out those
        that do not exist."""

    def describe_missing(self, path: str, key: str) -> str:
        """Why `key` has no value at `path`, for the message that names the reference."""
        return f"no value for {key!r}" + (f" at {path}" if path else "")

    def close(self) -> None:
        """Release what the provider holds; called when the worker stops."""
