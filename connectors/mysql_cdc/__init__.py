"""Change data capture from MySQL and MariaDB, Debezium-compatible (see docs/cdc.md)."""
