"""What lets people see a running worker: Prometheus metrics (read from the worker at scrape time), a
task's counters (`task_stats.py`) and histograms (`task_metrics.py`), which the record path fills and
the metrics read wherever the task runs, librdkafka's logs routed into Python logging, the per-thread
log context (connector, task, topic), and the redaction of secrets in configs and traces.

May import: api, config, topics, plugins, and runtime's `status`; no other room of runtime.
"""
