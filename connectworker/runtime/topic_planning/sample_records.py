"""Sample records for the topic plan (`connectworker plan --record FILE`): records whose data a transform
routes by (Debezium's outbox EventRouter, `route.by.field`), read from JSON files.

A file holds one JSON object, read as one of:

- a value as JsonConverter writes it with `schemas.enable=true`, `{"schema": …, "payload": …}`: what a
  consumer of a Debezium topic prints, so a real change event can be copied from a topic;
- a change event in short: an object with `op` and `after` (or `before`), e.g.
  ``{"op": "c", "after": {"id": "1", "aggregatetype": "Order", "aggregateid": "7", "payload": "{}"}}``;
  its schemas are inferred (as `table.expand.json.payload` infers them; a null column is optional bytes)
  and named `sample.Envelope` and `sample.Value`, so Debezium's transforms take it for a change event;
- anything else: a schemaless value.

The sample has no topic of its own: the plan emits it to each `--topic`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.converters.json import JsonConverter
from connectworker.transforms.debezium.json_payload import JsonPayloadExpander

__all__ = ["read_sample_record"]

RECORD_OPTION = "--record"
_ENVELOPE_MEMBERS = frozenset(("op", "before", "after", "source", "ts_ms", "ts_us", "ts_ns", "transaction"))


def read_sample_record(path: Path) -> SourceRecord:
    """The sample record in `path`; `ConfigError` on `--record` naming the file and what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
        document = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError({RECORD_OPTION: f"{path}: cannot be read as JSON: {exc}"}) from None
    if isinstance(document, dict) and set(document) == {"schema", "payload"}:
        converter = JsonConverter()
        converter.configure({"schemas.enable": "true"}, is_key=False)
        try:
            schema, value = converter.to_connect_data("sample", text.encode("utf-8"))
        except ConnectError as exc:
            raise ConfigError({RECORD_OPTION: f"{path}: not a value JsonConverter can read: {exc}"}) from None
        return SourceRecord(None, None, "", value, value_schema=schema)
    if isinstance(document, dict) and "op" in document and ("after" in document or "before" in document):
        return _change_event(path, document)
    return SourceRecord(None, None, "", document)


def _change_event(path: Path, document: dict[str, Any]) -> SourceRecord:
    unknown = sorted(set(document) - _ENVELOPE_MEMBERS)
    if unknown:
        raise ConfigError(
            {
                RECORD_OPTION: f"{path}: a change event in short has only the envelope's members "
                f"({', '.join(sorted(_ENVELOPE_MEMBERS))}); not {', '.join(unknown)}"
            }
        )
    rows = [document.get(side) for side in ("after", "before") if isinstance(document.get(side), dict)]
    if not rows or not isinstance(document["op"], str):
        raise ConfigError({RECORD_OPTION: f"{path}: a change event in short needs op (a string) and a row object"})
    infer = JsonPayloadExpander("optional_bytes", "optional_string")
    row = infer.schema_of("sample.Value", rows[0])
    source = infer.schema_of("sample.Source", document.get("source") or {})
    assert row is not None and source is not None
    envelope = Schema(
        SchemaType.STRUCT,
        name="sample.Envelope",
        fields=(
            Field("before", row),
            Field("after", row),
            Field("source", source),
            Field("op", Schema(SchemaType.STRING)),
            Field("ts_ms", Schema(SchemaType.INT64, optional=True)),
        ),
    )
    value = {
        "before": document.get("before"),
        "after": document.get("after"),
        "source": document.get("source") or {},
        "op": document["op"],
        "ts_ms": document.get("ts_ms"),
    }
    return SourceRecord(None, None, "", value, value_schema=envelope)
