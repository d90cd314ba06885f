"""The topics a connector requires (`SourceConnector.required_topics`, e.g. a schema history topic):
created by the worker after the connector started and before its tasks do, with exactly the settings the
connector gives, whatever the topic-creation rules say (and with `topic.creation.enable=false` too: they
are the connector's own storage, as the offsets topic is the worker's). One that exists with other
settings fails the connector, naming each setting and how to fix it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from connectworker.api.errors import ConnectError
from connectworker.api.required_topics import RequiredTopic
from connectworker.api.topic_settings import TopicSettings
from connectworker.topics.admin import Outcome, TopicAdmin, TopicAdminError
from connectworker.topics.drift import TopicDrift, TopicState, compare
from connectworker.topics.plan import PlanEntry

log = logging.getLogger(__name__)

REQUIRED_RULE = "required by the connector"
"""The rule `topics drift` names for a topic a connector requires."""

__all__ = ["REQUIRED_RULE", "RequiredTopics", "planned_required_topics", "required_drift", "required_topic_differences"]


def required_drift(required: RequiredTopic, state: TopicState) -> TopicDrift:
    """How an existing topic differs from what its connector requires (its replication factor is the
    connector's choice only when the topic is created)."""
    wanted = required.settings
    settings = TopicSettings(wanted.name, wanted.partitions, configs=wanted.configs())
    return compare(state, settings, REQUIRED_RULE)


def required_topic_differences(required: RequiredTopic, state: TopicState) -> list[str]:
    """How an existing topic differs from what its connector requires, one phrase per setting."""
    return _phrases(required_drift(required, state))


def _phrases(drift: TopicDrift) -> list[str]:
    phrases = []
    for difference in drift.differences:
        what, actual, wanted = difference.what, difference.actual, difference.wanted
        if what == "partitions":
            phrases.append(f"{actual} partitions where it needs {wanted}")
        elif actual is None:
            phrases.append(f"no {what} of its own (the broker's default applies) where it needs {what}={wanted}")
        else:
            phrases.append(f"{what}={actual} where it needs {what}={wanted}")
    return phrases


def _remedy(required: RequiredTopic, drift: TopicDrift) -> str:
    """How to make the topic right: configs can be set in place, a partition count only by re-creating."""
    if any(d.what == "partitions" for d in drift.differences):
        return f"Delete topic {required.name} and start the connector again: the worker creates it right"
    configs = ",".join(f"{d.what}={d.wanted}" for d in drift.differences)
    return (
        f"Set the topic's configs (kafka-configs.sh --alter --entity-type topics --entity-name {required.name} "
        f"--add-config {configs}, or `connectworker topics drift --apply`), or delete it: the worker then "
        "creates it right"
    )


class RequiredTopics:
    """Makes the topics connectors require ready: one DescribeTopics and DescribeConfigs per connector start,
    a CreateTopics for the missing ones."""

    def __init__(self, admin: TopicAdmin, timeout_s: float, bootstrap_servers: str) -> None:
        self._admin = admin
        self._timeout_s = timeout_s
        self._bootstrap_servers = bootstrap_servers

    def ensure(self, connector: str, required: Sequence[RequiredTopic]) -> None:
        """Create what is missing of `required`; raise `ConnectError` naming the topic and each setting when
        one exists otherwise, or cannot be created."""
        if not required:
            return
        for topic in required:
            self._refuse_other_cluster(connector, topic)
        try:
            states = self._admin.describe_states([r.name for r in required])
            self._refuse_differing(connector, required, states)
            missing = [r for r in required if states.get(r.name) is None]
            if missing:
                self._create(connector, missing)
        except TopicAdminError as exc:
            names = ", ".join(r.name for r in required)
            raise ConnectError(
                f"Connector {connector} could not check or create the topics it requires ({names}): {exc}"
            ) from None

    def _refuse_other_cluster(self, connector: str, topic: RequiredTopic) -> None:
        if topic.cluster is None or same_cluster(topic.cluster, self._bootstrap_servers):
            return
        key = topic.cluster_key or "the connector's setting"
        raise ConnectError(
            f"Connector {connector} keeps its topic {topic.name} on the cluster at {topic.cluster} ({key}), not on "
            f"the worker's at {self._bootstrap_servers}: the worker creates and checks the topics a connector "
            f"requires on its own cluster only. Set {key}={self._bootstrap_servers}"
        )

    def _refuse_differing(
        self, connector: str, required: Sequence[RequiredTopic], states: dict[str, TopicState | None]
    ) -> None:
        for topic in required:
            state = states.get(topic.name)
            drift = required_drift(topic, state) if state is not None else None
            if drift is not None and drift.differences:
                raise ConnectError(
                    f"Connector {connector} cannot start: its topic {topic.name} exists with "
                    f"{'; '.join(_phrases(drift))}. {topic.why}. {_remedy(topic, drift)}."
                )

    def _create(self, connector: str, missing: Sequence[RequiredTopic]) -> None:
        results = self._admin.create([r.settings for r in missing], broker_count=self._admin.broker_count())
        raced = []
        for topic in missing:
            result = results[topic.name]
            if result.outcome is Outcome.CREATED:
                settings = topic.settings
                log.info(
                    "Created topic %s for connector %s, as it requires: %s partition(s), %s",
                    topic.name,
                    connector,
                    "the broker's default" if settings.partitions == -1 else settings.partitions,
                    ", ".join(f"{k}={v}" for k, v in sorted(settings.configs().items())) or "no configs of its own",
                )
            elif result.outcome is Outcome.ALREADY_EXISTS:  # made meanwhile (another worker): checked below
                raced.append(topic)
            else:
                raise ConnectError(
                    f"Connector {connector} requires topic {topic.name} ({topic.why}), and it could not be "
                    f"created: {result.error or result.outcome.value}"
                )
        if raced:
            self._refuse_differing(connector, raced, self._admin.describe_states([r.name for r in raced]))
        deadline = time.monotonic() + self._timeout_s
        while self._admin.describe([r.name for r in missing])[1]:
            if time.monotonic() > deadline:
                names = ", ".join(r.name for r in missing)
                raise ConnectError(f"Connector {connector}: the topics it requires ({names}) did not become visible")
            time.sleep(0.05)


def same_cluster(servers: str, others: str) -> bool:
    """Whether two bootstrap lists name the same brokers (in any order, any case, spaces ignored)."""

    def brokers(text: str) -> set[str]:
        return {entry.strip().lower() for entry in text.split(",") if entry.strip()}

    return brokers(servers) == brokers(others)


def planned_required_topics(
    connector: str, required: Sequence[RequiredTopic], admin: TopicAdmin | None = None
) -> list[PlanEntry]:
    """What the worker would do with each topic the connector requires (`connectworker plan`): create it with
    the connector's settings, or, with `admin`, leave an existing one that has them, or fail the connector
    over one that has not."""
    states = admin.describe_states([r.name for r in required]) if admin is not None and required else {}
    entries = []
    for topic in required:
        settings = topic.settings
        state = states.get(topic.name)
        differences = required_topic_differences(topic, state) if state is not None else []
        if admin is None:
            reason = f"required by connector {connector}: created before its tasks start, whatever the rules say"
        elif state is None:
            reason = f"required by connector {connector}: missing, created before its tasks start"
        elif differences:
            reason = f"exists with {'; '.join(differences)}: connector {connector} would fail to start. {topic.why}"
        else:
            reason = f"required by connector {connector}: exists with the settings it needs"
        entries.append(
            PlanEntry(
                topic=topic.name,
                create=admin is None or state is None,
                rule=None,
                partitions=None if settings.partitions == -1 else settings.partitions,
                replication_factor=None if settings.replication_factor == -1 else settings.replication_factor,
                configs=settings.configs(),
                reason=reason,
                **({} if admin is None else {"exists": state is not None}),
            )
        )
    return entries
