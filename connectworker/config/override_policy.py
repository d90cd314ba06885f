"""`connector.client.config.override.policy`: which client settings a connector may override.

Kafka's policies, by alias or class name: `All` (Kafka's default: every `producer.override.*` and
`admin.override.*` key), `None` (no key), `Principal` (only `sasl.jaas.config`, `sasl.mechanism` and
`security.protocol`: a connector may authenticate as its own principal), and `Allowlist` (the keys
listed in `connector.client.config.override.allowlist`, none by default). A key the policy refuses is
a validation error of the connector, with Kafka's message, so the connector is not created.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

POLICY_KEY = "connector.client.config.override.policy"
ALLOWLIST_KEY = "connector.client.config.override.allowlist"
PRODUCER_OVERRIDE_PREFIX = "producer.override."
ADMIN_OVERRIDE_PREFIX = "admin.override."

_PACKAGE = "org.apache.kafka.connect.connector.policy."
_SUFFIX = "ConnectorClientConfigOverridePolicy"
POLICY_NAMES = ("All", "None", "Principal", "Allowlist")
PRINCIPAL_KEYS = frozenset({"sasl.jaas.config", "sasl.mechanism", "security.protocol"})


@dataclass(frozen=True)
class OverridePolicy:
    """A policy by its Kafka name; `allowed` is the Allowlist policy's list."""

    name: str = "All"
    allowed: frozenset[str] = frozenset()

    def allows(self, key: str) -> bool:
        if self.name == "All":
            return True
        if self.name == "Principal":
            return key in PRINCIPAL_KEYS
        if self.name == "Allowlist":
            return key in self.allowed
        return False

    def violations(self, prefix: str, overrides: Collection[str]) -> dict[str, str]:
        """Kafka's validation message for each key of `overrides` (without `prefix`) the policy refuses,
        by the key as the connector wrote it."""
        return {
            prefix + key: f"The '{self.name}' policy does not allow '{key}' to be overridden in the connector "
            f"configuration."
            for key in sorted(overrides)
            if not self.allows(key)
        }


def policy_name(value: str) -> str:
    """The Kafka name of the policy `value` names (an alias, a simple or a full class name, any case);
    raises ValueError naming the allowed values."""
    text = value.strip()
    simple = text[len(_PACKAGE) :] if text.startswith(_PACKAGE) else text
    if simple.endswith(_SUFFIX):
        simple = simple[: -len(_SUFFIX)]
    for name in POLICY_NAMES:
        if simple.lower() == name.lower():
            return name
    allowed = ", ".join(POLICY_NAMES)
    raise ValueError(
        f"{value!r} is not a policy connectworker knows: use one of {allowed}, or Kafka's class "
        f"names ({_PACKAGE}<name>{_SUFFIX})"
    )


def overrides(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    """The client settings a connector config overrides under `prefix`, the prefix removed."""
    return {
        key[len(prefix) :]: value for key, value in props.items() if key.startswith(prefix) and len(key) > len(prefix)
    }
