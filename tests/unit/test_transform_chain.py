"""The transform chain as a connector configures it: Kafka's validation of `transforms*`/`predicates*`
(every problem under its key), the order transforms apply in, predicates and `negate`, dropped records
whose offsets still advance, and errors inside a transform under `errors.tolerance`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest

from connectworker.api import (
    ConfigDef,
    ConfigType,
    DataError,
    Predicate,
    RecordMetadata,
    SourceRecord,
    Transformation,
)
from connectworker.api.config_def import NO_DEFAULT
from connectworker.api.errors import ConfigError
from connectworker.config.connector_config import parse_connector_config, validate_connector
from connectworker.config.error_handling import ErrorHandling, Tolerance
from connectworker.config.transforms import TransformsConfig, read_transforms
from tests.unit.test_worker_source_task import PARTITION, Harness, ScriptedTask, rec

HERE = __name__


class Suffix(Transformation):
    """Appends `suffix` to the topic; refuses records whose value is 'poison'."""

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("suffix", ConfigType.STRING, NO_DEFAULT).define("times", ConfigType.INT, 1)

    def configure(self, props: Mapping[str, str]) -> None:
        values = self.config_def().parse(props)
        self.suffix = values["suffix"] * values["times"]

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        if record.value == "poison":
            raise DataError("poison is not a value")
        return dataclasses.replace(record, topic=record.topic + self.suffix)


class DropAll(Transformation):
    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return None


class ValueIs(Predicate):
    def config_def(self) -> ConfigDef:
        return ConfigDef().define("value", ConfigType.STRING, NO_DEFAULT)

    def configure(self, props: Mapping[str, str]) -> None:
        self.value = self.config_def().parse(props)["value"]

    def test(self, record: SourceRecord) -> bool:
        return bool(record.value == self.value)


def connector(**props: str) -> dict[str, str]:
    return {"name": "c", "connector.class": "DataGen", "topic.pattern": "t", "topic.count": "1", **props}


def problems(**props: str) -> dict[str, list[str]]:
    return {k: r.value.errors for k, r in validate_connector(connector(**props)).items() if r.value.errors}


def test_every_problem_of_the_chain_is_reported_under_its_key() -> None:
    found = problems(
        **{
            "transforms": "a,b,c,d",
            "transforms.a.type": f"{HERE}.Suffix",
            "transforms.a.times": "many",
            "transforms.b.type": "org.apache.kafka.connect.transforms.NoSuchThing",
            "transforms.c.type": f"{HERE}.DropAll",
            "transforms.c.predicate": "missing",
            "transforms.d.type": f"{HERE}.ValueIs",
            "transforms.d.negate": "true",
            "predicates": "p",
            "predicates.p.type": f"{HERE}.ValueIs",
        }
    )
    assert found["transforms.a.suffix"] == [
        'Missing required configuration "transforms.a.suffix" which has no default value.'
    ]
    assert found["transforms.a.times"] == [
        "Invalid value 'many' for configuration transforms.a.times: Expected an integer, got 'many'"
    ]
    assert found["transforms.b.type"][0].startswith(
        "Invalid value org.apache.kafka.connect.transforms.NoSuchThing for configuration transforms.b.type: "
        "Class org.apache.kafka.connect.transforms.NoSuchThing could not be found"
    )
    assert found["transforms.c.predicate"] == [
        "Invalid value missing for configuration transforms.c.predicate: the predicate is not defined (add it "
        "to predicates, which lists: p)"
    ]
    assert found["transforms.d.type"] == [
        f"Invalid value {HERE}.ValueIs for configuration transforms.d.type: "
        f"Class {HERE}.ValueIs is not a Transformation "
        "(connectworker.api.Transformation)"
    ]
    assert "negate needs transforms.d.predicate" in found["transforms.d.negate"][0]
    assert found["predicates.p.value"] == [
        'Missing required configuration "predicates.p.value" which has no default value.'
    ]
    assert problems(transforms="a,a", **{"transforms.a.type": f"{HERE}.DropAll"})["transforms"] == [
        "Invalid value a,a for configuration transforms: Duplicate alias provided."
    ]
    assert problems(transforms="a")["transforms.a.type"] == [
        'Missing required configuration "transforms.a.type" which has no default value.'
    ]
    with pytest.raises(ConfigError) as info:
        parse_connector_config(connector(transforms="a", **{"transforms.a.type": "Nope"}), source="c.properties")
    assert "transforms.a.type" in info.value.problems


def test_the_validate_groups_follow_kafkas_order() -> None:
    reports = validate_connector(connector(transforms="a", **{"transforms.a.type": f"{HERE}.DropAll"}))
    groups = list(dict.fromkeys(r.definition.group for r in reports.values() if r.definition.group))
    assert groups[:4] == ["Common", "Transforms", "Predicates", "Error Handling"]
    assert groups[-2:] == ["Exactly Once Support", "Automatic Restarts"]  # the latter beyond Kafka


def chain_config(**props: str) -> TransformsConfig:
    config = read_transforms(props).config
    assert config is not None, read_transforms(props).problems
    return config


def test_transforms_apply_in_order_and_a_dropped_record_still_advances_its_offset(tmp_path: Path) -> None:
    transforms = chain_config(
        **{
            "transforms": "one,drop,two",
            "transforms.one.type": f"{HERE}.Suffix",
            "transforms.one.suffix": "-1",
            "transforms.drop.type": "Filter",
            "transforms.drop.predicate": "skip",
            "transforms.two.type": f"{HERE}.Suffix",
            "transforms.two.suffix": "-2",
            "transforms.two.times": "2",
            "predicates": "skip",
            "predicates.skip.type": f"{HERE}.ValueIs",
            "predicates.skip.value": "v2",
        }
    )
    h = Harness(tmp_path, ScriptedTask(), transforms=transforms).start()
    h.task.polls.put([rec(1), rec(2), rec(3)])
    h.wait_committed({"n": 3})
    h.stop()
    assert h.producer is not None
    assert [(m.topic(), m.value()) for m in h.producer.delivered] == [("t-1-2-2", b"v1"), ("t-1-2-2", b"v3")]


def test_negate_applies_the_transform_where_the_predicate_does_not_hold(tmp_path: Path) -> None:
    transforms = chain_config(
        **{
            "transforms": "keep",
            "transforms.keep.type": f"{HERE}.DropAll",
            "transforms.keep.predicate": "only",
            "transforms.keep.negate": "true",
            "predicates": "only",
            "predicates.only.type": f"{HERE}.ValueIs",
            "predicates.only.value": "v2",
        }
    )
    h = Harness(tmp_path, ScriptedTask(), transforms=transforms).start()
    h.task.polls.put([rec(1), rec(2), rec(3)])
    h.wait_committed({"n": 3})
    h.stop()
    assert h.sent() == ["v2"]


def test_a_transform_error_fails_the_task_naming_the_transform_and_the_record(tmp_path: Path) -> None:
    transforms = chain_config(**{"transforms": "s", "transforms.s.type": f"{HERE}.Suffix", "transforms.s.suffix": "-x"})
    h = Harness(tmp_path, ScriptedTask(), transforms=transforms).start()
    h.task.polls.put([rec(1)])
    h.wait_committed({"n": 1})
    h.task.polls.put([rec(2), rec(3, "poison")])
    trace = h.wait_failed()
    assert (
        "transformation failed for a record (topic 't', source partition {'p': 0}, source offset {'n': 3}): "
        "TransformError: Transform 's' (Suffix) failed: DataError: poison is not a value"
    ) in trace
    assert h.committed() == {"n": 1} and h.sent() == ["v1"]


def test_with_errors_tolerance_all_a_failing_transform_skips_the_record(tmp_path: Path) -> None:
    transforms = chain_config(**{"transforms": "s", "transforms.s.type": f"{HERE}.Suffix", "transforms.s.suffix": "-x"})
    h = Harness(tmp_path, ScriptedTask(), transforms=transforms, errors=ErrorHandling(tolerance=Tolerance.ALL)).start()
    h.task.polls.put([rec(1), rec(2, "poison"), rec(3)])
    h.wait_committed({"n": 3})
    h.stop()
    assert h.sent() == ["v1", "v3"] and h.worker_task.tolerance.skipped == 1
    assert h.store.offset("c", PARTITION) == {"n": 3}


def test_a_transform_that_cannot_be_configured_fails_the_task_with_its_message(tmp_path: Path) -> None:
    class Broken(Transformation):
        def configure(self, props: Mapping[str, str]) -> None:
            raise ValueError("no route table at /etc/routes")

        def apply(self, record: SourceRecord) -> SourceRecord | None:
            return record

    from connectworker.config.transforms import TransformSpec

    h = Harness(tmp_path, ScriptedTask(), transforms=TransformsConfig((TransformSpec("b", Broken, {}),))).start()
    assert "no route table at /etc/routes" in h.wait_failed()


def test_commit_record_gets_the_record_as_the_task_returned_it(tmp_path: Path) -> None:
    class Recording(ScriptedTask):
        def __init__(self) -> None:
            super().__init__()
            self.committed: list[tuple[str, str | None]] = []

        def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
            self.committed.append((record.topic, metadata.topic if metadata else None))

    transforms = chain_config(**{"transforms": "s", "transforms.s.type": f"{HERE}.Suffix", "transforms.s.suffix": "-x"})
    task = Recording()
    h = Harness(tmp_path, task, transforms=transforms).start()
    task.polls.put([rec(1), rec(2)])
    h.wait_committed({"n": 2})
    h.stop()
    # as in Kafka: the record before its transforms, the metadata of where the transformed one went
    assert task.committed == [("t", "t-x"), ("t", "t-x")]
