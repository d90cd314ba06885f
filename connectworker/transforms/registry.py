"""Kafka's and Debezium's names for the built-in transforms and predicates, and where each lives here.

A connector configuration names a built-in by Kafka's class name
(`org.apache.kafka.connect.transforms.InsertField$Value`), or by the short name after the package
(`InsertField$Value`); a Debezium transform by Debezium's class name
(`io.debezium.transforms.ExtractNewRecordState`) or its simple name (`ExtractNewRecordState`), as Kafka
Connect's plugin aliases allow. Modules are imported on first use only.
"""

from __future__ import annotations

import importlib

from connectworker.api.transform import Predicate, Transformation

__all__ = [
    "DEBEZIUM_TRANSFORMS",
    "KAFKA_PREDICATES_PACKAGE",
    "KAFKA_TRANSFORMS_PACKAGE",
    "PREDICATES",
    "TRANSFORMS",
    "builtin_predicate",
    "builtin_transformation",
    "builtin_transformation_classes",
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
DEBEZIUM_TRANSFORMS: dict[str, str] = {  # Debezium's class name -> "module:Class" under connectworker.transforms
    "io.debezium.transforms.ExtractNewRecordState": "debezium.extract_new_record_state:ExtractNewRecordState",
    "io.debezium.transforms.ExtractChangedRecordState": (
        "debezium.extract_changed_record_state:ExtractChangedRecordState"
    ),
    "io.debezium.transforms.outbox.EventRouter": "debezium.event_router:EventRouter",
    "io.debezium.transforms.ByLogicalTableRouter": "debezium.logical_table_router:ByLogicalTableRouter",
    "io.debezium.transforms.ToLogicalTopicRouter": "debezium.logical_table_router:ToLogicalTopicRouter",
}
_DEBEZIUM_SIMPLE_NAMES = {name.rpartition(".")[2]: spec for name, spec in DEBEZIUM_TRANSFORMS.items()}
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
    """The built-in transform `name` denotes (Kafka's or Debezium's class name, or its short form), or None."""
    name = name.strip()
    spec = (
        TRANSFORMS.get(_short(name, KAFKA_TRANSFORMS_PACKAGE))
        or DEBEZIUM_TRANSFORMS.get(name)
        or _DEBEZIUM_SIMPLE_NAMES.get(name)
    )
    return None if spec is None else _load(spec)


def builtin_transformation_classes() -> list[str]:
    """The class names of the built-in transforms, as `GET /connector-plugins` lists them: Kafka's, then
    Debezium's."""
    return [KAFKA_TRANSFORMS_PACKAGE + name for name in sorted(TRANSFORMS)] + sorted(DEBEZIUM_TRANSFORMS)


def builtin_predicate(name: str) -> type[Predicate] | None:
    """The built-in predicate `name` denotes (Kafka's class name or its short form), or None."""
    spec = PREDICATES.get(_short(name.strip(), KAFKA_PREDICATES_PACKAGE))
    return None if spec is None else _load(spec)
