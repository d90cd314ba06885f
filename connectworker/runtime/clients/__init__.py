"""Kafka client plumbing every room shares: producer defaults, the Admin client of topic creation and
the storage topics, Java's partitioner (for offsets-topic keys), connectivity tracking, the start-up
cluster check, GC tuning and retry backoff.

May import: api, topics (the Admin wrapper) and runtime's `observability.kafka_logging`; nothing else
of runtime.
"""
