"""PostgreSQL's geometric types as Debezium writes them (its `PostgresValueConverter`, Debezium 3.x):

- `point`: struct `io.debezium.data.geometry.Point` `{x, y, wkb, srid}`, `wkb` the point in OGC Well-Known
  Binary (little-endian), `srid` null;
- `box`, `lseg`, `path`, `polygon`: struct `io.debezium.data.geometry.Geometry` (version 2) `{wkb, srid,
  extensions}`: a `box` as the closed five-point ring of its corners (first corner, (x1, y2), second corner,
  (x2, y1), first corner), an `lseg` and a `path` as a line string, a `polygon` as a one-ring polygon closed
  if its last point is not its first; `srid` null; `extensions` ``{"type": <the type>}``, and for a path
  ``"closed": "true"`` or ``"false"``;
- `circle`: struct `io.debezium.data.geometry.Circle` `{center: Point, radius}`;
- `line`: struct `io.debezium.data.geometry.Line` `{a, b, c}` (the line ``Ax + By + C = 0``).

Each parser reads the type's text form (PostgreSQL's output, `extra_float_digits=3`: exact doubles); the
fallbacks are Debezium's values for a NOT NULL column a change leaves out.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from typing import Any

from connectworker.api.schema import Schema, SchemaType

_FLOAT64 = Schema(SchemaType.FLOAT64)
_OPTIONAL_INT32 = Schema(SchemaType.INT32, optional=True)
_WKB_POINT, _WKB_LINE_STRING, _WKB_POLYGON = 1, 2, 3
_PUNCTUATION = re.compile(r"[()\[\]<>{}]")

Coordinates = Sequence[tuple[float, float]]


def _struct(name: str, version: int, doc: str, *fields: tuple[str, Schema], optional: bool = False) -> Schema:
    return Schema(
        SchemaType.STRUCT,
        optional=optional,
        name=name,
        version=version,
        doc=doc,
        fields=Schema.struct(None, *fields).fields,
    )


POINT = _struct(
    "io.debezium.data.geometry.Point",
    1,
    "Geometry (POINT)",
    ("x", _FLOAT64),
    ("y", _FLOAT64),
    ("wkb", Schema(SchemaType.BYTES, optional=True)),
    ("srid", _OPTIONAL_INT32),
)
GEOMETRY = _struct(
    "io.debezium.data.geometry.Geometry",
    2,
    "Geometry",
    ("wkb", Schema(SchemaType.BYTES)),
    ("srid", _OPTIONAL_INT32),
    ("extensions", Schema.map(Schema(SchemaType.STRING), Schema(SchemaType.STRING), optional=True)),
    optional=True,
)
CIRCLE = _struct(
    "io.debezium.data.geometry.Circle", 1, "Geometry (CIRCLE)", ("center", POINT), ("radius", _FLOAT64), optional=True
)
LINE = _struct(
    "io.debezium.data.geometry.Line",
    1,
    "Geometry (LINE)",
    ("a", _FLOAT64),
    ("b", _FLOAT64),
    ("c", _FLOAT64),
    optional=True,
)


def _numbers(text: str) -> list[float]:
    return [float(number) for number in _PUNCTUATION.sub("", text).split(",")]


def _points(text: str) -> list[tuple[float, float]]:
    numbers = _numbers(text)
    if len(numbers) % 2:
        raise ValueError(f"not a list of points: {text[:80]!r}")
    return list(zip(numbers[::2], numbers[1::2], strict=True))


def _wkb(kind: int, *counts_and_points: int | Coordinates) -> bytes:
    """Little-endian OGC Well-Known Binary: the byte order, the geometry type, then counts and points."""
    out = bytearray(struct.pack("<BI", 1, kind))
    for part in counts_and_points:
        if isinstance(part, int):
            out += struct.pack("<I", part)
        else:
            out += struct.pack("<I", len(part))
            for x, y in part:
                out += struct.pack("<dd", x, y)
    return bytes(out)


def point_value(x: float, y: float) -> dict[str, Any]:
    return {"x": x, "y": y, "wkb": struct.pack("<BIdd", 1, _WKB_POINT, x, y), "srid": None}


def _geometry(wkb: bytes, kind: str, **more: str) -> dict[str, Any]:
    return {"wkb": wkb, "srid": None, "extensions": {"type": kind, **more}}


def _polygon(ring: Coordinates) -> bytes:
    return _wkb(_WKB_POLYGON, 1, ring)


def _line_string(points: Coordinates) -> bytes:
    return _wkb(_WKB_LINE_STRING, points)


def point(text: str) -> dict[str, Any]:
    x, y = _numbers(text)
    return point_value(x, y)


def box(text: str) -> dict[str, Any]:
    x1, y1, x2, y2 = _numbers(text)
    return _geometry(_polygon([(x1, y1), (x1, y2), (x2, y2), (x2, y1), (x1, y1)]), "box")


def lseg(text: str) -> dict[str, Any]:
    x1, y1, x2, y2 = _numbers(text)
    return _geometry(_line_string([(x1, y1), (x2, y2)]), "lseg")


def path(text: str) -> dict[str, Any]:
    closed = "false" if text.startswith("[") else "true"
    return _geometry(_line_string(_points(text)), "path", closed=closed)


def polygon(text: str) -> dict[str, Any]:
    ring = _points(text)
    if len(ring) >= 2 and ring[0] != ring[-1]:
        ring.append(ring[0])
    return _geometry(_polygon(ring), "polygon")


def circle(text: str) -> dict[str, Any]:
    x, y, radius = _numbers(text)
    return {"center": point_value(x, y), "radius": radius}


def line(text: str) -> dict[str, Any]:
    a, b, c = _numbers(text)
    return {"a": a, "b": b, "c": c}


_UNIT_SEGMENT = _line_string([(0.0, 0.0), (1.0, 0.0)])
FALLBACKS: dict[str, Any] = {
    "point": point_value(0.0, 0.0),
    "box": _geometry(_polygon([(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]), "box"),
    "lseg": _geometry(_UNIT_SEGMENT, "lseg"),
    "path": _geometry(_UNIT_SEGMENT, "path"),
    "polygon": _geometry(_polygon([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)]), "polygon"),
    "circle": {"center": point_value(0.0, 0.0), "radius": 0.0},
    "line": {"a": 0.0, "b": 1.0, "c": 0.0},
}
TYPES: dict[str, tuple[Schema, Callable[[str], Any]]] = {
    "point": (POINT, point),
    "box": (GEOMETRY, box),
    "lseg": (GEOMETRY, lseg),
    "path": (GEOMETRY, path),
    "polygon": (GEOMETRY, polygon),
    "circle": (CIRCLE, circle),
    "line": (LINE, line),
}
"""By type name: the schema and the parser of each geometric type."""
