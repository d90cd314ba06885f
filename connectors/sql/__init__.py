"""The SQL table source: database tables (or one query) into Kafka, one topic per table.

Needs the `sql` extra (`pip install -e '.[sql]'` in a checkout: SQLAlchemy 2 and psycopg 3); nothing here
imports SQLAlchemy until a connector starts, so the worker runs without it. See docs/sql-source.md.
"""

from .connector import SqlSourceConnector
from .task import SqlSourceTask

__all__ = ["SqlSourceConnector", "SqlSourceTask"]
