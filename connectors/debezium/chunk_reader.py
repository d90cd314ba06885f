"""What an incremental snapshot needs of a database (`ChunkReader`: its tables, its SQL and its
connection for the chunks and the watermarks), and which columns cut a table into chunks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .snapshot_requests import Collection
from .table_shape import TableShape


class KeyBounds(Protocol):
    """How a database compares a key with a key's values in SQL (Debezium's chunk query builders)."""

    def greater(self, columns: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
        """`key > values`, and its parameters."""
        ...

    def at_most(self, columns: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
        """`key <= values`, and its parameters."""
        ...


Rows = list[tuple[Any, tuple[Any, ...]]]
"""A chunk's rows, in key order: each as (its values, as `TableShape.row` takes them; its key's values)."""


@dataclass(frozen=True)
class ChunkQuery:
    """The next chunk: up to `limit` rows keyed by `columns` above `after` (None: from the first) and at most
    `upto`, that `condition` keeps, in key order."""

    columns: Sequence[str]
    after: tuple[Any, ...] | None
    upto: tuple[Any, ...]
    condition: str | None
    limit: int

    def statement(
        self, table: str, select: str, quote: Callable[[str], str], bounds: KeyBounds
    ) -> tuple[str, list[Any]]:
        """`SELECT <select> FROM <table> WHERE <bounds> [AND (<condition>)] ORDER BY <key> LIMIT <limit>`."""
        where: list[str] = []
        params: list[Any] = []
        for bound, values in ((bounds.greater, self.after), (bounds.at_most, self.upto)):
            if values is not None:
                sql, values_params = bound(self.columns, values)
                where.append(sql)
                params += values_params
        if self.condition:
            where.append(f"({self.condition})")
        order = ", ".join(quote(c) for c in self.columns)
        return (
            f"SELECT {select} FROM {table} WHERE {' AND '.join(where)} ORDER BY {order} LIMIT {int(self.limit)}",
            params,
        )

    def read(
        self, cursor: Any, table: str, names: Sequence[str], quote: Callable[[str], str], bounds: KeyBounds
    ) -> Rows:
        """The rows of the columns `names` on `cursor`, each with its key's values, as `ChunkReader.chunk`
        gives them."""
        sql, params = self.statement(table, ", ".join(map(quote, names)) or "NULL", quote, bounds)
        cursor.execute(sql, params)
        positions = [list(names).index(c) for c in self.columns]
        return [(list(row), tuple(row[p] for p in positions)) for row in cursor.fetchall()]


def watermark_statement(
    signal_table: str, insert: bool, id: str, kind: str, data: str, quote: Callable[[str], str]
) -> tuple[str, tuple[str, ...]]:
    """INSERT a watermark (id, type, data, by position as Debezium writes it) into the signal table, or DELETE
    the row `id` (an `insert_delete` close)."""
    namespace, _, table = signal_table.partition(".")
    name = f"{quote(namespace)}.{quote(table)}"
    if insert:
        return f"INSERT INTO {name} VALUES (%s, %s, %s)", (id, kind, data)
    return f"DELETE FROM {name} WHERE id = %s", (id,)


def read_max_key(
    cursor: Any, table: str, columns: Sequence[str], condition: str | None, quote: Callable[[str], str]
) -> tuple[Any, ...] | None:
    """The greatest key of the rows `condition` keeps (`SELECT <key> … ORDER BY <key> DESC LIMIT 1`); None for
    none."""
    where = f" WHERE ({condition})" if condition else ""
    order = ", ".join(f"{quote(c)} DESC" for c in columns)
    cursor.execute(f"SELECT {', '.join(quote(c) for c in columns)} FROM {table}{where} ORDER BY {order} LIMIT 1")
    row = cursor.fetchone()
    return tuple(row) if row is not None else None


class ChunkReader(Protocol):
    """The database's part: its tables, its SQL and its connection for the chunks and the watermarks."""

    def tables(self) -> Sequence[str]:
        """The captured tables' ids (the signal table left out), which a signal's regexes are matched against."""
        ...

    def shape(self, table: str, fresh: bool = True) -> TableShape | None:
        """The table's shape now (`fresh`: at its snapshot's start; else it may be the one given then); None
        when it is not captured or does not exist."""
        ...

    def max_key(self, shape: TableShape, columns: Sequence[str], condition: str | None) -> tuple[Any, ...] | None:
        """The greatest key (the database's values of `columns`) of the rows `condition` keeps; None: none."""
        ...

    def chunk(self, shape: TableShape, query: ChunkQuery) -> Rows:
        """The rows `query` asks for."""
        ...

    def write_watermark(self, insert: bool, id: str, kind: str, data: str) -> None:
        """INSERT (id, kind, data) into the signal table, or (`insert` False) DELETE the row `id`; committed."""
        ...

    def source(self, shape: TableShape) -> dict[str, Any]:
        """The `source` block of a row of `shape`'s table sent now (its `snapshot` is set to `incremental`)."""
        ...


def chunk_columns(shape: TableShape | None, collection: Collection) -> list[str] | tuple[str, str]:
    """The columns the chunks are cut by: the surrogate key, else the record key's (primary key or
    message.key.columns); or why the table is skipped: its TABLE_SCAN_COMPLETED status, and the reason."""
    if shape is None:
        return "UNKNOWN_SCHEMA", "the table is not captured, or does not exist"
    if collection.surrogate_key:
        if collection.surrogate_key not in {c.name for c in shape.columns}:
            return "SQL_EXCEPTION", f'the surrogate key "{collection.surrogate_key}" is not a column of it'
        return [collection.surrogate_key]
    if not shape.key_columns:
        return "NO_PRIMARY_KEY", "the table has no primary keys"
    return [c.name for c in shape.key_columns]


BufferedRow = tuple[TableShape, dict[str, Any], dict[str, Any] | None, tuple[Any, ...]]
"""A row of the open window (its shape, row, key and chunking key): sent at its close unless the stream sent
a newer copy meanwhile."""


def window_key(key: Mapping[str, Any] | None) -> Any:
    """A key as the window's buffer is keyed: its values (their text where one is not hashable, a dict)."""
    if not key:
        return None
    values = tuple(key.values())
    try:
        hash(values)
    except TypeError:
        return repr(values)
    return values
