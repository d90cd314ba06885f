"""The warning a task logs when its stop leaves offsets uncommitted: how many records, and per source
partition where the committed offset stays and up to where records come again after a restart."""

from __future__ import annotations

from connectworker.runtime.tasks.uncommitted_offsets import MAX_PARTITIONS_SHOWN, uncommitted_report


def test_each_partition_says_where_its_committed_offset_stays_and_what_comes_again() -> None:
    report = uncommitted_report(
        "orders-0",
        200,
        {'{"file":"a"}': {"pos": 300}, '{"file":"b"}': {"pos": 7}},
        {'{"file":"a"}': {"pos": 100}},
        5000,
        0,
    )
    assert report == (
        "Task orders-0 stopped with the offsets of 200 record(s) not committed; those records are produced again "
        "after a restart (at least once). Kafka did not acknowledge 200 of them within offset.flush.timeout.ms "
        '(5000 ms): source partition {"file":"a"} stays at {"pos":100} (not committed: up to {"pos":300}); '
        'source partition {"file":"b"} stays at nothing committed yet (not committed: up to {"pos":7}).'
    )


def test_many_partitions_are_counted_not_listed() -> None:
    pending = {f'{{"p":{i}}}': {"n": i} for i in range(MAX_PARTITIONS_SHOWN + 40)}
    report = uncommitted_report("t-0", 45, pending, {}, 5000, 0)
    assert report.count("source partition {") == MAX_PARTITIONS_SHOWN
    assert report.endswith("; and 40 more source partition(s).")


def test_offsets_the_store_could_not_write_and_transactional_tasks_are_said_as_such() -> None:
    report = uncommitted_report("t-0", 10, {}, {}, 5000, 10, transactional=True)
    assert report == (
        "Task t-0 stopped with the offsets of 10 record(s) not committed; those records are produced "
        "again after a restart (exactly once: their transaction was aborted). The offset store could "
        "not be written for 10 acknowledged record(s) (the reason was logged)."
    )
