"""One rule for a Debezium key a CDC connector does not implement, the same in every connector:

- **refused at validate** when setting it would change what is written (which rows, columns or events are
  captured; a record's topic, key, value, schema or headers): a file relying on it must not run with
  another meaning. A value that asks for what the connector does anyway (`database.ssl.mode=disabled`,
  `provide.transaction.metadata=false`) is accepted.
- **warned once** (and otherwise ignored) when it only tunes: performance, retries, timeouts, metrics.

Each connector lists its keys (unimplemented_keys.py beside its keys.py) as `UnimplementedKey`s.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from connectworker.config.unsupported_keys import ConnectorKeyWarnings


@dataclass(frozen=True)
class UnimplementedKey:
    key: str  # exact, or a prefix ending in '.'
    changes_data: bool = False
    why: str = ""  # what it does in Debezium (refused keys: why the connector cannot honour it)
    harmless: tuple[str, ...] = ()  # values that ask for what the connector does anyway (compared ignoring case)

    def names(self, key: str) -> bool:
        return key == self.key or (self.key.endswith(".") and key.startswith(self.key))


def listed(name: str, keys: Sequence[UnimplementedKey], declared: Collection[str]) -> UnimplementedKey | None:
    """The first of `keys` naming the key `name` (list exact keys before a prefix that covers them); None for
    a key the connector declares (implements) or does not list."""
    if name in declared:
        return None
    return next((key for key in keys if key.names(name)), None)


def refused_keys(
    props: Mapping[str, str], keys: Sequence[UnimplementedKey], declared: Collection[str]
) -> dict[str, str]:
    """The problems of the keys of `props` that would change what is written, by key."""
    problems = {}
    for name, value in props.items():
        key = listed(name, keys, declared)
        if key is not None and key.changes_data and value.strip().lower() not in key.harmless:
            allowed = f" (or set it to {' or '.join(repr(v) for v in key.harmless)})" if key.harmless else ""
            problems[name] = (
                f"Debezium's {name} is not implemented by this connector, and it would change what is written: "
                f"{key.why}. Remove it{allowed}"
            )
    return problems


def warned_keys(props: Iterable[str], keys: Sequence[UnimplementedKey], declared: Collection[str]) -> list[str]:
    """The tuning keys of `props` the connector ignores, sorted: reported once per connector."""
    return sorted(name for name in props if (key := listed(name, keys, declared)) is not None and not key.changes_data)


def key_warnings(database: str) -> ConnectorKeyWarnings:
    return ConnectorKeyWarnings(
        f"{{a}}Debezium {database} connector key{{s}} this connector does not implement: ignored, as none changes "
        "a record it writes (docs/cdc.md)"
    )
