"""Ctrl-C and SIGTERM handling of long-running commands: the first signal asks for a stop and is never
lost, the second says what the stop waits for, the third exits at once. Scenarios that hang or exit run
in a child process, bounded by a timeout."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from connectworker.shutdown_signals import ShutdownSignals, StopRequested

# Inside Event.wait() the main thread holds the event's internal lock for a few bytecodes (after each
# timed-out wait, for instance); a Python-level handler may run right there. Both scripts reproduce that
# moment deterministically: they hold the lock and raise the signal, whose handler runs at once.
NAIVE_HANDLER = """
import signal, threading, time
stop = threading.Event()
signal.signal(signal.SIGINT, lambda signum, frame: stop.set())  # what `standalone` did before
with stop._cond:
    signal.raise_signal(signal.SIGINT)
print("stop requested:", stop.wait(5), flush=True)
"""

SHUTDOWN_SIGNALS = """
import signal, time
import pytest

from connectworker.shutdown_signals import ShutdownSignals, StopRequested
signals = ShutdownSignals(lambda: "nothing").install()
with signals._requested._cond:
    signal.raise_signal(signal.SIGINT)
    time.sleep(0.2)
print("stop requested:", signals.wait(5), flush=True)
"""

SLOW_SHUTDOWN = """
import logging, os, signal, sys, time
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s")
import pytest

from connectworker.shutdown_signals import ShutdownSignals, StopRequested
signals = ShutdownSignals(lambda: "task slow-0 to stop").install()
os.kill(os.getpid(), signal.SIGINT)
assert signals.wait(10)
print("stopping", flush=True)
os.kill(os.getpid(), signal.SIGINT)
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(30)  # a shutdown that does not end by itself
print("not reached", flush=True)
"""


def run(script: str, timeout: float = 15) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_a_handler_that_sets_an_event_deadlocks_when_the_signal_lands_inside_event_wait() -> None:
    """The cause of the first SIGINT that was lost once: this is the main thread waiting for itself."""
    try:
        result = run(NAIVE_HANDLER, timeout=3)
    except subprocess.TimeoutExpired:
        return  # hung: the handler waits for a lock its own thread holds
    raise AssertionError(f"expected a hang, got status {result.returncode}: {result.stdout}{result.stderr}")


def test_a_signal_landing_inside_the_wait_still_asks_for_the_stop() -> None:
    result = run(SHUTDOWN_SIGNALS)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "stop requested: True\n"


def test_the_second_signal_says_what_the_stop_waits_for_and_the_third_exits_at_once() -> None:
    result = run(SLOW_SHUTDOWN)
    assert result.returncode == 128 + signal.SIGTERM  # the third signal's number decides the status
    assert result.stdout == "stopping\n"
    assert "SIGINT received: stopping gracefully" in result.stderr
    assert "SIGINT received: still stopping, waiting for task slow-0 to stop." in result.stderr
    assert "SIGTERM received a third time: exiting at once with status 143" in result.stderr
    assert "Traceback" not in result.stderr


def test_install_and_uninstall_leave_the_previous_handlers_in_place() -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    signals = ShutdownSignals(lambda: "nothing").install()
    try:
        assert not signals.requested
        os.kill(os.getpid(), signal.SIGTERM)
        assert signals.wait(10)
    finally:
        signals.uninstall()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    assert signal.set_wakeup_fd(-1) == -1  # no wakeup fd left behind


def test_a_wait_during_start_up_is_ended_by_the_first_signal_which_is_remembered() -> None:
    signals = ShutdownSignals(lambda: "nothing").install()
    try:
        signals.raise_if_requested("the cluster to answer")  # nothing asked yet: no effect
        assert signals.first is None
        os.kill(os.getpid(), signal.SIGTERM)
        assert signals.wait(10)
        with pytest.raises(StopRequested, match="the cluster to answer"):
            signals.raise_if_requested("the cluster to answer")
        assert signals.first is signal.SIGTERM
    finally:
        signals.uninstall()
