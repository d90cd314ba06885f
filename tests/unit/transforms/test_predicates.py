"""TopicNameMatches, HasHeaderKey and RecordIsTombstone, against Kafka's `TopicNameMatchesTest` and
`HasHeaderKeyTest` and the predicates' documented behaviour."""

from __future__ import annotations

from typing import Any

import pytest

from connectworker.api.errors import ConfigError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import STRING_SCHEMA
from connectworker.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from connectworker.transforms.registry import builtin_predicate


def record(topic: str = "topic", **fields: Any) -> SourceRecord:
    return SourceRecord(**({"source_partition": None, "source_offset": None, "topic": topic, "value": "v"} | fields))


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("org.apache.kafka.connect.transforms.predicates.TopicNameMatches", TopicNameMatches),
        ("HasHeaderKey", HasHeaderKey),
        ("org.apache.kafka.connect.transforms.predicates.RecordIsTombstone", RecordIsTombstone),
    ],
)
def test_registry_names(name: str, cls: type) -> None:
    assert builtin_predicate(name) is cls


# -- TopicNameMatches -------------------------------------------------------------------------------
def topic_name_matches(pattern: str) -> TopicNameMatches:
    predicate = TopicNameMatches()
    predicate.configure({"pattern": pattern})
    return predicate


def test_pattern_required_in_config() -> None:
    with pytest.raises(ConfigError, match='Missing required configuration "pattern"') as err:
        TopicNameMatches().configure({})
    assert "pattern" in err.value.problems


@pytest.mark.parametrize("pattern", ["", "   "])
def test_pattern_may_not_be_empty(pattern: str) -> None:
    with pytest.raises(ConfigError, match="non-empty") as err:
        TopicNameMatches().configure({"pattern": pattern})
    assert "pattern" in err.value.problems


@pytest.mark.parametrize("pattern", ["[", "*", "(?<1a>x)"])
def test_pattern_is_valid_regex_in_config(pattern: str) -> None:
    with pytest.raises(ConfigError, match="Invalid regex") as err:
        TopicNameMatches().configure({"pattern": pattern})
    assert list(err.value.problems) == ["pattern"]


def test_validate_reports_one_error_for_a_bad_regex() -> None:
    predicate = TopicNameMatches()
    assert predicate.config_def().validate_all({"pattern": "my-prefix-.*"})["pattern"].errors == []
    errors = predicate.config_def().validate_all({"pattern": "*"})["pattern"].errors
    assert len(errors) == 1 and "Invalid regex" in errors[0]


@pytest.mark.parametrize(
    ("topic", "expected"),
    [
        ("my-prefix-", True),
        ("my-prefix-foo", True),
        ("x-my-prefix-", False),  # the whole topic must match
        ("x-my-prefix-foo", False),
        ("your-prefix-", False),
        ("your-prefix-foo", False),
    ],
)
def test_topic_name_matches(topic: str, expected: bool) -> None:
    assert topic_name_matches("my-prefix-.*").test(record(topic)) is expected


def test_topic_name_matches_java_syntax() -> None:
    predicate = topic_name_matches(r"(?<env>dev|prod)\.\Qorders.v1\E")
    assert predicate.test(record("prod.orders.v1"))
    assert not predicate.test(record("prod.ordersXv1"))
    assert not predicate.test(record("prod.orders.v1\n"))  # `matches()` takes no trailing newline


def test_topic_name_matches_ignores_everything_but_the_topic() -> None:
    predicate = topic_name_matches("a.*")
    assert predicate.test(record("abc", value=None, key="k", headers=[("h", "v")]))


def test_topic_name_matches_before_configure_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="before configure"):
        TopicNameMatches().test(record())


# -- HasHeaderKey -----------------------------------------------------------------------------------
def has_header_key(name: str) -> HasHeaderKey:
    predicate = HasHeaderKey()
    predicate.configure({"name": name})
    return predicate


def with_headers(*names: str) -> SourceRecord:
    return record(headers=[(name, None) for name in names])


def test_name_required_in_config() -> None:
    with pytest.raises(ConfigError, match='Missing required configuration "name"'):
        HasHeaderKey().configure({})


def test_name_may_not_be_empty_in_config() -> None:
    with pytest.raises(ConfigError, match="non-empty") as err:
        HasHeaderKey().configure({"name": ""})
    assert "name" in err.value.problems
    errors = HasHeaderKey().config_def().validate_all({"name": ""})["name"].errors
    assert len(errors) == 1 and "configuration name" in errors[0]


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (("foo",), True),
        (("foo", "bar"), True),
        (("bar", "foo", "bar", "foo"), True),
        (("bar",), False),
        (("bar", "bar"), False),
        ((), False),
        (("Foo", "foo-bar"), False),  # exact names only
    ],
)
def test_has_header_key(headers: tuple[str, ...], expected: bool) -> None:
    assert has_header_key("foo").test(with_headers(*headers)) is expected


def test_has_header_key_whatever_the_header_value() -> None:
    predicate = has_header_key("foo")
    assert predicate.test(record(headers=[("foo", b"\x00")]))
    assert predicate.test(record(headers=[("foo", "text")]))


# -- RecordIsTombstone ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"value": None}, True),
        ({"value": None, "key": "k", "value_schema": STRING_SCHEMA.as_optional()}, True),
        ({"value": "v"}, False),
        ({"value": ""}, False),  # empty is not null
        ({"value": {}}, False),
        ({"value": b""}, False),
    ],
)
def test_record_is_tombstone(fields: dict[str, Any], expected: bool) -> None:
    predicate = RecordIsTombstone()
    predicate.configure({})
    assert predicate.test(record(**fields)) is expected


def test_record_is_tombstone_has_no_keys() -> None:
    assert RecordIsTombstone().config_def().names() == []
