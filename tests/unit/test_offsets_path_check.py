"""`offset.storage.file.filename` (and the connector store beside it) is checked writable when the worker
file is loaded, so a bad path stops start-up (exit 2 from the command line) instead of the first commit."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from connectworker.api import ConfigError
from connectworker.config.loading import load_worker_config
from connectworker.config.offsets_path import offsets_path_problem


def worker_file(tmp_path: Path, offsets: Path) -> Path:
    path = tmp_path / "worker.properties"
    path.write_text(f"bootstrap.servers=127.0.0.1:1\noffset.storage.file.filename={offsets}\n")
    return path


def problem_of(tmp_path: Path, offsets: Path) -> str:
    worker = worker_file(tmp_path, offsets)
    with pytest.raises(ConfigError) as info:
        load_worker_config(worker)
    assert str(info.value).startswith(f"Invalid configuration in {worker}:")
    return info.value.problems["offset.storage.file.filename"]


def test_an_offsets_file_under_a_regular_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file, not a directory")
    problem = problem_of(tmp_path, tmp_path / "data" / "sub" / "offsets.json")
    assert problem == f"cannot write the offsets file: {tmp_path / 'data'} is a regular file, not a directory"


def test_an_offsets_path_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "offsets").mkdir()
    assert (
        problem_of(tmp_path, tmp_path / "offsets") == f"cannot write the offsets file: {tmp_path / 'offsets'} "
        f"is a directory"
    )


def test_a_connector_store_path_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "offsets.json.connectors.json").mkdir()
    problem = problem_of(tmp_path, tmp_path / "offsets.json")
    assert problem.startswith("cannot write the connector store beside the offsets file: ")


def test_missing_directories_are_fine_they_are_created_on_first_commit(tmp_path: Path) -> None:
    config = load_worker_config(worker_file(tmp_path, tmp_path / "new" / "dirs" / "offsets.json"))
    assert config.offset_storage_file_filename == str(tmp_path / "new" / "dirs" / "offsets.json")


def test_a_read_only_directory_is_judged_by_the_process_permissions(tmp_path: Path) -> None:
    """os.access semantics: root may write into a directory whose mode forbids it, others may not."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        writable = os.access(locked, os.W_OK | os.X_OK)
        problem = offsets_path_problem(str(locked / "offsets.json"))
        if writable:
            assert problem is None
        else:
            assert problem == f"cannot write the offsets file: directory {locked} is not writable"
    finally:
        locked.chmod(0o700)


def test_a_directory_the_process_may_not_write_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a non-root user, or anyone on a read-only mount, gets (the tests may run as root)."""
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != tmp_path and real_access(path, mode))
    assert problem_of(tmp_path, tmp_path / "offsets.json") == (
        f"cannot write the offsets file: directory {tmp_path} is not writable"
    )


# -- the probe: what os.access cannot see --------------------------------------------------------

PROBED = "cannot write the offsets file or the connector store beside it: "


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_path_under_proc_is_refused_even_for_root(tmp_path: Path) -> None:
    """os.access lets root write into /proc; only creating a file there tells that it takes none."""
    assert problem_of(tmp_path, Path("/proc/offsets.json")) == (
        f"{PROBED}creating a file in /proc failed: No such file or directory (errno 2)"
    )
    assert problem_of(tmp_path, Path("/proc/connectworker/offsets.json")) == (
        f"{PROBED}creating a directory (for /proc/connectworker) in /proc failed: No such file or directory (errno 2)"
    )


@pytest.mark.parametrize(("failing", "step"), [("fsync", "fsyncing a file"), ("replace", "renaming a file")])
def test_each_step_of_a_commit_is_probed_and_the_probe_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str, step: str
) -> None:
    """A full or read-only file system fails at one of the steps; the probe names it."""
    offsets_dir = tmp_path / "offsets"
    offsets_dir.mkdir()

    def fail(*args: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, failing, fail)
    assert offsets_path_problem(str(offsets_dir / "offsets.json")) == (
        f"{PROBED}{step} in {offsets_dir} failed: Input/output error (errno 5)"
    )
    monkeypatch.undo()
    assert list(offsets_dir.iterdir()) == []


def test_a_successful_probe_leaves_no_file_and_creates_no_directory(tmp_path: Path) -> None:
    (tmp_path / "there").mkdir()
    assert offsets_path_problem(str(tmp_path / "there" / "offsets.json")) is None
    assert offsets_path_problem(str(tmp_path / "not" / "yet" / "offsets.json")) is None
    assert [p.name for p in tmp_path.rglob("*")] == ["there"]
