"""What a PostgreSQL CDC task decides at its start from its committed offset and its slot (start_plan.py):
the decision a start carries out and a dry run only describes."""

from __future__ import annotations

import pytest

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.connectors.postgres_cdc.database import SlotState
from connectworker.connectors.postgres_cdc.pgoutput import parse_lsn
from connectworker.connectors.postgres_cdc.settings import parse_settings
from connectworker.connectors.postgres_cdc.start_plan import StartPlan, plan_start

SETTINGS = {"database.hostname": "h", "database.dbname": "d", "database.user": "u", "topic.prefix": "p"}
STREAMED = {"lsn": parse_lsn("0/1923238"), "lsn_proc": parse_lsn("0/1923100"), "txId": 7, "ts_usec": 1}


def plan(committed: dict[str, object] | None, slot: SlotState | None, **props: str) -> StartPlan:
    return plan_start(parse_settings({**SETTINGS, **props}), committed, slot)


def test_a_first_start_creates_the_slot_and_snapshots() -> None:
    decided = plan(None, None)
    assert (decided.snapshot, decided.create_slot, decided.drop_slot, decided.resume_lsn) == (True, True, False, 0)


def test_a_snapshot_due_over_an_existing_slot_recreates_it_for_an_exact_cut() -> None:
    interrupted = {"lsn": 5, "snapshot": True, "last_snapshot_record": False}
    decided = plan(interrupted, SlotState(5))
    assert decided.snapshot and decided.drop_slot and decided.create_slot


@pytest.mark.parametrize("confirmed", ["0/1923238", "0/1923000"])
def test_a_restart_resumes_at_its_committed_lsn_when_the_slot_confirmed_that_far_or_less(confirmed: str) -> None:
    decided = plan(STREAMED, SlotState(parse_lsn(confirmed)))
    assert (decided.snapshot, decided.create_slot, decided.drop_slot) == (False, False, False)
    assert decided.resume_lsn == STREAMED["lsn"] and decided.notes == ()


def test_a_finished_snapshot_resumes_at_the_slot_s_consistent_point() -> None:
    finished = {"lsn": 4096, "snapshot": True, "last_snapshot_record": True}
    decided = plan(finished, SlotState(4096))
    assert not decided.snapshot and decided.resume_lsn == 4096


def test_a_slot_past_the_committed_offset_fails_naming_both_lsns_and_the_ways_out() -> None:
    with pytest.raises(ConnectError) as failed:
        plan(STREAMED, SlotState(parse_lsn("0/1923320")))
    message = str(failed.value)
    assert "resumes the stream at LSN 0/1923238" in message
    assert "replication slot debezium has confirmed LSN 0/1923320" in message
    assert "snapshot.mode=always" in message and "DELETE /connectors/NAME/offsets" in message
    assert "slot.gap.acknowledged.lsn=0/1923320" in message


def test_the_acknowledged_lsn_streams_on_from_the_slot_and_no_other() -> None:
    decided = plan(STREAMED, SlotState(parse_lsn("0/1923320")), **{"slot.gap.acknowledged.lsn": "0/1923320"})
    assert decided.resume_lsn == parse_lsn("0/1923320") and "not streamed" in decided.notes[0]
    with pytest.raises(ConnectError, match="0/1923400"):  # a later gap is not the acknowledged one
        plan(STREAMED, SlotState(parse_lsn("0/1923400")), **{"slot.gap.acknowledged.lsn": "0/1923320"})


def test_a_missing_slot_with_committed_offsets_is_created_again_with_a_warning() -> None:
    decided = plan(STREAMED, None)
    assert decided.create_slot and not decided.snapshot and "missing" in decided.notes[0]


def test_initial_only_after_its_snapshot_idles() -> None:
    finished = {"lsn": 4096, "snapshot": True, "last_snapshot_record": True}
    assert plan(finished, None, **{"snapshot.mode": "initial_only"}).idle


def test_the_acknowledgement_key_takes_an_lsn_only() -> None:
    with pytest.raises(ConfigError, match=r"slot\.gap\.acknowledged\.lsn: .*PostgreSQL LSN"):
        parse_settings({**SETTINGS, "slot.gap.acknowledged.lsn": "yes"})
