"""Offsets committed against one cluster do not silently steer a run against another: with the memory-only
embedded broker every run starts afresh (the earlier run's offsets set aside, with a log line); against a
cluster other than the one recorded next to the offsets file, a warning names both ids and what to do."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from connectworker.runtime.offsets.file_store import partition_key
from tests.broker import Broker
from tests.integration.harness import committed_offset, running_worker, wait_until, worker_config
from tests.integration.test_rest_harness import datagen


def test_a_second_run_on_the_embedded_broker_starts_afresh_and_keeps_the_first_runs_offsets_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = worker_config("embedded", tmp_path, **{"task.processes": "0"})
    offsets = tmp_path / "connect.offsets"
    for run in (1, 2):
        with (
            caplog.at_level(logging.INFO),
            running_worker(config, datagen("gen", "gen", records="40", rate="0")) as runtime,
        ):
            wait_until(
                lambda: committed_offset(runtime.worker, "gen", {"task": 0}) == {"seq": 40},
                30,
                f"run {run}'s 40 records committed",
            )
    # both runs wrote all 40 records, from seq 0: the second broker holds none of the first's
    starts = [
        r.getMessage().split(",")[0] for r in caplog.records if r.getMessage().startswith("DataGen task 0 starts")
    ]
    assert starts == ["DataGen task 0 starts at seq 0", "DataGen task 0 starts at seq 0"]
    kept = json.loads((tmp_path / "connect.offsets.previous-run").read_text())
    assert kept == {"gen": {partition_key({"task": 0}): {"seq": 40}}}
    [line] = [r.getMessage() for r in caplog.records if "starts empty on every run" in r.getMessage()]
    assert line == (
        f"bootstrap.servers=embedded: the embedded broker starts empty on every run, so the source offsets an "
        f"earlier run committed to {offsets} (of gen; kept in {offsets}.previous-run) are not used: every "
        "connector starts from the beginning"
    )


def test_offsets_recorded_against_another_cluster_are_warned_about_naming_both_ids(
    broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    offsets = tmp_path / "connect.offsets"
    offsets.write_text(json.dumps({"gen": {partition_key({"task": 0}): {"seq": 7}}}))
    (tmp_path / "connect.offsets.cluster-id").write_text("an-older-cluster\n")
    config = worker_config(broker.bootstrap_servers, tmp_path)
    with caplog.at_level(logging.WARNING), running_worker(config) as runtime:
        assert runtime.cluster_id is not None
        assert committed_offset(runtime.worker, "gen", {"task": 0}) == {"seq": 7}  # still used: only the operator knows
    [warning] = [r.getMessage() for r in caplog.records if "were committed against" in r.getMessage()]
    assert warning.startswith(
        f"The source offsets in {offsets} were committed against Kafka cluster an-older-cluster, but this worker's "
        f"cluster is {runtime.cluster_id}."
    )
    assert "DELETE /connectors/NAME/offsets" in warning
    assert (tmp_path / "connect.offsets.cluster-id").read_text() == f"{runtime.cluster_id}\n"


def test_a_worker_whose_offsets_directory_does_not_exist_yet_starts_and_records_its_cluster_there(
    broker: Broker, tmp_path: Path
) -> None:
    """The directory of `offset.storage.file.filename` is made on first use, as the file itself is; with tasks
    on the worker's threads nothing else makes it before the cluster id is recorded next to the file."""
    offsets = tmp_path / "not" / "yet" / "connect.offsets"
    config = worker_config(
        broker.bootstrap_servers, tmp_path, **{"offset.storage.file.filename": str(offsets), "task.processes": "0"}
    )
    with running_worker(config, datagen("gen", "gen", records="20", rate="0")) as runtime:
        wait_until(lambda: committed_offset(runtime.worker, "gen", {"task": 0}) == {"seq": 20}, 30, "20 committed")
        assert (offsets.parent / "connect.offsets.cluster-id").read_text() == f"{runtime.cluster_id}\n"
    assert json.loads(offsets.read_text())["gen"] == {partition_key({"task": 0}): {"seq": 20}}
