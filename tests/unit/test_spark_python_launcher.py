"""The launcher local Spark workers run: Spark's zips of PySpark leave `PYTHONPATH`, nothing else does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from connectworker.spark.runner.python_launcher import is_launcher, spark_zips, write_launcher

SHOW = "import json, os, sys; print(json.dumps([os.environ.get('PYTHONPATH'), sys.prefix, sys.argv[1:]]))"


def run(launcher: str, pythonpath: str | None, *args: str) -> tuple[str | None, str, list[str]]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run([launcher, "-c", SHOW, *args], env=env, capture_output=True, text=True, check=True)
    path, prefix, argv = json.loads(done.stdout)
    return path, prefix, argv


def test_the_launcher_drops_only_sparks_zips_and_runs_this_interpreter_with_the_arguments(tmp_path: Path) -> None:
    launcher = write_launcher(tmp_path)
    assert launcher is not None and is_launcher(launcher)
    zips = sorted((str(z) for z in spark_zips()), key=lambda z: Path(z).name != "pyspark.zip")
    assert Path(zips[0]).name == "pyspark.zip" and Path(zips[1]).name.startswith("py4j-") and len(zips) == 2
    odd = str(tmp_path / "a dir with spaces" / "*")  # kept verbatim: no splitting on blanks, no globbing
    given = os.pathsep.join([zips[0], "/srv/plugins", zips[1], odd, "/srv/other.zip"])
    path, prefix, argv = run(launcher, given, "two words", "--flag")
    assert path == os.pathsep.join(["/srv/plugins", odd, "/srv/other.zip"])
    assert prefix == sys.prefix  # this virtualenv's interpreter, with its packages
    assert argv == ["two words", "--flag"]


@pytest.mark.parametrize("pythonpath", [None, ""])
def test_without_a_pythonpath_the_launcher_sets_an_empty_one(tmp_path: Path, pythonpath: str | None) -> None:
    launcher = write_launcher(tmp_path)
    assert launcher is not None
    assert run(launcher, pythonpath)[0] == ""


def test_no_launcher_when_spark_home_is_another_spark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another Spark's zip may hold another PySpark than the installed one: it must stay first."""
    monkeypatch.setenv("SPARK_HOME", str(tmp_path))
    assert spark_zips() == []
    assert write_launcher(tmp_path) is None
    assert not is_launcher(str(tmp_path / "python-without-spark-zips"))
