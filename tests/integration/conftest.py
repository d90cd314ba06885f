from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.integration.spark_cluster import SparkCluster


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkCluster]:
    """One Spark standalone cluster (a master, two two-core workers) for the modules marked `spark_cluster`,
    which tests/conftest.py puts in one lane: they run one after another in one test process, so each test
    has the cluster to itself. Four task slots: the Connect cluster's three long-lived tasks fit."""
    from tests.integration.spark_cluster import spark_cluster  # imports pyspark: only where a test needs it

    with spark_cluster(tmp_path_factory.mktemp("spark-cluster"), workers=2, cores=2) as running:
        yield running
