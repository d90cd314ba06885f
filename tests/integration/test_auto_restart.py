"""Automatic restarts (`auto.restart.*`) on a worker against the test broker, its tasks in task
processes: a task that fails its first starts runs in the end, one that always fails is given up on
after `auto.restart.max.restarts` with its trace saying so, both on Strimzi's schedule (a short base
here), and a REST restart starts the count again. Bad values are refused naming the key."""

from __future__ import annotations

import logging
import re
from itertools import pairwise
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.broker import Broker
from tests.integration.fixture_connectors import starts
from tests.integration.harness import wait_until
from tests.integration.test_cli_bad_input import assert_refused, run_cli, write_connector, write_worker
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config, status_of, wait_for_states

FLAKY = "tests.integration.fixture_connectors.FlakyStartDataGen"
# The schedule is checked as the worker decides it (each delay it announces, and none for a restart at
# once) and against the clock from below only: a start never comes before its delay. How much later it
# comes is the machine's business (the supervisor looks every 0.25 s, stopping the failed task and starting
# the new one take time); an upper bound on wall-clock gaps failed on a loaded 2-core machine (3.24 s for a
# restart at once), so none is asserted.
ANNOUNCED = re.compile(r"Task (\S+) FAILED; automatic restart (\d+) follows in ([\d.]+) s")


def flaky(name: str, topic: str, starts_file: Path, **extra: str) -> dict[str, str]:
    return {
        **datagen(name, topic),
        "connector.class": FLAKY,
        "starts.file": str(starts_file),
        "auto.restart.enabled": "true",
        **extra,
    }


def gaps(times: list[float]) -> list[float]:
    return [later - earlier for earlier, later in pairwise(times)]


def announced_delays(caplog: pytest.LogCaptureFixture, task: str) -> list[tuple[int, float]]:
    """The delayed automatic restarts the worker announced for `task`, in order: (restart number, seconds)."""
    found = (ANNOUNCED.search(record.getMessage()) for record in caplog.records)
    return [(int(m.group(2)), float(m.group(3))) for m in found if m is not None and m.group(1) == task]


def test_a_file_connectors_task_failing_its_first_starts_is_restarted_on_schedule_until_it_runs(
    broker: Broker, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="connectworker.runtime.herder.auto_restart")
    name, file = f"flaky-{unique}", tmp_path / "starts.txt"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    connector = flaky(name, f"flaky-{unique}", file, **{"fail.starts": "2", "auto.restart.backoff.base.ms": "1000"})
    with rest_worker(config, connector) as api:
        wait_until(lambda: len(starts(file)) >= 3, 30, "the third start")
        wait_for_states(api, name, "RUNNING", ["RUNNING"])
        wait_until(lambda: api.worker.get(name).tasks[0].stats().produced > 0, 30, "records")
        times = starts(file)
        assert len(times) == 3, times
        _, second = gaps(times)
        assert announced_delays(caplog, f"{name}-0") == [(2, 2.0)]  # restart 1 at once, restart 2 after 2 bases
        assert second >= 2.0, times
        metrics = api.client.get("/metrics").text
        assert f'connectworker_auto_restarts_total{{connector="{name}",task="0"}} 2.0' in metrics
        assert len(starts(file)) == 3  # a running task is left alone


