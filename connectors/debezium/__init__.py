"""What Debezium's connectors share, and so this project's CDC connectors (PostgreSQL, MySQL / MariaDB)
share: the checks of their common keys, the column type and decimal models, the setup error that names
the key to blame, and the change event's envelope."""
