"""Kafka client plumbing every room shares: producer defaults, Java's partitioner (for offsets-topic
keys), connectivity tracking, the start-up cluster check, GC tuning and retry backoff.

May import: api and runtime's `observability.kafka_logging`; nothing else of runtime.
"""