def test_a_task_that_always_fails_is_given_up_on_and_a_rest_restart_starts_counting_again(
    broker: Broker, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="connectworker.runtime.herder.auto_restart")
    name, file = f"always-failing-{unique}", tmp_path / "starts.txt"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    with rest_worker(config) as api:
        created = api.client.post(
            "/connectors",
            json={
                "name": name,
                "config": flaky(
                    name,
                    f"failing-{unique}",
                    file,
                    **{"auto.restart.max.restarts": "3", "auto.restart.backoff.base.ms": "1000"},
                ),
            },
        )
        assert created.status_code == 201, created.text

        def given_up() -> bool:
            tasks = status_of(api, name)["tasks"]  # none while the connector starts
            return bool(tasks) and "Automatic restarts gave up" in (tasks[0].get("trace") or "")

        wait_until(given_up, 60, "the automatic restarts to give up")
        times = starts(file)
        assert len(times) == 4, times  # the first start, and 3 restarts
        _, two_bases, six_bases = gaps(times)
        assert announced_delays(caplog, f"{name}-0") == [(2, 2.0), (3, 6.0)]  # restart 1 at once
        assert two_bases >= 2.0 and six_bases >= 6.0, times
        task = status_of(api, name)["tasks"][0]
        assert task["state"] == "FAILED"
        assert "RuntimeError: <b>flaky</b> start 4 failed on purpose" in task["trace"]
        assert (
            "still FAILED after 3 automatic restart(s) (auto.restart.max.restarts=3). Restart it through the "
            f"REST API (POST /connectors/{name}/tasks/0/restart)"
        ) in task["trace"]
        metrics = api.client.get("/metrics").text
        assert f'connectworker_auto_restarts_total{{connector="{name}",task="0"}} 3.0' in metrics
        assert f'connectworker_auto_restart_give_ups_total{{connector="{name}",task="0"}} 1.0' in metrics

        # a person's restart: start 5, and the automatic restarts begin again from 0 (at once: start 6)
        restarted = api.client.post(f"/connectors/{quote(name, safe='')}/tasks/0/restart")
        assert restarted.status_code == 204, restarted.text
        wait_until(lambda: len(starts(file)) >= 6, 30, "the REST restart and a new automatic restart")
        assert announced_delays(caplog, f"{name}-0") == [(2, 2.0), (3, 6.0)]  # restart 1 again: at once


def test_bad_automatic_restart_values_are_refused_naming_the_key(broker: Broker, tmp_path: Path, unique: str) -> None:
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    with rest_worker(config) as api:
        for key, value in (
            ("auto.restart.enabled", "sometimes"),
            ("auto.restart.max.restarts", "-2"),
            ("auto.restart.backoff.base.ms", "0"),
        ):
            answer = api.client.post(
                "/connectors", json={"name": f"bad-{unique}", "config": {**datagen(f"bad-{unique}", "t"), key: value}}
            )
            assert answer.status_code == 400, answer.text
            assert key in answer.json()["message"]
    worker = write_worker(tmp_path)
    connector = write_connector(tmp_path, "bad", "DataGen")
    with connector.open("a") as f:
        f.write("auto.restart.backoff.base.ms=soon\n")
    err = assert_refused(run_cli("standalone", str(worker), str(connector)))
    assert "auto.restart.backoff.base.ms" in err and "'soon'" in err


def test_a_config_change_starts_the_count_again(broker: Broker, tmp_path: Path, unique: str) -> None:
    name, file = f"reconfigured-{unique}", tmp_path / "starts.txt"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    props = flaky(
        name,
        f"reconfigured-{unique}",
        file,
        **{"auto.restart.max.restarts": "1", "auto.restart.backoff.base.ms": "100"},
    )
    with rest_worker(config) as api:
        assert api.client.put(f"/connectors/{name}/config", json=props).status_code == 201

        def given_up() -> bool:
            tasks = status_of(api, name)["tasks"]  # none while the connector starts
            return bool(tasks) and "Automatic restarts gave up" in (tasks[0].get("trace") or "")

        wait_until(given_up, 30, "the first give-up")
        assert len(starts(file)) == 2  # the first start and its one restart
        changed = api.client.put(f"/connectors/{name}/config", json={**props, "rate": "50"})
        assert changed.status_code == 200, changed.text
        # the new config's start (3) fails, and the count begins again: one more automatic restart (4)
        wait_until(lambda: len(starts(file)) >= 4 and given_up(), 30, "the restart after the config change")
        assert len(starts(file)) == 4
