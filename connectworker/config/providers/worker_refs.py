"""References in the worker's own config (its file and its `CONNECT_*` variables), resolved once when it
is loaded with the providers it declares, which are then closed again (Kafka's `AbstractConfig` does
the same). A reference that cannot be resolved stops start-up with a ConfigError naming the key, or the
variable, with the reference and what is wrong (exit status 2).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from connectworker.api.errors import ConfigError
from connectworker.config.providers.loading import (
    PROVIDERS_KEY,
    PROVIDERS_PREFIX,
    open_config_providers,
    provider_names,
)
from connectworker.config.providers.references import ConfigProviders, Resolution
from connectworker.config.worker_env import ENV_PREFIX, key_for_variable, pass_through_from_env, variable_for_field
from connectworker.plugins import add_plugin_paths

log = logging.getLogger(__name__)

ENVIRONMENT = "the environment"


class WorkerReferences:
    """Resolves a worker config's references; collects what could not be resolved for one error."""

    def __init__(self, providers: ConfigProviders, source: str | None) -> None:
        self.providers = providers
        self.source = source
        self.problems: dict[str, str] = {}
        self.env_problems = False
        self.values: set[str] = set()

    @classmethod
    def open(cls, props: Mapping[str, str], environ: Mapping[str, str], source: str | None) -> WorkerReferences:
        """The providers that `props` and the `CONNECT_*` variables declare (the variables win), with the
        `plugin.path` entries made importable first."""
        variable = variable_for_field("config_providers", environ)
        names = provider_names(environ[variable] if variable is not None else props.get(PROVIDERS_KEY))
        settings = {k[len(PROVIDERS_PREFIX) :]: v for k, v in props.items() if k.startswith(PROVIDERS_PREFIX)}
        settings.update(
            {k[len(PROVIDERS_PREFIX) :]: v for k, v in pass_through_from_env(environ, [PROVIDERS_PREFIX]).items()}
        )
        # `plugin.path` first, as Kafka reads it before anything else: it may hold the providers' classes
        # (and the connectors'), so it cannot take references itself
        plugin_variable = variable_for_field("plugin_path", environ)
        plugin_path = environ[plugin_variable] if plugin_variable else props.get("plugin.path", "")
        add_plugin_paths(p.strip() for p in plugin_path.split(",") if p.strip())
        if not names:
            return cls(ConfigProviders(), source)
        return cls(open_config_providers(names, settings, source=source if variable is None else ENVIRONMENT), source)

    @classmethod
    @contextmanager
    def opened(
        cls, props: Mapping[str, str], environ: Mapping[str, str], source: str | None
    ) -> Iterator[WorkerReferences]:
        """`open`, closed again when the block ends."""
        references = cls.open(props, environ, source)
        try:
            yield references
        finally:
            references.close()

    def resolve_props(self, props: Mapping[str, str]) -> dict[str, str]:
        """`props` (the file) resolved; a provider's own keys are used as written."""
        if not self.providers:
            return dict(props)
        resolution = self.providers.resolve({k: v for k, v in props.items() if not _provider_key(k)})
        self._take(resolution, lambda key: key, from_env=False)
        return {**props, **resolution.props}

    def resolve_env(self, values: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
        """Worker keys set by variables (key -> value) resolved; problems are named by variable."""
        if not self.providers or not values:
            return dict(values)
        resolution = self.providers.resolve({k: v for k, v in values.items() if not _provider_key(k)})
        self._take(resolution, lambda key: _variable_label(key, environ), from_env=True)
        return {**values, **resolution.props}

    def _take(self, resolution: Resolution, label: Callable[[str], str], *, from_env: bool) -> None:
        self.values |= resolution.values
        for key, problem in resolution.problems.items():
            self.problems[label(key)] = problem
            self.env_problems |= from_env
        for key, refs in resolution.unknown.items():
            log.warning(
                "%s in %s names no provider of %s (%s); it is used as written",
                ", ".join(refs),
                label(key),
                PROVIDERS_KEY,
                ", ".join(self.providers.names),
            )

    def check(self) -> None:
        """Raise the ConfigError naming every reference that could not be resolved."""
        if not self.problems:
            return
        if self.env_problems:
            where = f"{self.source} and {ENVIRONMENT}" if self.source else ENVIRONMENT
        else:
            where = self.source or "worker config"
        raise ConfigError(
            {key: f"cannot be resolved: {problem}" for key, problem in self.problems.items()}, source=where
        )

    def close(self) -> None:
        self.providers.close()


def _provider_key(key: str) -> bool:
    return key == PROVIDERS_KEY or key.startswith(PROVIDERS_PREFIX)


def _variable_label(key: str, environ: Mapping[str, str]) -> str:
    variable = variable_for_field(key.replace(".", "_"), environ)
    if variable is None:  # a pass-through key: find the variable that spells it
        variable = next(
            (name for name in environ if name.upper().startswith(ENV_PREFIX) and key_for_variable(name) == key), None
        )
    return f"{variable} (sets {key})" if variable else key
