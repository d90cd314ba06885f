"""sqlglot's MySQL dialect, extended (as sqlglot's own dialects extend one another) with the MySQL and
MariaDB type names it reads otherwise or not at all:

- the spatial types (`POINT`, `LINESTRING`, `POLYGON`, `MULTI...`; `MULTIPOINT` and `GEOMETRYCOLLECTION` are
  read as `GEOMETRY`) and MariaDB's `INET4` / `INET6` (read as `INET`), which sqlglot's MySQL dialect refuses
  (the connector maps none of them; they matter only as columns of a table it holds);
- `REAL` (MySQL's DOUBLE unless `REAL_AS_FLOAT`; sqlglot reads FLOAT) and `LONG` / `LONG VARCHAR` /
  `LONG VARBINARY` (MEDIUMTEXT / MEDIUMBLOB; sqlglot reads BIGINT);
- `NATIONAL CHAR` / `NATIONAL VARCHAR` / `NCHAR VARCHAR` and their `VARYING` forms, and `CHAR BYTE`
  (BINARY);
- `FLOAT ... UNSIGNED` (deprecated in MySQL 8, read as FLOAT: the sign changes no value the binlog carries).
"""

from __future__ import annotations

from sqlglot.dialects.mysql import MySQL
from sqlglot.parsers.mysql import MySQLParser
from sqlglot.tokens import TokenType

_SPATIAL = {
    "POINT": TokenType.POINT,
    "LINESTRING": TokenType.LINESTRING,
    "POLYGON": TokenType.POLYGON,
    "MULTILINESTRING": TokenType.MULTILINESTRING,
    "MULTIPOLYGON": TokenType.MULTIPOLYGON,
    "MULTIPOINT": TokenType.GEOMETRY,  # sqlglot has no token of these three: read as the GEOMETRY they are
    "GEOMETRYCOLLECTION": TokenType.GEOMETRY,
    "GEOMCOLLECTION": TokenType.GEOMETRY,
}


class BinlogMySql(MySQL):
    class Tokenizer(MySQL.Tokenizer):
        KEYWORDS = {
            **MySQL.Tokenizer.KEYWORDS,
            **_SPATIAL,
            "REAL": TokenType.DOUBLE,
            "LONG": TokenType.MEDIUMTEXT,
            "LONG VARCHAR": TokenType.MEDIUMTEXT,
            "LONG CHAR VARYING": TokenType.MEDIUMTEXT,
            "LONG VARBINARY": TokenType.MEDIUMBLOB,
            "NATIONAL CHAR": TokenType.NCHAR,
            "NATIONAL CHARACTER": TokenType.NCHAR,
            "NATIONAL VARCHAR": TokenType.NVARCHAR,
            "NATIONAL CHAR VARYING": TokenType.NVARCHAR,
            "NATIONAL CHARACTER VARYING": TokenType.NVARCHAR,
            "NCHAR VARCHAR": TokenType.NVARCHAR,
            "NCHAR VARYING": TokenType.NVARCHAR,
            "CHAR BYTE": TokenType.BINARY,
            "INET4": TokenType.INET,
            "INET6": TokenType.INET,
        }

    class Parser(MySQLParser):
        SIGNED_TO_UNSIGNED_TYPE_TOKEN = {**MySQLParser.SIGNED_TO_UNSIGNED_TYPE_TOKEN, TokenType.FLOAT: TokenType.FLOAT}
