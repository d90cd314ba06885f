"""`/connectors/{name}/offsets`: read committed source offsets any time; alter or reset them only while
the connector is STOPPED (as in Kafka)."""

from __future__ import annotations

from fastapi import APIRouter

from connectworker.rest.deps import ConnectorName, HerderDep
from connectworker.rest.errors import BadRequest, error_responses
from connectworker.rest.models import AlterOffsetsRequest, ConnectorOffset, ConnectorOffsets, Message

router = APIRouter(tags=["offsets"])


@router.get("/connectors/{name}/offsets", response_model=ConnectorOffsets, responses=error_responses(404))
def get_offsets(name: ConnectorName, herder: HerderDep) -> ConnectorOffsets:
    return ConnectorOffsets(
        offsets=[ConnectorOffset.model_validate({"partition": p, "offset": o}) for p, o in herder.offsets(name)]
    )


@router.patch("/connectors/{name}/offsets", response_model=Message, responses=error_responses(400, 404))
def alter_offsets(name: ConnectorName, body: AlterOffsetsRequest, herder: HerderDep) -> Message:
    """Set (or, with a null offset, remove) the offset of each given source partition."""
    if not body.offsets:
        raise BadRequest("The offsets to be altered may not be null or empty")
    herder.alter_offsets(name, [(o.partition or {}, o.offset) for o in body.offsets])
    return Message(message="The offsets for this connector have been altered successfully")


@router.delete("/connectors/{name}/offsets", response_model=Message, responses=error_responses(400, 404))
def reset_offsets(name: ConnectorName, herder: HerderDep) -> Message:
    herder.reset_offsets(name)
    return Message(message="The offsets for this connector have been reset successfully")
