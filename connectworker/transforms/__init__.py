"""Kafka Connect's built-in Single Message Transforms and predicates, in Python.

Each works on schemaless values (dicts) and on values with a Connect schema (structs: dicts under a
STRUCT `Schema`), as Kafka's do, and raises `DataError` naming what it cannot handle. The worker finds
them by Kafka's class names (`registry.py`); the chain that applies them is in the runtime.
"""

from connectworker.transforms.registry import builtin_predicate, builtin_transformation

__all__ = ["builtin_predicate", "builtin_transformation"]
