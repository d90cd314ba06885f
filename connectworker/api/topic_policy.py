"""A create-topic policy the worker applies itself, before it asks the broker (KIP-108's shape).

Kafka lets a broker refuse topics with a `CreateTopicPolicy` plugged into the broker. Operators of a
managed cluster cannot install one, and a broker's refusal arrives only once a task runs. The worker
key `topic.creation.policy.class` names a subclass of `CreateTopicPolicy`; the worker configures it with
the `topic.creation.policy.*` keys (prefix removed), asks it about every topic it is about to create,
after the task's `settings_for_new_topic` had its say (so no task can talk its way past it), and closes
it at shutdown. A `PolicyViolationError` fails the task exactly as the broker's POLICY_VIOLATION would,
and nothing is sent to the broker.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from connectworker.api.errors import ConnectError

__all__ = ["CreateTopicPolicy", "PolicyViolationError", "RequestMetadata"]


class PolicyViolationError(ConnectError):
    """Raised by `CreateTopicPolicy.validate`: the message says what the policy requires."""


@dataclass(frozen=True)
class RequestMetadata:
    """A topic about to be created, as KIP-108's `RequestMetadata`: partitions and replication factor
    (-1: the broker's default), replica assignments (None: the broker chooses) and the topic configs."""

    topic: str
    partitions: int
    replication_factor: int
    configs: Mapping[str, str] = field(default_factory=dict)
    replica_assignments: Mapping[int, Sequence[int]] | None = None


class CreateTopicPolicy(ABC):
    """Subclass it, implement `validate`; `configure` and `close` do nothing unless overridden."""

    def configure(self, props: Mapping[str, str]) -> None:
        """The worker's `topic.creation.policy.*` keys, without the prefix, once before any `validate`."""

    @abstractmethod
    def validate(self, request: RequestMetadata) -> None:
        """Raise `PolicyViolationError` if `request` must not be created."""

    def close(self) -> None:
        """Release what `configure` acquired; called once when the worker stops."""
