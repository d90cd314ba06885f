"""What lets people see a running worker: Prometheus metrics (read from the worker at scrape time),
librdkafka's logs routed into Python logging, the per-thread log context (connector, task, topic),
and the redaction of secrets in configs and traces.

May import: api, config, topics, plugins, and runtime's `status` (and the task types it reads).
"""
