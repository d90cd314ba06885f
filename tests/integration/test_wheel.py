"""The wheel `pip wheel .` builds: no setuptools warning, and once installed into a fresh virtualenv it
serves the status page (its templates ship inside the package)."""

from __future__ import annotations

import os
import shutil
import signal
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.broker import Broker
from tests.integration.test_cli_signals import Cli

pytestmark = pytest.mark.heavy(seconds=25)

REPO = Path(__file__).resolve().parents[2]


def test_the_wheel_builds_without_warnings_and_serves_the_status_page_from_a_fresh_venv(
    broker: Broker, tmp_path: Path
) -> None:
    # No PYTHONPATH anywhere: the Spark tests put the repository there for their Python workers, and pip
    # would then take the repository's connectworker.egg-info for an installed connectworker.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    source = tmp_path / "source"  # a copy, so the build leaves nothing in the repository
    for part in ("connectworker", "connectors"):
        shutil.copytree(REPO / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / part, source / part)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert built.returncode == 0, built.stderr
    assert "Warning" not in built.stdout + built.stderr, built.stdout + built.stderr
    wheel = next((tmp_path / "dist").glob("connectworker-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for template in ("status.html", "live.html", "console.js"):  # the page, its live part, its script
        assert f"connectworker/rest/templates/{template}" in names

    # A fresh venv holding only the wheel; the dependencies come from this interpreter's site-packages
    # through a .pth line (which adds the folder but runs none of its .pth hooks, so the editable
    # install of the repository stays out of sight).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60, env=env)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        timeout=120,
        env=env,
    )
    fresh_site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        ).stdout.strip()
    )
    (fresh_site / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    where = subprocess.run(
        [str(python), "-c", "import connectworker; print(connectworker.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    assert where.stdout.strip().startswith(str(fresh_site)), where.stdout

    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\n"
        f"offset.storage.file.filename={tmp_path / 'offsets.json'}\n"
        "listeners=http://127.0.0.1:0\n"
    )
    cli = Cli(
        subprocess.Popen(
            [str(python), "-m", "connectworker.cli", "standalone", str(worker)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
        )
    )
    try:
        url = cli.wait_for(r"REST API listening on (http://127\.0\.0\.1:\d+) ").group(1)
        page = httpx.get(f"{url}/ui", timeout=30)
        assert page.status_code == 200
        assert "<html" in page.text and "Connectors" in page.text
        script = httpx.get(f"{url}/ui/console.js", timeout=30)
        assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
        assert "ui/live" in script.text
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=30) == 0, cli.stderr
    finally:
        if cli.proc.poll() is None:
            cli.proc.kill()
