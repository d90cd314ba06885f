"""One task on an exactly-once worker (Kafka's KIP-618, in standalone mode too).

The task's producer is transactional (`transactional.id` = `<group.id>-<connector>-<task>`). Starting
it fences any earlier instance with the same id, and aborts that instance's open transaction; only
then are the committed offsets read (`read_committed`) and the task started. Each transaction holds
the records of one or more polls *and* the offset records that cover them, written to the offsets
topic by the same producer, so a `read_committed` reader sees a record exactly when its offset is
committed. Topics are created before the transaction that first writes to them.

Where a transaction ends is `transaction.boundary`: after every poll with records, every interval, or
where the task asks (`TransactionContext`). A transaction the broker will not commit is aborted and
the task restarts from the last committed offsets (a fresh task instance), so nothing is duplicated
for `read_committed` readers; after `MAX_FAILED_COMMITS` in a row the task fails. A fenced task fails
at once, saying another instance took over. `commit_record` is called once a record's transaction
committed; producer failures are not tolerated under `errors.tolerance=all` (they fail the commit, as
in Kafka), conversion failures are.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from connectworker.api.record import RecordMetadata, SourceRecord
from connectworker.config.exactly_once import TransactionBoundary, TransactionSettings
from connectworker.runtime.clients.retry_backoff import EveryInterval
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
from connectworker.runtime.status import State
from connectworker.runtime.tasks.source_task import QUEUE_FULL_WAIT_S, WorkerSourceTask
from connectworker.runtime.tasks.submitted_records import RecordAck
from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext
from connectworker.runtime.tasks.transaction_context import Boundary, WorkerTransactionContext
from connectworker.runtime.tasks.vanished_topics import TaskFailure

log = logging.getLogger(__name__)

__all__ = ["MAX_FAILED_COMMITS", "ExactlyOnceWorkerSourceTask", "transactional_id"]

MAX_FAILED_COMMITS = 3
TRANSACTION_RETRY_BACKOFF_S = 0.05  # between retries of a transactional call that failed retriably
TRANSACTION_CALL_TIMEOUT_S = 60.0  # Kafka's max.block.ms: how long commit/abort/init may block
_FENCED = frozenset({KafkaError.PRODUCER_FENCED, KafkaError._FENCED})
_PURGED = frozenset({KafkaError._PURGE_QUEUE, KafkaError._PURGE_INFLIGHT})


def transactional_id(group_id: str, connector: str, task_id: int) -> str:
    """Kafka Connect's transactional id for a task: `<group.id>-<connector>-<task>`."""
    return f"{group_id}-{connector}-{task_id}"


def _kafka_error(exc: BaseException | None) -> KafkaError | None:
    """The `KafkaError` behind `exc` or any exception it was raised from."""
    while exc is not None:
        if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
            return exc.args[0]
        exc = exc.__cause__ or exc.__context__
    return None


