"""connectworker: run Kafka Connect-style source connectors and create their topics."""

__version__ = "0.1.0"
