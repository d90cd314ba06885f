"""Change data capture from PostgreSQL, compatible with Debezium's PostgreSQL connector: its keys, its
change events, its topics. Needs the `sql` extra (psycopg2-binary, for the replication protocol); nothing
here imports psycopg2 until a connector starts. See docs/cdc.md.
"""

from .connector import PostgresCdcConnector
from .task import PostgresCdcTask

__all__ = ["PostgresCdcConnector", "PostgresCdcTask"]
