"""The config providers Kafka ships, under Kafka's class names: `FileConfigProvider` (a key of a Java
properties file), `EnvVarConfigProvider` (an environment variable) and `DirectoryConfigProvider` (the
content of a file in a directory, as Docker and Kubernetes mount secrets).

They behave as Kafka's, with Kafka's parameters (`allowed.paths`, `allowlist.pattern`), except that a
path they cannot read or may not read is an error naming the path rather than an empty answer, so
that the reference is reported instead of being used as written.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from collections.abc import Mapping, Set
from pathlib import PurePosixPath

import javaproperties

from connectworker.api.config_provider import ConfigProvider
from connectworker.api.errors import ConfigError

log = logging.getLogger(__name__)

ALLOWED_PATHS = "allowed.paths"
ALLOWLIST_PATTERN = "allowlist.pattern"
KAFKA_PACKAGE = "org.apache.kafka.common.config.provider."


class AllowedPaths:
    """Kafka's `allowed.paths`: comma-separated absolute paths that must exist; a path is allowed when,
    normalised (`..` and `.` removed, symbolic links not followed, as Kafka's `Path.normalize`), it
    is one of them or lies below one. Not set: every path is allowed."""

    def __init__(self, value: str | None) -> None:
        self.paths: list[PurePosixPath] | None = None
        if not value:
            return
        self.paths = []
        for entry in value.split(","):
            normalised = _normalise(entry)
            if not normalised.is_absolute():
                raise ConfigError({ALLOWED_PATHS: f"Path {normalised} is not absolute"})
            if not os.path.exists(normalised):
                raise ConfigError({ALLOWED_PATHS: f"Path {normalised} does not exist"})
            self.paths.append(normalised)

    def check(self, path: str) -> str:
        """`path` normalised when it may be read; ConfigError naming the allowed paths otherwise."""
        if self.paths is None:
            return path
        normalised = _normalise(path)
        if any(normalised.is_relative_to(allowed) for allowed in self.paths):
            return str(normalised)
        allowed = ", ".join(str(p) for p in self.paths)
        raise ConfigError(f"the path {path} is outside the provider's {ALLOWED_PATHS} ({allowed})")


def _normalise(path: str) -> PurePosixPath:
    text = path.strip()
    normalised = posixpath.normpath(text) if text else ""
    if normalised.startswith("//"):  # normpath keeps a leading "//" (POSIX leaves it implementation-defined)
        normalised = "/" + normalised.lstrip("/")
    return PurePosixPath(normalised)


def _unreadable(what: str, path: str, exc: OSError) -> ConfigError:
    return ConfigError(f"cannot read {what} {path}: {exc.strerror or type(exc).__name__}")


class _PathConfigProvider(ConfigProvider):
    """A provider whose references name a path, restricted by `allowed.paths` as Kafka's are."""

    _usage = ""  # what a reference looks like, for the message when it names no path

    def __init__(self) -> None:
        self._allowed: AllowedPaths | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        self._allowed = AllowedPaths(configs.get(ALLOWED_PATHS))

    def _readable(self, path: str) -> str:
        """`path` as it may be read; ConfigError when it is missing or outside `allowed.paths`."""
        if self._allowed is None:
            raise ConfigError("the provider has not been configured yet")
        if not path:
            raise ConfigError(self._usage)
        return self._allowed.check(path)


class FileConfigProvider(_PathConfigProvider):
    """`${file:/path/to/file.properties:key}`: `key` of a Java properties file (read as UTF-8)."""

    _usage = "a file reference needs the file's path: ${provider:/path/to/file.properties:key}"

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        readable = self._readable(path)
        try:
            with open(readable, encoding="utf-8") as fh:
                data = javaproperties.load(fh)
        except OSError as exc:
            raise _unreadable("the properties file", path, exc) from None
        except (UnicodeDecodeError, ValueError):  # never quote the content: it holds secrets
            raise ConfigError(f"{path} is not a UTF-8 Java properties file") from None
        return {key: data[key] for key in keys if key in data}

    def describe_missing(self, path: str, key: str) -> str:
        return f"{path} has no key {key!r}"


class DirectoryConfigProvider(_PathConfigProvider):
    """`${directory:/run/secrets:db-password}`: the content of the regular file `db-password` in the
    directory `/run/secrets` (read as UTF-8, whole, trailing newline included, as Kafka does). A key is a
    file name of that directory, never a path into another one."""

    _usage = "a directory reference needs the directory: ${provider:/path/to/dir:file-name}"

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        directory = self._readable(path)
        try:
            entries = {entry.name: entry for entry in os.scandir(directory)}
        except NotADirectoryError:
            raise ConfigError(f"{path} is not a directory") from None
        except OSError as exc:
            raise _unreadable("the directory", path, exc) from None
        found: dict[str, str] = {}
        for key in keys:
            entry = entries.get(key)
            if entry is None or not entry.is_file():  # follows symbolic links, as Files.isRegularFile
                continue
            try:
                with open(entry.path, "rb") as fh:
                    found[key] = fh.read().decode("utf-8")
            except OSError as exc:
                raise _unreadable("the file", entry.path, exc) from None
            except UnicodeDecodeError:
                raise ConfigError(f"{entry.path} is not UTF-8 text") from None
        return found

    def describe_missing(self, path: str, key: str) -> str:
        return f"{path} has no regular file named {key!r}"


class EnvVarConfigProvider(ConfigProvider):
    """`${env:NAME}`: the environment variable NAME of the worker's process, if it matches
    `allowlist.pattern` (a regular expression the whole name must match; by default every variable)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ  # None: the process environment, read when asked
        self._pattern: re.Pattern[str] | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        pattern = configs.get(ALLOWLIST_PATTERN)
        if pattern is None:
            self._pattern = re.compile(".*", re.DOTALL)
            return
        try:
            self._pattern = re.compile(pattern)
        except re.error as exc:
            raise ConfigError({ALLOWLIST_PATTERN: f"{pattern!r} is not a regular expression: {exc}"}) from None

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        if path:
            raise ConfigError(
                f"Path is not supported for EnvVarConfigProvider, invalid value '{path}': write ${{provider:NAME}}"
            )
        if self._pattern is None:
            raise ConfigError("the provider has not been configured yet")
        environ = os.environ if self._environ is None else self._environ
        return {key: environ[key] for key in keys if key in environ and self._pattern.fullmatch(key)}

    def describe_missing(self, path: str, key: str) -> str:
        environ = os.environ if self._environ is None else self._environ
        if key in environ:
            assert self._pattern is not None
            return f"the environment variable {key} does not match {ALLOWLIST_PATTERN} ({self._pattern.pattern})"
        return f"the environment variable {key} is not set"


BUILTIN_PROVIDERS: dict[str, type[ConfigProvider]] = {}
"""Kafka's class names and aliases of the built-in providers (`FileConfigProvider`, `File`, …)."""
for _cls in (FileConfigProvider, EnvVarConfigProvider, DirectoryConfigProvider):
    _simple = _cls.__name__
    BUILTIN_PROVIDERS[KAFKA_PACKAGE + _simple] = _cls
    BUILTIN_PROVIDERS[_simple] = _cls
    BUILTIN_PROVIDERS[_simple.removesuffix("ConfigProvider")] = _cls
