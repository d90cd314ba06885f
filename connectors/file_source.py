"""A source connector that tails a text file (or standard input), line by line.

The equivalent of Kafka's ``FileStreamSourceConnector``, with the same configuration keys
(``file``, ``topic``, ``batch.size``) and the same source partition/offset shape
(``{"filename": path}`` / ``{"position": n}``), so files written for ``connect-standalone.sh`` work
unchanged. Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r``, as in Kafka; bytes that are not valid
UTF-8 become U+FFFD, as Kafka's reader does. Deliberate differences:

* offsets are exact **byte** positions (Kafka counts decoded characters, which goes wrong after the
  first multi-byte UTF-8 character, so a restarted task would resume at the wrong place);
* a file that does not exist when the task starts is an error naming the file, where Kafka logs a
  warning and polls until the file appears;
* a file that shrinks below the position read so far (truncated, as by ``> file``) is read again from
  its start, as ``tail -f`` does, instead of waiting for it to regrow past the old position.
"""

from __future__ import annotations

import logging
import os
import re
import select
import stat
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import connectworker
from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, non_empty_string
from connectworker.api.connector import SourceConnector, offset_refusal
from connectworker.api.errors import ConnectError
from connectworker.api.exactly_once import ExactlyOnceSupport
from connectworker.api.record import SourceRecord, is_offset_count
from connectworker.api.schema import STRING_SCHEMA
from connectworker.api.task import SourceTask

log = logging.getLogger(__name__)

FILE_CONFIG = "file"
TOPIC_CONFIG = "topic"
TASK_BATCH_SIZE_CONFIG = "batch.size"
DEFAULT_TASK_BATCH_SIZE = 2000

FILENAME_FIELD = "filename"
POSITION_FIELD = "position"

SINGLE_TOPIC_MESSAGE = "'topic' in FileStreamSourceConnector configuration requires definition of a single topic"

_READ_CHUNK = 64 * 1024
# \r\n first, so that it wins over a lone \r at the same position.
_LINE_END = re.compile(rb"\r\n|\r|\n")
_CR = 0x0D


def _validate_topic(key: str, value: Any) -> None:
    non_empty_string(key, value)
    # Kafka declares `topic` as a list and rejects more than one entry; keep its exact message.
    if value is not None and "," in str(value):
        raise ValueError(SINGLE_TOPIC_MESSAGE)


CONFIG_DEF = (
    ConfigDef()
    .define(
        FILE_CONFIG,
        ConfigType.STRING,
        None,
        importance=Importance.HIGH,
        documentation="Source filename. If not specified, the standard input will be used "
        "(standard input has no offsets: a restarted task cannot resume it).",
    )
    .define(
        TOPIC_CONFIG,
        ConfigType.STRING,
        validator=_validate_topic,
        importance=Importance.HIGH,
        documentation="The topic to publish data to. Exactly one topic, not a comma-separated list.",
    )
    .define(
        TASK_BATCH_SIZE_CONFIG,
        ConfigType.INT,
        DEFAULT_TASK_BATCH_SIZE,
        validator=at_least(1),
        importance=Importance.LOW,
        documentation="The maximum number of records the source task can read from the file each "
        "time it is polled. At least 1.",
    )
)


