"""A column's Connect type as the CDC connectors map it: its schema and the function from the value the
database driver (or the replication stream) gives to the Connect value, under Debezium's type keys."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConnectError
from connectworker.api.schema import Schema, SchemaType

DEFAULT_UNAVAILABLE = b"__debezium_unavailable_value"


class UnsupportedTypeError(ConnectError):
    """A column whose type the connector cannot map; the message names the table, the column and the fix."""


@dataclass(frozen=True)
class TypeOptions:
    decimal_handling: str = "precise"  # precise | double | string
    time_precision: str = "adaptive"  # adaptive | adaptive_time_microseconds | connect
    binary_handling: str = "bytes"  # bytes | base64 | base64-url-safe | hex
    unavailable: bytes = DEFAULT_UNAVAILABLE  # PostgreSQL's unavailable.value.placeholder, as bytes


@dataclass(frozen=True)
class ColumnType:
    schema: Schema  # not optional; the column's nullability makes it so
    parse: Callable[[Any], Any]
    unavailable: Any = None  # the value of an unchanged TOASTed value; None: this type has no placeholder
    fallback: Any = None  # a NOT NULL column's value when a change leaves it out; None: its schema type's zero


def binary_conversion(mode: str, to_bytes: Callable[[Any], bytes]) -> tuple[SchemaType, Callable[[Any], Any]]:
    """A binary column's Connect type and conversion under binary.handling.mode, from the database's value
    (`to_bytes` makes its bytes): bytes, or the bytes as a hex, base64 or URL-safe base64 string."""
    if mode == "bytes":
        return SchemaType.BYTES, to_bytes
    if mode == "hex":
        return SchemaType.STRING, lambda value: to_bytes(value).hex()
    if mode == "base64-url-safe":
        return SchemaType.STRING, lambda value: base64.urlsafe_b64encode(to_bytes(value)).decode()
    return SchemaType.STRING, lambda value: base64.b64encode(to_bytes(value)).decode()
