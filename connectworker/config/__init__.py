"""Worker and connector configuration: files, environment, typed settings, validation.

`load_worker_config` and `load_connector_configs` read a worker's files with every problem reported
before anything starts; `WorkerConfig` (pydantic-settings, `CONNECT_*` environment variables) and
`ConnectorConfig` are what the runtime is built from; `validate_connector` backs the REST validate
endpoint; `ErrorHandling` holds a connector's `errors.*` keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.config.connector_config import ConnectorConfig, parse_connector_config, validate_connector
    from connectworker.config.error_handling import ErrorHandling
    from connectworker.config.loading import load_connector_configs, load_worker_config
    from connectworker.config.properties import load_connector_file, load_properties
    from connectworker.config.worker_config import WorkerConfig

_EXPORTS = {
    "ConnectorConfig": "connector_config",
    "ErrorHandling": "error_handling",
    "WorkerConfig": "worker_config",
    "load_connector_configs": "loading",
    "load_connector_file": "properties",
    "load_properties": "properties",
    "load_worker_config": "loading",
    "parse_connector_config": "connector_config",
    "validate_connector": "connector_config",
}
__all__ = [
    "ConnectorConfig",
    "ErrorHandling",
    "WorkerConfig",
    "load_connector_configs",
    "load_connector_file",
    "load_properties",
    "load_worker_config",
    "parse_connector_config",
    "validate_connector",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
