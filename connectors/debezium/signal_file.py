"""The file signal channel (`signal.enabled.channels=file`), as Debezium's `FileSignalChannel`: each poll reads
every line of `signal.file` (one signal as JSON per line, signal_lines.py) and, when it held any, empties
the file before the signals are acted on, so that each line is acted on once.

Like Debezium's, it does not coordinate with a writer: a line appended between the read and the emptying is
lost, and so is a line half written at that moment (it is logged as malformed). Append whole lines, in one
write each."""

from __future__ import annotations

import logging
import os

from connectworker.api.errors import ConnectError

from .signal_lines import parse_signal_line
from .signal_types import Signal

log = logging.getLogger(__name__)

CHANNEL = "file"


class FileSignalChannel:
    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        log.info(
            "File signal channel is active, reading signals from '%s': whoever may write that file (or set "
            "signal.file through the REST API) can start snapshots, so keep both protected",
            self.path,
        )

    def poll(self) -> list[Signal]:
        """The signals the file holds, in line order (none when it does not exist); the file is left empty.
        An I/O error raises ConnectError naming the file."""
        try:
            with open(self.path, "r+b") as file:
                content = file.read()
                if content:
                    file.truncate(0)
        except (FileNotFoundError, IsADirectoryError):  # no signal written yet (Debezium: a directory, too)
            return []
        except OSError as exc:
            raise ConnectError(f"Failed to read the signal file {self.path} (signal.file): {exc}") from exc
        signals = []
        for number, line in enumerate(content.split(b"\n"), start=1):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                log.warning("Skipped line %d of the signal file %s: it is not UTF-8 (%s)", number, self.path, exc)
                continue
            signal = parse_signal_line(text, CHANNEL)
            if signal is not None:
                signals.append(signal)
        return signals

    def close(self) -> None:
        """Nothing is held between polls: here for the channels' common shape."""
