"""Single Message Transforms on the test broker: topic creation sees the topic after the chain (the
routed topic is created with the rule matching its name, the emitted one never), `Filter` with a
predicate drops records whose offsets still advance, the dry-run plan shows the routed names, and the
Spark source applies the same chain."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from connectworker.config.connector_config import parse_connector_config
from connectworker.runtime.topic_planning.plan import plan_topics
from tests.broker import Broker
from tests.integration.counting_source import PARTITION
from tests.integration.harness import committed_offset, running_worker, wait_until, worker_config
from tests.integration.topic_checks import partition_count
from tests.kafka_helpers import consume, delete_topics, existing_topics

COUNTING = "tests.integration.counting_source.CountingSource"
NOV_14_2023 = 1_700_000_000_000  # 2023-11-14T22:13:20Z


def routed(unique: str, records: int = 200, **extra: str) -> dict[str, str]:
    """A connector emitting to raw-<unique>, routed to clean-<unique>-<yyyyMMdd of the record>."""
    return {
        "name": f"route-{unique}",
        "connector.class": COUNTING,
        "topic": f"raw-{unique}",
        "records": str(records),
        "timestamp.ms": str(NOV_14_2023),
        "transforms": "rename,daily",
        "transforms.rename.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.rename.regex": "raw-(.*)",
        "transforms.rename.replacement": "clean-$1",
        "transforms.daily.type": "org.apache.kafka.connect.transforms.TimestampRouter",
        "transforms.daily.topic.format": "${topic}-${timestamp}",
        "transforms.daily.timestamp.format": "yyyyMMdd",
        "topic.creation.groups": "raw,clean",
        "topic.creation.raw.include": "raw-.*",
        "topic.creation.raw.partitions": "5",
        "topic.creation.clean.include": "clean-.*",
        "topic.creation.clean.partitions": "2",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        **extra,
    }


@pytest.fixture
def cleanup(admin: AdminClient) -> Iterator[list[str]]:
    topics: list[str] = []
    yield topics
    delete_topics(admin, topics)


def test_a_routing_chain_creates_the_routed_topic_with_its_rule_and_never_the_emitted_one(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, cleanup: list[str]
) -> None:
    target, emitted = f"clean-{unique}-20231114", f"raw-{unique}"
    cleanup += [target, emitted]
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with running_worker(config, routed(unique)) as runtime:
        assert runtime.worker is not None
        wait_until(
            lambda: committed_offset(runtime.worker, f"route-{unique}", PARTITION) == {"next": 200},
            30,
            "every offset committed",
        )
        assert runtime.worker.get(f"route-{unique}").topics == {target}
    assert partition_count(admin, target) == 2  # the clean group's rule, matched on the routed name
    assert emitted not in existing_topics(admin)
    values = [m.value() for m in consume(broker.bootstrap_servers, [target], 200)]
    assert sorted(int((v or b"").decode().split(":")[1]) for v in values) == list(range(200))


def test_filter_with_a_predicate_drops_records_and_their_offsets_still_advance(
    broker: Broker, tmp_path: Path, unique: str, cleanup: list[str]
) -> None:
    topic = f"filtered-{unique}"
    cleanup.append(topic)
    props = {
        "name": f"filter-{unique}",
        "connector.class": COUNTING,
        "topic": topic,
        "records": "300",
        "tombstone.every": "3",
        "transforms": "drop",
        "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
        "transforms.drop.predicate": "tombstone",
        "predicates": "tombstone",
        "predicates.tombstone.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
    }
    config = worker_config(broker.bootstrap_servers, tmp_path)
    with running_worker(config, props) as runtime:
        assert runtime.worker is not None
        wait_until(
            lambda: committed_offset(runtime.worker, f"filter-{unique}", PARTITION) == {"next": 300},
            30,
            "the offset of the last record (a dropped tombstone) committed",
        )
    values = [(m.value() or b"").decode() for m in consume(broker.bootstrap_servers, [topic], 200)]
    assert sorted(int(v.split(":")[1]) for v in values) == [n for n in range(300) if n % 3 != 2]


def test_the_plan_shows_the_routed_name_and_the_rule_that_matches_it(unique: str) -> None:
    config = parse_connector_config(routed(unique))
    [entry] = plan_topics(config, [f"raw-{unique}"], enabled=True, committed={})
    assert entry.emitted == f"raw-{unique}"
    assert entry.topic.startswith(f"clean-{unique}-20") and len(entry.topic) == len(f"clean-{unique}-") + 8
    assert entry.create and entry.rule == "clean" and entry.partitions == 2


def test_the_spark_source_applies_the_same_chain(
    broker: Broker, tmp_path: Path, unique: str, cleanup: list[str]
) -> None:
    """One micro-batch of one task, as an executor runs it (no JVM needed for this part)."""
    from connectworker.spark.formats.options import SourceSettings
    from connectworker.spark.formats.task_poll import TaskPartition, poll_task

    cleanup += [f"clean-{unique}-20231114", f"raw-{unique}"]
    props = routed(unique, records=50)
    # Spark hands options over with lower-cased keys; the chain's aliases survive it
    options = {key.lower(): value for key, value in {**props, "transforms": "Rename,Daily"}.items()}
    settings = SourceSettings.from_options(
        {
            **options,
            "kafka.bootstrap.servers": broker.bootstrap_servers,
            "topic.creation.enable": "true",
            "microbatch.max.ms": "2000",
            "microbatch.max.records": "50",
            "offset.storage.file.filename": str(tmp_path / "o.json"),
        }
    )
    assert settings.connector["transforms.Rename.type"].endswith("RegexRouter")
    batches = list(poll_task(settings, TaskPartition(0, 0, settings.connector, {})))
    topics = {t for batch in batches for t in batch.column("topic").to_pylist()}
    assert topics == {f"clean-{unique}-20231114"}
    assert sum(batch.num_rows for batch in batches) == 50


def test_the_cli_plan_prints_the_emitted_and_the_routed_name(tmp_path: Path, unique: str) -> None:
    from tests.integration.test_cli_standalone import run_cli

    connector = tmp_path / "c.properties"
    connector.write_text("".join(f"{k}={v}\n" for k, v in routed(unique).items() if k != "timestamp.ms"))
    result = run_cli("plan", str(connector), "--topic", f"raw-{unique}")
    assert result.returncode == 0, result.stderr
    assert f"CREATE raw-{unique} -> clean-{unique}-20" in result.stdout and "rule=clean" in result.stdout
    bad = tmp_path / "bad.properties"
    bad.write_text(connector.read_text() + "transforms.daily.predicate=missing\n")
    failed = run_cli("plan", str(bad), "--topic", "x")
    assert failed.returncode == 2
    assert (
        "transforms.daily.predicate: Invalid value missing for configuration transforms.daily.predicate: "
        "the predicate is not defined (add it to predicates, which lists: none)"
    ) in failed.stderr
