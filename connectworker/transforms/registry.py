"""Kafka's names for the built-in transforms and predicates, and where each lives here.

A connector configuration names a built-in by Kafka's class name
(`org.apache.kafka.connect.transforms.InsertField$Value`), or by the short name after the package
(`InsertField$Value`). Modules are imported on first use only.
"""

from __future__ import annotations

import importlib

from connectworker.api.transform import Predicate, Transformation

__all__ = [
    "KAFKA_PREDICATES_PACKAGE",
    "KAFKA_TRANSFORMS_PACKAGE",
    "PREDICATES",
    "TRANSFORMS",
    "builtin_predicate",
    "builtin_transformation",
]

KAFKA_TRANSFORMS_PACKAGE = "org.apache.kafka.connect.transforms."
KAFKA_PREDICATES_PACKAGE = "org.apache.kafka.connect.transforms.predicates."

TRANSFORMS: dict[str, str] = {  # short Kafka name -> "module:Class" under connectworker.transforms
    "RegexRouter": "regex_router:RegexRouter",
    "TimestampRouter": "timestamp_router:TimestampRouter",
    "Filter": "filter:Filter",
    "ValueToKey": "value_to_key:ValueToKey",
    "InsertHeader": "insert_header:InsertHeader",
    "DropHeaders": "drop_headers:DropHeaders",
    **{
        f"{name}${side}": f"{module}:{name}{side}"
        for name, module in (
            ("InsertField", "insert_field"),
            ("ReplaceField", "replace_field"),
            ("MaskField", "mask_field"),
            ("SetSchemaMetadata", "set_schema_metadata"),
            ("ExtractField", "extract_field"),
            ("HoistField", "hoist_field"),
            ("Cast", "cast"),
            ("Flatten", "flatten"),
            ("HeaderFrom", "header_from"),
            ("TimestampConverter", "timestamp_converter"),
        )
        for side in ("Key", "Value")
    },
}
PREDICATES: dict[str, str] = {
    "TopicNameMatches": "predicates:TopicNameMatches",
    "HasHeaderKey": "predicates:HasHeaderKey",
    "RecordIsTombstone": "predicates:RecordIsTombstone",
}


def _short(name: str, package: str) -> str:
    return name[len(package) :] if name.startswith(package) else name


def _load(spec: str) -> type:
    module, cls = spec.split(":")
    found: type = getattr(importlib.import_module(f"connectworker.transforms.{module}"), cls)
    return found


def builtin_transformation(name: str) -> type[Transformation] | None:
    """The built-in transform `name` denotes (Kafka's class name or its short form), or None."""
    spec = TRANSFORMS.get(_short(name.strip(), KAFKA_TRANSFORMS_PACKAGE))
    return None if spec is None else _load(spec)


def builtin_predicate(name: str) -> type[Predicate] | None:
    """The built-in predicate `name` denotes (Kafka's class name or its short form), or None."""
    spec = PREDICATES.get(_short(name.strip(), KAFKA_PREDICATES_PACKAGE))
    return None if spec is None else _load(spec)
