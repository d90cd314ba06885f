"""A worker config's validation errors, each against its key (or the `CONNECT_*` variable that set it), in
the words Kafka's `ConfigDef` uses, as connectors' errors are worded.

pydantic validates `WorkerConfig`; its messages ("Input should be a valid integer, unable to parse
string as an integer") are not what a Kafka user reads for the same mistake ("Invalid value '10s' for
configuration offset.flush.interval.ms: Not a number of type LONG").
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import ValidationError

from connectworker.api.errors import ConfigError
from connectworker.config.worker_env import blamed_error, variable_for_field, worker_key

__all__ = ["config_error", "kafka_wording"]


def config_error(exc: ValidationError, source: str | None) -> ConfigError:
    """Each problem against its key, or against the `CONNECT_*` variable that set the value."""

    def problem(err: Any) -> tuple[str, str | None, str]:
        field = str(err["loc"][0]) if err["loc"] else ""
        key = worker_key(field)
        return (key, variable_for_field(field, os.environ) if field else None, kafka_wording(key, err))

    return blamed_error(map(problem, exc.errors()), source)


def kafka_wording(key: str, err: Any) -> str:
    """pydantic's error for `key` in the words Kafka's `ConfigDef` uses for the same mistake ("Invalid value
    'abc' for configuration offset.flush.interval.ms: Not a number of type LONG"), as connectors' errors are;
    pydantic's own message for the kinds Kafka has no words for."""
    if err["type"] == "value_error":  # the key's own validator: its message says what is allowed
        return f"{err['msg'].removeprefix('Value error, ')} (got {err.get('input')!r})"
    ctx = err.get("ctx") or {}
    number_type = "LONG" if key.endswith(".ms") else "INT"
    why = {
        "int_parsing": f"Not a number of type {number_type}",
        "int_from_float": f"Not a number of type {number_type}",
        "float_parsing": "Not a number of type DOUBLE",
        "bool_parsing": "Expected value to be either true or false",
        "greater_than_equal": f"Value must be at least {ctx.get('ge')}",
        "greater_than": f"Value must be greater than {ctx.get('gt')}",
        "less_than_equal": f"Value must be no more than {ctx.get('le')}",
        "literal_error": f"String must be one of: {ctx.get('expected')}",
    }.get(err["type"], err["msg"])
    return f"Invalid value {err.get('input')!r} for configuration {key}: {why}"
