"""What a PostgreSQL CDC task does at its start, decided from its committed offset and its slot before
anything is done: a snapshot or not, the slot dropped, created or streamed, and from where.

One decision serves two callers: the task's `start` carries it out, and its `dry_start` (a dry run) only
says what a start would do, so a plan never creates, drops or streams a slot.

A committed offset says up to where Kafka has the changes (`lsn`), and the slot is only ever told
(`confirmed_flush_lsn`) what the offsets say was committed (stream.py). So at a start after an ordinary
stop, a restart or a SIGKILL, the slot's confirmed position is never past the committed one. If it is, the
slot was re-created or advanced by another client, and the changes between the two are gone from it:
PostgreSQL would silently stream from its own position. The start fails instead, naming both LSNs and the
ways out, unless `slot.gap.acknowledged.lsn` names the slot's position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConnectError

from .database import SlotState
from .keys import SLOT_GAP_ACKNOWLEDGED, SNAPSHOT_MODE
from .pgoutput import format_lsn
from .settings import CdcSettings


@dataclass(frozen=True)
class StartPlan:
    snapshot: bool  # read the captured tables first, in the snapshot the slot exports at its creation
    drop_slot: bool  # the slot exists but a snapshot is due: created anew, for an exact cut
    create_slot: bool
    resume_lsn: int  # where the stream starts (0: the slot's own position)
    idle: bool  # snapshot.mode=initial_only, its snapshot taken: nothing more to read
    notes: tuple[str, ...] = ()  # what the start logs of its decision (a WARN each)

    def describe(self, settings: CdcSettings) -> str:
        """What a start does, in a sentence (the dry run logs it)."""
        slot = settings.slot
        if self.idle:
            return "read nothing (snapshot.mode=initial_only, and its snapshot was taken)"
        steps = []
        if self.drop_slot:
            steps.append(f"drop slot {slot} and create it anew, then snapshot the captured tables")
        elif self.create_slot:
            steps.append(f"create slot {slot}" + (" and snapshot the captured tables" if self.snapshot else ""))
        steps.append(
            f"stream slot {slot} from {format_lsn(self.resume_lsn)}"
            if self.resume_lsn
            else f"stream slot {slot} from its own position"
        )
        return ", then ".join(steps)


def needs_snapshot(mode: str, committed: Mapping[str, Any] | None) -> bool:
    if mode in ("no_data", "never"):
        return False
    if mode == "always" or not committed:
        return True
    return bool(committed.get("snapshot")) and not committed.get("last_snapshot_record")


def plan_start(settings: CdcSettings, committed: Mapping[str, Any] | None, slot: SlotState | None) -> StartPlan:
    """The start's decision; raises ConnectError when the committed offset lies behind the slot (above)."""
    snapshot = needs_snapshot(settings.snapshot_mode, committed)
    if settings.snapshot_mode == "initial_only" and not snapshot:
        return StartPlan(snapshot=False, drop_slot=False, create_slot=False, resume_lsn=0, idle=True)
    if snapshot:
        return StartPlan(snapshot=True, drop_slot=slot is not None, create_slot=True, resume_lsn=0, idle=False)
    resume = int(committed["lsn"]) if committed and committed.get("lsn") else 0
    if slot is None:
        notes: tuple[str, ...] = ()
        if committed:
            notes = (
                f"Slot {settings.slot} is missing though offsets were committed: it is created again; changes "
                "made while it was missing are not streamed",
            )
        return StartPlan(snapshot=False, drop_slot=False, create_slot=True, resume_lsn=resume, idle=False, notes=notes)
    confirmed = slot.confirmed_flush
    if resume and confirmed is not None and confirmed > resume:
        acknowledged = settings.slot_gap_acknowledged
        if acknowledged != format_lsn(confirmed):
            raise ConnectError(gap_message(settings, resume, confirmed))
        note = (
            f"The committed offset ({format_lsn(resume)}) lies behind slot {settings.slot}'s confirmed position "
            f"({format_lsn(confirmed)}), and {SLOT_GAP_ACKNOWLEDGED}={acknowledged} accepts it: the changes in "
            f"between are not streamed"
        )
        return StartPlan(
            snapshot=False, drop_slot=False, create_slot=False, resume_lsn=confirmed, idle=False, notes=(note,)
        )
    return StartPlan(snapshot=False, drop_slot=False, create_slot=False, resume_lsn=resume, idle=False)


def gap_message(settings: CdcSettings, committed: int, confirmed: int) -> str:
    slot, name = settings.slot, settings.topic_prefix
    return (
        f"The committed offset of {name} resumes the stream at LSN {format_lsn(committed)}, but replication slot "
        f"{slot} has confirmed LSN {format_lsn(confirmed)}: it was re-created, or advanced by another client, and "
        f"the changes between the two are no longer in it. Streaming would skip them silently, so the task stops. "
        f"Either take a new snapshot ({SNAPSHOT_MODE}=always for one start, or stop the connector and delete its "
        f"offsets: DELETE /connectors/NAME/offsets), or accept the loss and stream on from the slot with "
        f"{SLOT_GAP_ACKNOWLEDGED}={format_lsn(confirmed)}"
    )
