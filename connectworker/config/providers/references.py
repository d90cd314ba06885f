"""`${provider:[path:]key}` references in config values, and replacing them with what providers return.

The syntax is Kafka's `ConfigTransformer.DEFAULT_PATTERN`: the provider name runs to the first `:`,
an optional path to the next `:`, and the key to the closing `}`; so `${env:HOME}` has no path, and
`${file:/etc/db.properties:password}` has the path `/etc/db.properties`. As in Kafka, a reference to a
provider that `config.providers` does not name is left as written, and every key a config asks of one
path is fetched with one `get` call. Unlike Kafka, which also leaves a reference it could not resolve
as written, a missing file, a missing key or a refused path is a problem reported against the config
key, naming the reference and what is wrong, never a value.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from connectworker.api.config_provider import ConfigProvider
from connectworker.api.errors import ConfigError
from connectworker.plugins import describe_exception

log = logging.getLogger(__name__)

PATTERN = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")
"""Kafka's pattern, character for character (`ConfigTransformer.DEFAULT_PATTERN`)."""
HIDDEN = "[hidden]"  # Kafka's marker, as the REST API shows secrets
MIN_SHOWN_LENGTH = 4  # shorter values are replaced only where quoted, as the log redaction does


@dataclass(frozen=True)
class Reference:
    """One `${provider:[path:]key}` as written in a value."""

    provider: str
    path: str
    key: str
    text: str

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Reference:
        return cls(match.group(1), match.group(3) or "", match.group(4), match.group(0))


def references(value: str) -> Iterator[Reference]:
    """The references in `value`, in order."""
    for match in PATTERN.finditer(value):
        yield Reference.from_match(match)


def has_references(value: str) -> bool:
    return PATTERN.search(value) is not None


def is_reference_only(value: str) -> bool:
    """Whether `value` is nothing but references (e.g. `${file:/etc/db.properties:password}`): showing it
    shows where a secret lives, not the secret."""
    return bool(value) and PATTERN.sub("", value) == ""


class UnresolvedReferenceError(ConfigError):
    """Some references of a config could not be resolved; `problems` names each key with the reference
    and what is wrong."""


@dataclass
class Resolution:
    """A config with its references replaced, and what could not be."""

    props: dict[str, str]  # the resolved config; a reference that could not be resolved is left as written
    values: set[str] = field(default_factory=set)  # every value a provider gave: secrets for the redactor
    problems: dict[str, str] = field(default_factory=dict)  # key -> "${...}: what is wrong; ..."
    unknown: dict[str, list[str]] = field(default_factory=dict)  # key -> references naming no provider
    resolved_keys: set[str] = field(default_factory=set)  # keys whose value changed

    def check(self, source: str | None = None) -> dict[str, str]:
        """The resolved config; `UnresolvedReferenceError` if any reference could not be resolved."""
        if self.problems:
            raise UnresolvedReferenceError(
                {key: f"cannot be resolved: {problem}" for key, problem in self.problems.items()}, source=source
            )
        return self.props


class ConfigProviders:
    """The worker's providers by name (`config.providers`), resolving references in configs."""

    def __init__(self, providers: Mapping[str, ConfigProvider] | None = None) -> None:
        self._providers = dict(providers or {})

    @property
    def names(self) -> list[str]:
        return list(self._providers)

    def __bool__(self) -> bool:
        return bool(self._providers)

    def resolve(self, props: Mapping[str, str]) -> Resolution:
        """`props` with every reference to a configured provider replaced by its value."""
        wanted: dict[tuple[str, str], set[str]] = {}
        for value in props.values():
            for ref in references(value):
                if ref.provider in self._providers:
                    wanted.setdefault((ref.provider, ref.path), set()).add(ref.key)
        found: dict[tuple[str, str], Mapping[str, str]] = {}
        failed: dict[tuple[str, str], str] = {}
        for (name, path), keys in wanted.items():
            try:
                data = self._providers[name].get(path, frozenset(keys))
            except ConfigError as exc:
                failed[(name, path)] = "; ".join(exc.problems.values())
            except Exception as exc:  # a provider plugin may raise anything
                failed[(name, path)] = f"provider {name} raised {describe_exception(exc)}"
            else:
                found[(name, path)] = data
        resolution = Resolution({})
        for key, value in props.items():
            resolution.props[key] = self._replace(key, value, found, failed, resolution)
        return resolution

    def _replace(
        self,
        key: str,
        value: str,
        found: Mapping[tuple[str, str], Mapping[str, str]],
        failed: Mapping[tuple[str, str], str],
        resolution: Resolution,
    ) -> str:
        problems: list[str] = []

        def replacement(match: re.Match[str]) -> str:
            ref = Reference.from_match(match)
            provider = self._providers.get(ref.provider)
            if provider is None:
                resolution.unknown.setdefault(key, []).append(ref.text)
                return ref.text
            where = (ref.provider, ref.path)
            if where in failed:
                problems.append(f"{ref.text}: {failed[where]}")
                return ref.text
            got = found[where].get(ref.key)
            if not isinstance(got, str):
                problems.append(f"{ref.text}: {provider.describe_missing(ref.path, ref.key)}")
                return ref.text
            resolution.values.add(got)
            return got

        resolved = PATTERN.sub(replacement, value)
        if problems:
            resolution.problems[key] = "; ".join(problems)
        if resolved != value:
            resolution.resolved_keys.add(key)
        return resolved

    def close(self) -> None:
        """Close every provider; one that raises is logged, the others are still closed."""
        for name, provider in self._providers.items():
            try:
                provider.close()
            except Exception as exc:
                log.error("Config provider %s raised from close(): %s", name, describe_exception(exc))


def shown_message(message: str, raw: Mapping[str, str], resolved: Mapping[str, str], values: Iterable[str] = ()) -> str:
    """A message about a resolved config with every resolved value put back as its reference, so that
    it names `${file:...}` rather than what the file holds; any other provider value left in it (part of
    a longer text) is replaced by `[hidden]`."""
    for key in sorted(raw, key=lambda k: -len(resolved.get(k, ""))):
        value = resolved.get(key)
        if not value or value == raw[key]:
            continue
        message = message.replace(repr(value), repr(raw[key]))
        if len(value) >= MIN_SHOWN_LENGTH:  # a short value would hit unrelated words; its quoted form is
            message = message.replace(value, raw[key])  # replaced above
    for value in sorted(values, key=len, reverse=True):
        if value:
            message = message.replace(repr(value), repr(HIDDEN))
            if len(value) >= MIN_SHOWN_LENGTH:
                message = message.replace(value, HIDDEN)
    return message
