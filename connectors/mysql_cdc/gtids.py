"""GTID sets as Debezium's MySQL connector keeps them in its offsets (`gtids`): the set of transactions the
connector has seen, advanced by each transaction's GTID (its GTID event, which starts a transaction in
place of BEGIN).

- MySQL: `source_uuid:interval[:interval...]` per server, comma-separated
  (``3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5``); a transaction's GTID is `source_uuid:transaction_number`.
- MariaDB: `domain-server-sequence` per replication domain, comma-separated (``0-1-42``); a transaction's GTID
  replaces its domain's entry (sequence numbers rise within a domain).
"""

from __future__ import annotations

import re

_MYSQL_GTID = re.compile(r"([0-9a-fA-F-]{36}(?::[^:,]+)?):(\d+)")
_MARIADB_GTID = re.compile(r"(\d+)-(\d+)-(\d+)")


def _mysql_intervals(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split(":"):
        first, _, last = part.partition("-")
        out.append((int(first), int(last or first)))
    return out


def _merge(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted(intervals):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def advance(gtids: str | None, gtid: str, *, mariadb: bool) -> str:
    """The GTID set `gtids` with the transaction `gtid` added, in the server's own notation."""
    if mariadb:
        match = _MARIADB_GTID.fullmatch(gtid.strip())
        if match is None:
            raise ValueError(f"not a MariaDB GTID (domain-server-sequence): {gtid!r}")
        domains = {entry.split("-", 1)[0]: entry.strip() for entry in (gtids or "").split(",") if entry.strip()}
        domains[match[1]] = gtid.strip()
        return ",".join(domains[domain] for domain in sorted(domains, key=int))
    match = _MYSQL_GTID.fullmatch(gtid.strip())
    if match is None:
        raise ValueError(f"not a MySQL GTID (source_uuid:transaction_id): {gtid!r}")
    source, number = match[1].lower(), int(match[2])
    sets: dict[str, list[tuple[int, int]]] = {}
    for entry in (gtids or "").replace("\n", "").split(","):
        if entry.strip():
            uuid, _, intervals = entry.strip().partition(":")
            sets[uuid.lower()] = _mysql_intervals(intervals)
    sets[source] = _merge([*sets.get(source, []), (number, number)])
    return ",".join(
        uuid + "".join(f":{a}" if a == b else f":{a}-{b}" for a, b in intervals)
        for uuid, intervals in sorted(sets.items())
    )
