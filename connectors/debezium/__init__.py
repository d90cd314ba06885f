"""The change-data-capture pipeline both CDC connectors (PostgreSQL, MySQL / MariaDB) run, as Debezium's
connectors share `debezium-core`: the life of a task (coordinator.py), how a change becomes records
(emitter.py), a table's shape with the column mappers (table_shape.py), the shared keys and settings, and
the rule for the Debezium keys a connector does not implement. Each database supplies its keys, types,
`source` block, offsets, and its snapshot and streaming sources (docs/cdc.md)."""
