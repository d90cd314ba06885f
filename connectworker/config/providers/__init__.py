"""Config providers: `${provider:[path:]key}` references in worker and connector configs, resolved with
the providers a worker declares in `config.providers` (docs/configuration-providers.md).

`ConfigProviders` resolves references; `open_config_providers` builds a worker's providers from its
keys; the built-in providers are Kafka's `FileConfigProvider`, `EnvVarConfigProvider` and
`DirectoryConfigProvider`. A provider of one's own subclasses `connectworker.api.ConfigProvider`.
`worker_refs` resolves the worker config's own references when it is loaded, `connector_refs` a
connector's each time it starts (both imported where used: they build on `worker_config` and
`connector_config`, which import this package).
"""

from __future__ import annotations

from connectworker.config.providers.builtin import (
    BUILTIN_PROVIDERS,
    DirectoryConfigProvider,
    EnvVarConfigProvider,
    FileConfigProvider,
)
from connectworker.config.providers.loading import (
    PROVIDERS_KEY,
    PROVIDERS_PREFIX,
    open_config_providers,
    provider_names,
)
from connectworker.config.providers.references import (
    ConfigProviders,
    Reference,
    Resolution,
    UnresolvedReferenceError,
    has_references,
    is_reference_only,
    references,
    shown_message,
)

__all__ = [
    "BUILTIN_PROVIDERS",
    "PROVIDERS_KEY",
    "PROVIDERS_PREFIX",
    "ConfigProviders",
    "DirectoryConfigProvider",
    "EnvVarConfigProvider",
    "FileConfigProvider",
    "Reference",
    "Resolution",
    "UnresolvedReferenceError",
    "has_references",
    "is_reference_only",
    "open_config_providers",
    "provider_names",
    "references",
    "shown_message",
]
