"""Topic creation as the running worker meets it: the gate a task asks before producing to a new
topic (a topic that vanishes at run time is the task's to notice: tasks/vanished_topics.py).

The rules, the creation service and the Admin wrapper themselves live in `connectworker.topics`;
this room connects them to connectors and tasks. May import: api, config, topics, transforms,
runtime's `clients` and `observability.kafka_logging`.
"""
