"""A table's row builder, compiled once per table shape: the text values of a tuple in, the row's struct
value out.

Every change makes one or two rows, so this is on the stream's hot path. A loop over the columns costs
a Python step per column (about 1 µs for three columns); the compiled function is one dict display
with each column's parse inlined (a third of that), as `collections.namedtuple` and `dataclasses`
compile theirs. Its source holds nothing but generated names, tuple positions and the column names as
`repr()` literals; parsers and fallbacks are bound by name. A tuple with an unchanged TOASTed value
goes to the column loop (`slow`), which knows where to take the value from; so does a tuple whose value
a parser refused, and the column loop raises naming that column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from .pgoutput import UNCHANGED_TOAST


class Row(Protocol):
    def __call__(self, values: Sequence[Any], previous: Sequence[Any] | None = None, /) -> dict[str, Any]: ...


class RowColumn(NamedTuple):
    position: int  # in the tuple
    name: str
    parse: Callable[[str], Any] | None  # None: the text is the value
    fallback: Any  # the value of a NULL (None, or a NOT NULL column's zero value)


def compile_row(columns: Sequence[RowColumn], slow: Row) -> Row:
    """`slow`'s result for every tuple, as one expression per column for tuples without unchanged TOAST."""
    bound: dict[str, Any] = {"_TOAST": UNCHANGED_TOAST, "_slow": slow}
    picks, items = [], []
    for i, column in enumerate(columns):
        picks.append(f"        v{i} = values[{column.position}]")
        bound[f"_f{i}"] = column.fallback
        value = f"v{i}"
        if column.parse is not None:
            bound[f"_p{i}"] = column.parse
            value = f"_p{i}(v{i})"
        if column.parse is not None or column.fallback is not None:
            value = f"_f{i} if v{i} is None else {value}"
        items.append(f"{column.name!r}: {value}")
    source = "\n".join(
        [
            "def row(values, previous=None):",
            "    if _TOAST in values:",
            "        return _slow(values, previous)",
            "    try:",
            *picks,
            "        return {" + ", ".join(items) + "}",
            "    except Exception:",  # a value no parser takes: the slow path names its column
            "        return _slow(values, previous)",
        ]
    )
    exec(compile(source, "<postgres_cdc row>", "exec"), bound)
    row: Row = bound["row"]
    return row
