"""The DataFrame formats `connect-source` and `connect-kafka` (Python Data Source API, Spark 4), with
what their reads, writes and commits keep per Python worker process.

May import: the runtime, config, converters and topics; never `spark.runner`.
"""