class ExactlyOnceWorkerSourceTask(WorkerSourceTask):
    commits_while_polling = False  # a transaction is committed on the task's own thread

    def __init__(
        self, *, transactional_id: str, transactions: TransactionSettings, offset_store: KafkaOffsetStore, **kwargs: Any
    ) -> None:
        super().__init__(offset_store=offset_store, **kwargs)
        self.transactional_id = transactional_id
        self._producer_config["transactional.id"] = transactional_id
        self._offsets_topic = offset_store
        self._transactions = transactions
        self._transaction_context = (
            WorkerTransactionContext() if transactions.boundary is TransactionBoundary.CONNECTOR else None
        )
        self._producer: Producer | None = None
        self._open = False  # a transaction has begun and is neither committed nor aborted
        self._aborting = False
        self._acked: list[tuple[SourceRecord, RecordMetadata]] = []  # commit_record once committed
        self._send_error: KafkaError | None = None
        self._failed_commits = 0
        self._commit_log = EveryInterval(self._timeouts.offset_flush_interval_s)
        self.transactions_committed = 0
        self.transactions_aborted = 0

    # -- start: fence, then read the committed offsets ------------------------------------------
    def prepare_to_initialize(self, producer: Producer) -> None:
        self._producer = producer
        try:
            producer.init_transactions(TRANSACTION_CALL_TIMEOUT_S)
        except KafkaException as exc:
            err = _kafka_error(exc)
            raise TaskFailure(
                f"Task {self.name} could not start its transactional producer "
                f"(transactional.id={self.transactional_id}): {err.str() if err else exc}"
            ) from None
        # read_committed: waits until the fenced instance's open transaction is aborted
        self._offsets_topic.refresh()

    def task_context(self) -> WorkerTaskContext:
        return WorkerTaskContext(
            TaskOffsetReader(self._store, self.connector), self.props, self._transaction_context, self.operator
        )

    @property
    def commit_interval_s(self) -> float:
        interval_ms = self._transactions.interval_ms
        return self._timeouts.offset_flush_interval_s if interval_ms is None else interval_ms / 1000

    # -- the send loop's hooks ---------------------------------------------------------------------
    def send_poll(self, producer: Producer, result: object) -> None:
        """With connector-defined boundaries, a poll is cut after each record the task named."""
        context = self._transaction_context
        if context is None or not context.has_record_requests or not isinstance(result, list):
            super().send_poll(producer, result)
            return
        start = 0
        for i, record in enumerate(result):
            boundary = context.for_record(record)
            if boundary is not None:
                self.sender.send(producer, result[start : i + 1], self._poll_seconds)
                start = i + 1
                if not self._end_transaction(producer, boundary):
                    return  # the task was restarted: the rest of this poll belongs to the old instance
        if start < len(result):
            self.sender.send(producer, result[start:], self._poll_seconds)

    def prepare_to_produce(self, producer: Producer, topics: Collection[str]) -> None:
        if self._offsets_topic.topic in topics:
            # Reading offsets waits for open transactions on the offsets topic: such a record would
            # make the task wait for its own transaction.
            raise TaskFailure(
                f"Task {self.name} returned a record for the offsets topic "
                f"{self._offsets_topic.topic!r}; with exactly.once.source.support=enabled a task "
                f"may not write to the worker's offsets topic"
            )
        if not self._open:
            producer.begin_transaction()
            self._open = True

    def poll_sent(self, producer: Producer) -> None:
        boundary = self._transactions.boundary
        if boundary is TransactionBoundary.POLL:
            self._end_transaction(producer, Boundary.COMMIT)
        elif self._transaction_context is not None:
            asked = self._transaction_context.for_batch()
            if asked is not None:
                self._end_transaction(producer, asked)

    def commit_offsets(self, *, flush: bool, wait: bool = False) -> None:
        """The base loop's commit points: every `commit_interval_s` (interval boundaries only), on
        pause (`flush`) and at the end (`wait`). A failed task commits nothing more."""
        producer = self._producer
        if producer is None:
            return
        if self.status.state is State.FAILED:
            self._abort_quietly(producer)
            return
        boundary = self._transactions.boundary
        if boundary is TransactionBoundary.CONNECTOR:
            if flush and self._transaction_context is not None:
                asked = self._transaction_context.for_batch()
                if asked is not None:
                    self._end_transaction(producer, asked)
            if wait:  # what the task did not ask to commit is not committed
                self._abort_quietly(producer)
            return
        if flush or boundary is TransactionBoundary.INTERVAL:
            self._end_transaction(producer, Boundary.COMMIT)

    def report_uncommitted(self) -> None:
        """With connector-defined boundaries the stop aborts the transaction the connector had not asked to
        commit yet, by design: its records are invisible and come again after a restart, exactly once."""
        if self._transactions.boundary is not TransactionBoundary.CONNECTOR:
            super().report_uncommitted()
        elif uncommitted := self._submitted.in_flight:
            log.info(
                "Task %s stopped: the transaction it had not asked to commit (%d record(s)) was aborted; "
                "those records are produced again after a restart",
                self.name,
                uncommitted,
            )

    # -- transactions ------------------------------------------------------------------------------
    def _end_transaction(self, producer: Producer, boundary: Boundary) -> bool:
        """Commit (or abort, then commit the offsets); False if the task was restarted instead."""
        if boundary is Boundary.ABORT:
            # Kafka's rule: the records are dropped, their offsets still committed (in a transaction of
            # their own), so the task does not read them again.
            self._abort(producer)
            self.transactions_aborted += 1
            log.info("Task %s aborted a transaction as the task asked", self.name)
        return self._commit_transaction(producer)

    def _commit_transaction(self, producer: Producer) -> bool:
        if not self._open and not self._submitted.in_flight:
            return True
        if not self._open:
            producer.begin_transaction()
            self._open = True
        self.committer.started()
        try:
            if self._send_error is not None:  # the commit would fail: do not write the offsets at all
                raise KafkaException(self._send_error)
            self._submitted.mark_all_delivered()  # commit_transaction fails if a record was not delivered
            offsets, done = self._submitted.committable()
            for partition, key, value in self._offsets_topic.offset_records(self.connector, offsets):
                self._produce_offset(producer, partition, key, value)
            self._call_until_done(producer.commit_transaction, "commit")
        except KafkaException as exc:
            self._commit_failed(producer, exc)
            return False
        self._open = False
        self._failed_commits = 0
        self.transactions_committed += 1
        self._offsets_topic.note_committed(self.connector, offsets)
        self._transaction_committed(done)
        return True

    def _produce_offset(self, producer: Producer, partition: int, key: bytes, value: bytes | None) -> None:
        while True:
            try:
                producer.produce(self._offsets_topic.topic, value, key, partition)
                return
            except BufferError:
                assert self._pump is not None
                self._pump.serve(QUEUE_FULL_WAIT_S)

    def _call_until_done(self, call: Any, what: str) -> None:
        """A transactional call, retried while librdkafka says retrying may succeed."""
        deadline = time.monotonic() + TRANSACTION_CALL_TIMEOUT_S
        while True:
            try:
                call(max(0.1, deadline - time.monotonic()))
                return
            except KafkaException as exc:
                err = _kafka_error(exc)
                if err is None or not err.retriable() or time.monotonic() >= deadline:
                    raise
                log.debug("Task %s: %s of a transaction will be retried: %s", self.name, what, err.str())
                # A call that fails at once (a coordinator not ready yet, a fenced epoch Tansu is still
                # rolling back) would otherwise spin: each failed call costs the client error objects
                time.sleep(TRANSACTION_RETRY_BACKOFF_S)

    def _commit_failed(self, producer: Producer, exc: KafkaException) -> None:
        self.committer.transaction_failed()  # the transaction is aborted: its records are produced again
        err = _kafka_error(exc)
        if err is not None and (err.code() in _FENCED or err.fatal()):
            raise TaskFailure(self._fatal_message(err)) from exc
        self._failed_commits += 1
        why = err.str() if err is not None else str(exc)
        if self._failed_commits > MAX_FAILED_COMMITS:
            raise TaskFailure(
                f"Task {self.name} could not commit a transaction {self._failed_commits} times in "
                f"a row (last: {why}); nothing of those transactions is visible to "
                f"read_committed readers, and the task resumes from the last committed "
                f"offsets when restarted"
            ) from exc
        log.warning(
            "Task %s: the transaction could not be committed (%s); it is aborted and the task "
            "restarts from its last committed offsets",
            self.name,
            why,
        )
        self._abort(producer)
        self.transactions_aborted += 1
        self._restart_from_committed()

    def _abort(self, producer: Producer) -> None:
        self._aborting = True  # purged records report failures: expected, not errors
        try:
            if self._open:
                self._call_until_done(producer.abort_transaction, "abort")
        except KafkaException as exc:
            err = _kafka_error(exc)
            raise TaskFailure(self._fatal_message(err) if err is not None else str(exc)) from exc
        finally:
            self._aborting = False
        self._open = False
        self._send_error = None
        acked, self._acked = self._acked, []
        for record, _ in acked:  # acknowledged, then aborted: never visible
            self._record_done_quietly(record)

    def _abort_quietly(self, producer: Producer) -> None:
        if not self._open:
            return
        try:
            self._abort(producer)
        except TaskFailure as exc:
            log.warning(
                "Task %s: the open transaction could not be aborted (%s); the broker aborts it "
                "after transaction.timeout.ms",
                self.name,
                exc,
            )

    def _restart_from_committed(self) -> None:
        """Start a fresh instance of the task from the committed offsets, as a restart would."""
        try:
            self.task.stop()
        except Exception:
            log.exception("Task %s raised from stop()", self.name)
        self._submitted.clear()
        self._offsets_topic.refresh()
        self.task = self.sender.task = type(self.task)()
        self.task.initialize(self.task_context())
        self.task.start(self.props)

    def _transaction_committed(self, done: int) -> None:
        acked, self._acked = self._acked, []
        for record, metadata in acked:
            try:
                self.task.commit_record(record, metadata)
            except Exception:
                log.exception("Task %s raised from commit_record()", self.name)
        self.committer.counted(done)
        if self._commit_log.due():
            log.info(
                "Task %s committed %d transaction(s) so far (%d records produced, %d committed)",
                self.name,
                self.transactions_committed,
                self.sender.produced,
                self.committer.committed_records,
            )
        try:
            self.task.commit()
        except Exception:
            log.exception("Task %s raised from commit(); the transaction is committed regardless", self.name)

    def _record_done_quietly(self, record: SourceRecord) -> None:
        try:
            self.sender.record_done(record)
        except Exception:
            log.exception("Task %s raised from commit_record()", self.name)

    def _fatal_message(self, err: KafkaError) -> str:
        if err.code() in _FENCED:
            return (
                f"Task {self.name} was fenced out: another producer started with its transactional.id "
                f"{self.transactional_id!r} (another worker running connector {self.connector} task "
                f"{self.task_id} with group.id-derived id, or this task restarted elsewhere). This "
                f"instance writes nothing more; its open transaction is aborted"
            )
        if err.code() == KafkaError.INVALID_PRODUCER_EPOCH:
            return (
                f"Task {self.name} could not finish its transaction before it expired "
                f"(transaction.timeout.ms): commit more often (transaction.boundary=poll, or a shorter "
                f"transaction.boundary.interval.ms), or raise producer.override.transaction.timeout.ms"
            )
        return f"Task {self.name}: the transactional producer failed: {err.str()} ({err.name()})"

    # -- delivery reports ---------------------------------------------------------------------------
    def on_failure(self, callback: RecordAck | None, err: KafkaError, msg: Message, *, pinned: bool) -> None:
        """Failures surface again when the transaction commits, which then fails (as in Kafka)."""
        if self._aborting or err.code() in _PURGED:
            return
        if self._send_error is None:
            self._send_error = err

    def on_ack(self, record: SourceRecord, msg: Message) -> None:
        self.connectivity.healthy()
        topic, partition, offset = msg.topic(), msg.partition(), msg.offset()
        assert topic is not None and partition is not None and offset is not None  # set once delivered
        ts_type, ts = msg.timestamp()
        self._acked.append((record, RecordMetadata(topic, partition, offset, ts if ts_type else None)))

    def failure_trace(self, exc: BaseException) -> str:
        """A fenced producer's failure says who fenced it."""
        err = _kafka_error(exc)
        if err is not None and err.code() in _FENCED and not isinstance(exc, TaskFailure):
            exc = TaskFailure(self._fatal_message(err))
        return super().failure_trace(exc)
