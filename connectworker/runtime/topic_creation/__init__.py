"""Topic creation at run time, in one room: the gate a task asks before producing to a new topic
(`gate.py`), the worker-wide service behind it with its known-topic cache (`service.py`), and the gate's
placements: a task process's gate, answered by the worker's service (`remote_gate.py`), the gates of
Spark's Python workers, kept per process (`per_process.py`), and a topic deleted while a task writes
to it (`vanished_topics.py`).

What a topic should look like (the rules, one topic's decision, the create-topic policy) lives in
`connectworker.topics`, which the dry run shares. May import: api, config, topics, transforms,
runtime's `clients`, `observability.kafka_logging`, `runners.task_channel` (the line protocol of task
processes) and `connectworker.process_cache`.
"""
