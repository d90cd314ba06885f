"""What the herder answers about a connector's topics, from the worker's view of them: the topics this
worker created for it, the dry run of `connectworker plan` / `GET …/topics/plan`, and the drift of its
topics from what its rules would create now. Nothing here creates or changes a topic."""

from __future__ import annotations

from collections.abc import Sequence

from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.herder.errors import InvalidRequestError
from connectworker.runtime.topic_creation.service import CreatedTopic, TopicCreationService
from connectworker.runtime.topic_planning.drift import drift_report
from connectworker.runtime.topic_planning.plan import plan_topics
from connectworker.runtime.worker import Worker
from connectworker.topics.admin import TopicAdmin
from connectworker.topics.drift import TopicDrift
from connectworker.topics.plan import PlanEntry, broker_honours_validate_only


class TopicQuestions:
    def __init__(
        self, worker: Worker, config: WorkerConfig, admin: TopicAdmin | None, topics: TopicCreationService | None
    ) -> None:
        self.worker, self.config, self.admin, self.topics = worker, config, admin, topics

    def created_topics(self, name: str) -> list[CreatedTopic]:
        """The topics this worker created for connector `name` since it started, by name."""
        self.worker.get(name)  # unknown connector: UnknownConnectorError
        if self.topics is None:
            return []
        created = list(self.topics.created_topics.values())
        return sorted((c for c in created if c.connector == name), key=lambda c: c.name)

    def plan(self, name: str, topics: Sequence[str], validate_only: bool) -> list[PlanEntry]:
        """The dry run for `topics`, as `connectworker plan` prints it (illegal names get their verdict)."""
        running = self.worker.get(name)
        config = running.resolved or running.config  # what its connector received, when it runs
        honours = validate_only and self.admin is not None and broker_honours_validate_only(self.admin)
        return plan_topics(
            config,
            topics,
            enabled=self.config.topic_creation_enable,
            committed=self.worker.offset_store.offsets(name),  # as this worker knows them: nothing is written
            admin=self.admin,
            validate_only=validate_only,
            broker_honours_validate_only=honours,
            policy=self.policy,
        )

    def drift(self, name: str, topics: Sequence[str] = ()) -> list[TopicDrift]:
        """`topics` (by default every topic the connector wrote to or the worker created for it) compared
        with what the connector's rules would create now."""
        running = self.worker.get(name)
        if self.admin is None:
            raise InvalidRequestError("This worker has no Admin client to describe topics with")
        names = list(topics) or sorted(running.topics | {c.name for c in self.created_topics(name)})
        return drift_report(
            running.config,
            names,
            admin=self.admin,
            committed=self.worker.offset_store.offsets(name),
            policy=self.policy,
        )

    @property
    def policy(self) -> CreateTopicPolicy | None:
        """The worker's create-topic policy (`topic.creation.policy.class`), if any."""
        return self.topics.policy if self.topics is not None else None
