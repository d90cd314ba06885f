"""Schemathesis fuzzes every operation of the OpenAPI document the worker serves, over real HTTP against
a running worker and broker: no 5xx answer, and every answer matches the document (status code,
content type, body schema). Bounded (examples per operation, fixed seed) so it stays fast and
reproducible; raise --max-examples locally to dig deeper.

Schemathesis runs as its command line (`schemathesis run`): its lazy pytest loader does not work with
this pytest version, and the command line is what a user would run anyway.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from tests.broker import Broker
from tests.integration.test_rest_harness import RestWorker, datagen, rest_worker, rest_worker_config
from tests.kafka_helpers import delete_topics, existing_topics

pytestmark = pytest.mark.heavy(seconds=45)

EXAMPLE = "datagen-example"  # the connector name the OpenAPI document uses in its examples
CHECKS = ("not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance")
MAX_EXAMPLES = 20


def logger_levels() -> dict[str, int]:
    manager = logging.Logger.manager
    return {name: lg.level for name, lg in list(manager.loggerDict.items()) if isinstance(lg, logging.Logger)}


@pytest.fixture
def served(broker: Broker, admin: AdminClient, tmp_path: Path) -> Iterator[RestWorker]:
    """A worker running one bounded connector under the example name, so examples reach real code."""
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    root_level, levels = logging.getLogger().level, logger_levels()
    topics_before = existing_topics(admin)
    try:
        with rest_worker(config, datagen(EXAMPLE, "fuzz-example", records="50", rate="100")) as api:
            yield api
    finally:
        # The fuzzer sets arbitrary log levels through /admin/loggers: put them back; and the connectors
        # it managed to create wrote somewhere: free the broker's memory.
        logging.getLogger().setLevel(root_level)
        for name in logger_levels():
            logging.getLogger(name).setLevel(levels.get(name, logging.NOTSET))
        delete_topics(admin, sorted(existing_topics(admin) - topics_before))


@pytest.mark.long(seconds=85)
def test_fuzzing_finds_no_5xx_and_no_answer_off_the_document(served: RestWorker, tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{served.url}/openapi.json",
            "--checks",
            ",".join(CHECKS),
            "--phases",
            "examples,coverage,fuzzing",
            "--max-examples",
            str(MAX_EXAMPLES),
            "--seed",
            "20240601",
            "--workers",
            "1",
            "--generation-database",
            "none",
            "--request-timeout",
            "30",
            "--no-color",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,  # within the test's own bound (tests/conftest.py: four times its `long` seconds)
    )
    assert result.returncode == 0, result.stdout[-12000:] + result.stderr[-4000:]
    assert "No issues found" in result.stdout or "passed" in result.stdout, result.stdout[-4000:]
