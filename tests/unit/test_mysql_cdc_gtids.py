"""GTID sets as Debezium's MySQL connector's offsets hold them (`gtids`), in MySQL's notation (from its
documentation: `source_uuid:interval`, no live MySQL server here) and MariaDB's (`domain-server-sequence`)."""

from __future__ import annotations

import pytest

from connectworker.connectors.mysql_cdc.gtids import advance

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
OTHER = "9a511b7b-7059-11e2-9a24-08002762b8af"


def test_mysql_gtid_sets_grow_by_intervals() -> None:
    assert advance(None, f"{UUID.upper()}:1", mariadb=False) == f"{UUID}:1"
    assert advance(f"{UUID}:1-5", f"{UUID}:6", mariadb=False) == f"{UUID}:1-6"
    assert advance(f"{UUID}:1-5", f"{UUID}:8", mariadb=False) == f"{UUID}:1-5:8"
    assert advance(f"{UUID}:1-5:7", f"{UUID}:6", mariadb=False) == f"{UUID}:1-7"
    assert advance(f"{OTHER}:1-3,\n{UUID}:1-5", f"{UUID}:6", mariadb=False) == f"{UUID}:1-6,{OTHER}:1-3"


def test_mariadb_gtid_positions_replace_their_domain() -> None:
    assert advance(None, "0-1-7", mariadb=True) == "0-1-7"
    assert advance("0-1-7", "0-1-8", mariadb=True) == "0-1-8"
    assert advance("0-1-8,2-5-3", "1-1-4", mariadb=True) == "0-1-8,1-1-4,2-5-3"


@pytest.mark.parametrize(("gtid", "mariadb"), [("0-1", True), (f"{UUID}", False), ("0-1-2", False)])
def test_a_malformed_gtid_is_refused_naming_the_notation(gtid: str, mariadb: bool) -> None:
    with pytest.raises(ValueError, match="not a MariaDB GTID" if mariadb else "not a MySQL GTID"):
        advance(None, gtid, mariadb=mariadb)
