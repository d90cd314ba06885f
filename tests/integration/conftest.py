"""Fixtures of the integration tests that more than one module shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.spark_cluster import SparkCluster, spark_cluster


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkCluster]:
    """A Spark standalone cluster (a master, three one-core workers: three task slots, each task in an
    executor of its own, so killing one executor kills one task), started once for every Spark-cluster
    test of the run (they share one pytest-xdist process, see tests/conftest.py)."""
    with spark_cluster(tmp_path_factory.mktemp("spark-cluster"), workers=3) as running:
        yield running