class FileStreamSourceConnector(SourceConnector):
    """Reads one file (or stdin) with a single task, whatever `tasks.max` says."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return connectworker.__version__

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        CONFIG_DEF.parse(props, source="FileStreamSourceConnector")
        self._props = dict(props)

    def dry_start(self, props: Mapping[str, str]) -> None:
        self.start(props)  # checks the keys

    def task_class(self) -> type[SourceTask]:
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        # Only one reader of a stream makes sense; like Kafka, hand the task the connector's props.
        return [dict(self._props)]

    def stop(self) -> None:
        """Nothing to release: the task owns the file."""

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        """A file can be re-read from a committed position; standard input cannot (as in Kafka)."""
        file = props.get(FILE_CONFIG)
        return ExactlyOnceSupport.SUPPORTED if file and file.strip() else ExactlyOnceSupport.UNSUPPORTED

    def unused_offset_reason(
        self, props: Mapping[str, str], partition: Mapping[str, Any], offset: Mapping[str, Any]
    ) -> str | None:
        """An offset of another file than `file` (or any, when reading standard input), or one Kafka's
        connector would refuse."""
        file = (props.get(FILE_CONFIG) or "").strip()
        if partition.get(FILENAME_FIELD) != file:
            reading = f"reads {file}" if file else "reads standard input"
            return f"the connector {reading}; no task resumes from this offset of {partition.get(FILENAME_FIELD)!r}"
        return offset_refusal(self, props, partition, offset)

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> bool:
        """The offsets Kafka's FileStreamSourceConnector accepts, refused in its words otherwise: a partition
        names its `filename`, an offset is None or a non-negative byte `position`."""
        for partition, offset in offsets:
            if FILENAME_FIELD not in partition:
                raise ConnectError(f"Partition objects should contain the key '{FILENAME_FIELD}'")
            if offset is None:  # the partition's offset is removed
                continue
            if POSITION_FIELD not in offset:
                raise ConnectError(f"Offset objects should either be null or contain the key '{POSITION_FIELD}'")
            position = offset[POSITION_FIELD]
            if isinstance(position, bool) or not isinstance(position, int):
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset is expected to be a Long value "
                    f"(got {position!r})"
                )
            if position < 0:
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset should be a non-negative value"
                )
        return True


class FileStreamSourceTask(SourceTask):
    """Emits each complete line of the file as a string record and follows the file as it grows."""

    idle_wait_s: float = 0.2
    """How long `poll` waits (interruptibly by `stop`) for new data before returning None."""

    def __init__(self) -> None:
        self._stop_event = threading.Event()
        # Guards `_fd` against `stop()` closing it while `poll()` reads from it on the task thread.
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._is_stdin = False
        self._stdin_eof = False
        self._filename: str | None = None
        self._topic = ""
        self._batch_size = DEFAULT_TASK_BATCH_SIZE
        self._partition: dict[str, Any] | None = None
        self._buffer = bytearray()
        self._position = 0  # byte offset in the file of `_buffer[0]`
        self._scanned = 0  # leading bytes of `_buffer` known to hold no line end (no rescans of long lines)

    def version(self) -> str:
        return connectworker.__version__

    def dry_start(self, props: Mapping[str, str]) -> None:
        """Checks the keys; the file (or stdin, which a dry run must not read from) is not opened: this task
        keeps every topic's settings as the rules make them."""
        CONFIG_DEF.parse(props, source="FileStreamSourceTask")

    def start(self, props: Mapping[str, str]) -> None:
        config = CONFIG_DEF.parse(props, source="FileStreamSourceTask")
        self._topic = config[TOPIC_CONFIG]
        self._batch_size = config[TASK_BATCH_SIZE_CONFIG]
        self._stop_event.clear()
        self._buffer = bytearray()
        self._scanned = 0
        self._stdin_eof = False
        filename = config[FILE_CONFIG]
        if not filename:
            self._open_stdin()
            return
        self._filename = filename
        self._is_stdin = False
        self._partition = {FILENAME_FIELD: filename}
        if not self._open_file(filename):
            log.warning(
                "FileStreamSourceTask: file %s does not exist yet; waiting for it to be created (it is looked "
                "for at every poll, as Kafka's task does)",
                filename,
            )

    def _open_file(self, filename: str) -> bool:
        """Open `filename` at its committed position; False while it does not exist."""
        try:
            fd = os.open(filename, os.O_RDONLY)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise ConnectError(f"FileStreamSourceTask: cannot open file {filename!r}: {exc}") from None
        try:
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                raise ConnectError(f"FileStreamSourceTask: {filename!r} is a directory, not a file to read")
            self._position = self._resume_position(fd, filename)
            os.lseek(fd, self._position, os.SEEK_SET)
        except BaseException:
            os.close(fd)
            raise
        with self._lock:
            if self._stop_event.is_set():  # stopped while this poll opened it: nobody would close it
                os.close(fd)
                return False
            self._fd = fd
        log.debug("Opened %s for reading at byte %d", filename, self._position)
        return True

    def _open_stdin(self) -> None:
        self._filename = None
        self._partition = None  # stdin cannot be re-read, so its records carry no partition or offset
        self._is_stdin = True
        self._position = 0
        problem = "this process has no standard input"
        fd: int | None = None
        if sys.stdin is not None:
            try:
                fd = sys.stdin.fileno()
            except (OSError, ValueError) as exc:
                problem = f"this process has no usable standard input ({exc})"
        if fd is None:
            raise ConnectError(
                f"FileStreamSourceTask: '{FILE_CONFIG}' is not set, so it reads standard input, but {problem}"
            )
        with self._lock:
            self._fd = fd
        log.debug("Reading standard input")

    def _resume_position(self, fd: int, filename: str) -> int:
        """The committed byte position of this file, or 0; checked against the file's size."""
        offset = self.context.offset_storage_reader.offset({FILENAME_FIELD: filename})
        position = None if offset is None else offset.get(POSITION_FIELD)
        if position is None:
            return 0
        if not is_offset_count(position):
            raise ConnectError(
                f"FileStreamSourceTask: the committed offset of {filename!r} has an invalid position "
                f"{position!r} (expected a non-negative integer byte offset)"
            )
        size = os.fstat(fd).st_size
        if position > size:
            log.warning(
                "File %s is shorter (%d bytes) than its committed position %d: it was truncated "
                "or replaced; reading it from the start",
                filename,
                size,
                position,
            )
            return 0
        log.debug("Resuming %s at committed byte offset %d", filename, position)
        return position

    def poll(self) -> list[SourceRecord] | None:
        if self._stop_event.is_set():
            return None
        if self._is_stdin:
            return self._poll_stdin()
        if self._fd is None and self._filename is not None:  # not created yet when the task started
            if not self._open_file(self._filename):
                self._stop_event.wait(self.idle_wait_s)
                return None
            log.info("FileStreamSourceTask: file %s exists now; reading it", self._filename)
        with self._lock:
            fd = self._fd
            if fd is None:
                return None
            records = self._extract(self._batch_size)
            while len(records) < self._batch_size:
                chunk = os.read(fd, _READ_CHUNK)
                if not chunk:
                    if not records:
                        self._check_truncated(fd)
                    break
                self._buffer += chunk
                records.extend(self._extract(self._batch_size - len(records)))
        if records:
            return records
        self._stop_event.wait(self.idle_wait_s)
        return None

    def _poll_stdin(self) -> list[SourceRecord] | None:
        records = self._extract(self._batch_size)
        fd = self._fd
        while len(records) < self._batch_size and fd is not None and not self._stdin_eof:
            # A blocking read would hold the task thread past stop(): read only what select says is there.
            ready, _, _ = select.select([fd], [], [], 0.0 if records else self.idle_wait_s)
            if not ready:
                break
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                log.info("Reached the end of standard input")
                self._stdin_eof = True
                break
            self._buffer += chunk
            records.extend(self._extract(self._batch_size - len(records)))
        if records:
            return records
        if self._stdin_eof:
            self._stop_event.wait(self.idle_wait_s)
        return None

    def _check_truncated(self, fd: int) -> None:
        end = self._position + len(self._buffer)
        size = os.fstat(fd).st_size
        if size < end:
            log.warning(
                "File %s was truncated (%d bytes, read up to byte %d); reading it from the start",
                self._filename,
                size,
                end,
            )
            os.lseek(fd, 0, os.SEEK_SET)
            self._buffer.clear()
            self._scanned = 0
            self._position = 0

    def _extract(self, limit: int) -> list[SourceRecord]:
        """Up to `limit` records from the complete lines in the buffer; consumed bytes are dropped."""
        buffer = self._buffer
        records: list[SourceRecord] = []
        if len(buffer) <= self._scanned or limit <= 0:
            return records
        start = 0
        base = self._position
        partition = self._partition
        topic = self._topic
        timestamp = int(time.time() * 1000)
        size = len(buffer)
        exhausted = True
        for match in _LINE_END.finditer(buffer, self._scanned):
            end = match.end()
            if end == size and buffer[-1] == _CR:
                break  # a trailing \r may be the first half of \r\n: wait for the next byte
            line = buffer[start : match.start()].decode("utf-8", "replace")
            offset = None if partition is None else {POSITION_FIELD: base + end}
            records.append(SourceRecord(partition, offset, topic, line, None, None, STRING_SCHEMA, None, timestamp))
            start = end
            if len(records) >= limit:
                exhausted = False
                break
        if start:
            del buffer[:start]
            self._position = base + start
        # The rest was searched to its end; its last byte is searched again: it may be a \r before \n.
        self._scanned = max(0, len(buffer) - 1) if exhausted else 0
        return records

    def stop(self) -> None:
        self._stop_event.set()
        with self._lock:
            fd, self._fd = self._fd, None
            if fd is not None and not self._is_stdin:
                os.close(fd)
