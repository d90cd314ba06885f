"""Topic creation as the running worker meets it: the gate a task asks before producing to a new
topic, the dry-run plan, drift checks, topics that vanish at run time, and the worker's Admin client.

The rules, the creation service and the Admin wrapper themselves live in `connectworker.topics`;
this room connects them to connectors and tasks. May import: api, config, topics, transforms,
runtime's `clients` and `observability.kafka_logging`.
"""
