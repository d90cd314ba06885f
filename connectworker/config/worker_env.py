"""Worker keys from `CONNECT_*` environment variables, named the way Confluent's images name them.

``CONNECT_`` + the key upper-cased, with ``.`` written ``_``, ``_`` written ``__`` and ``-`` written
``___`` (``CONNECT_PRODUCER_LINGER_MS`` → ``producer.linger.ms``). Declared keys are read by
pydantic-settings; keys under a pass-through prefix (``producer.``, ``value.converter.``, …) and the
variables that set nothing are found here, so that a bad or ignored value is blamed on its variable.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping

from connectworker.api.errors import ConfigError

ENV_PREFIX = "CONNECT_"


def worker_key(field: str) -> str:
    """The worker key a `WorkerConfig` field reads (`offset_flush_interval_ms` -> `offset.flush.interval.ms`)."""
    return field.replace("_", ".")


def key_for_variable(name: str) -> str:
    """The worker key a `CONNECT_*` variable sets (Confluent's translation)."""
    body = name.upper()[len(ENV_PREFIX) :].lower()
    return re.sub(r"_{1,3}", lambda m: {1: ".", 2: "_", 3: "-"}[len(m.group())], body)


def variable_for_field(field: str, environ: Mapping[str, str]) -> str | None:
    """The variable, as spelt in `environ`, that sets the declared field `field` (e.g.
    ``offset_flush_interval_ms``), or None; matched case-insensitively as pydantic-settings does."""
    wanted = ENV_PREFIX + field.upper()
    return next((name for name in environ if name.upper() == wanted), None)


def pass_through_from_env(environ: Mapping[str, str], prefixes: Iterable[str]) -> dict[str, str]:
    """Keys under `prefixes` (``producer.``, …) set by variables, e.g. ``CONNECT_PRODUCER_LINGER_MS``."""
    out = {}
    env_prefixes = [(ENV_PREFIX + prefix.rstrip(".").upper().replace(".", "_") + "_", prefix) for prefix in prefixes]
    for name, value in environ.items():
        upper = name.upper()
        for env_prefix, prefix in env_prefixes:
            if upper.startswith(env_prefix) and len(upper) > len(env_prefix):
                out[prefix + key_for_variable(ENV_PREFIX + upper[len(env_prefix) :])] = value
                break
    return out


def variables_setting_nothing(
    environ: Mapping[str, str], fields: Collection[str], prefixes: Iterable[str]
) -> dict[str, str]:
    """`CONNECT_*` variables that neither set a declared field nor fall under a pass-through prefix, with
    the key each would set in Kafka (variable → key)."""
    declared = {ENV_PREFIX + field.upper() for field in fields}
    env_prefixes = tuple(ENV_PREFIX + p.rstrip(".").upper().replace(".", "_") + "_" for p in prefixes)
    return {
        name: key_for_variable(name)
        for name in sorted(environ)
        if name.upper().startswith(ENV_PREFIX)
        and len(name) > len(ENV_PREFIX)
        and name.upper() not in declared
        and not name.upper().startswith(env_prefixes)
    }


def variable_for_key(key: str, environ: Mapping[str, str], prefixes: Iterable[str]) -> str | None:
    """The variable, as spelt in `environ`, that sets the pass-through key `key` (e.g.
    ``CONNECT_SASL_JAAS_CONFIG`` for ``sasl.jaas.config``), or None."""
    wanted = tuple(prefixes)
    return next((name for name in environ if key in pass_through_from_env({name: ""}, wanted)), None)


def blamed_error(problems: Iterable[tuple[str, str | None, str]], source: str | None) -> ConfigError:
    """A ConfigError with each (key, variable that set it or None, message) against the key, or against
    the `CONNECT_*` variable when one set the value; its source names the file, the environment or both."""
    blamed: dict[str, str] = {}
    from_env = from_file = False
    for key, variable, message in problems:
        if variable is not None:
            blamed[f"{variable} (sets {key})"] = message
            from_env = True
        else:
            blamed[key] = message
            from_file = True
    if from_env:
        return ConfigError(
            blamed, source="the environment" if not from_file or not source else f"{source} and the environment"
        )
    return ConfigError(blamed, source=source)
