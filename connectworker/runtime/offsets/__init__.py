"""Where committed source offsets live: the `OffsetBackingStore` protocol, the file store, the
compacted-topic store (Kafka Connect's format), the writer thread that flushes a store off the task
thread, and the checks on the offsets a task returns.

May import: api, topics (admin), and runtime's `clients`.
"""
