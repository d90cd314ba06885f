"""RegexRouter, TimestampRouter and Filter, against Kafka's documented behaviour and its unit tests
(`RegexRouterTest`, `TimestampRouterTest`); expected strings for Java's regex replacement and
`SimpleDateFormat` were checked against a JVM (English locale, UTC)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import INT32_SCHEMA, STRING_SCHEMA
from connectworker.converters.java_date_format import JavaDateFormat
from connectworker.transforms.filter import Filter
from connectworker.transforms.regex_router import RegexRouter
from connectworker.transforms.registry import builtin_transformation
from connectworker.transforms.timestamp_router import TimestampRouter

# 2017-01-03T06:30:01.864Z, a Tuesday: the timestamp of Kafka's TimestampRouterTest.
KAFKA_TEST_TIMESTAMP = 1483425001864


def record(topic: str = "test", **fields: Any) -> SourceRecord:
    base: dict[str, Any] = {
        "source_partition": {"file": "a.txt"},
        "source_offset": {"position": 7},
        "topic": topic,
        "value": None,
    }
    return SourceRecord(**(base | fields))


def regex_router(regex: str, replacement: str) -> RegexRouter:
    router = RegexRouter()
    router.configure({"regex": regex, "replacement": replacement})
    return router


def route(regex: str, replacement: str, topic: str) -> str:
    return regex_router(regex, replacement).apply(record(topic)).topic


def timestamp_router(**props: str) -> TimestampRouter:
    router = TimestampRouter()
    router.configure(props)
    return router


# -- RegexRouter ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("regex", "replacement", "topic", "expected"),
    [
        ("foo", "bar", "foo", "bar"),  # Kafka's staticReplacement
        ("foo", "bar", "orig", "orig"),  # doesntMatch
        ("(.*)", "$1", "orig", "orig"),  # identity
        ("(.*)", "prefix-$1", "orig", "prefix-orig"),  # addPrefix
        ("(.*)", "$1-suffix", "orig", "orig-suffix"),  # addSuffix
        (r"(.*)-(\d\d\d\d\d\d\d\d)", "$1", "index-20160117", "index"),  # slice
    ],
)
def test_regex_router_kafka_examples(regex: str, replacement: str, topic: str, expected: str) -> None:
    assert route(regex, replacement, topic) == expected


@pytest.mark.parametrize(
    ("regex", "replacement", "topic", "expected"),
    [
        ("soe-(.*)", "$1", "soe-Order", "Order"),  # the docs' "remove a prefix"
        (".*", "acme_$0", "Order", "acme_Order"),  # "add a prefix"
        ("(.*)Stream_(.*)", "$1$2", "Order_Stream_Data", "Order_Data"),  # "remove a part of the name"
    ],
)
def test_regex_router_documented_examples(regex: str, replacement: str, topic: str, expected: str) -> None:
    assert route(regex, replacement, topic) == expected


def test_regex_router_matches_the_whole_topic_only() -> None:
    # Java's Matcher.matches(): a match inside the topic is not enough.
    assert route("foo", "bar", "foobar") == "foobar"
    assert route("foo.*", "bar", "foobar") == "bar"


@pytest.mark.parametrize(
    ("regex", "replacement", "topic", "expected"),
    [
        ("(?<db>[a-z]+)\\.(?<table>[a-z]+)", "${table}-from-${db}", "sales.orders", "orders-from-sales"),
        ("(.*)", "\\$1-$1", "orig", "$1-orig"),  # \$ is a literal dollar
        ("(.*)", "a\\\\b", "orig", "a\\b"),  # \\ is a literal backslash
        ("(.*)", "$10", "orig", "orig0"),  # one group: $10 is $1 then "0", as Java reads it
        ("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)", "$10-$1", "abcdefghij", "j-a"),  # ten groups: $10 is group 10
        ("(a)?(.*)", "[$1][$2]", "orig", "[][orig]"),  # a group that did not take part gives ""
        ("(.*)", "$0!", "orig", "orig!"),
        ("a|ab", "X", "ab", "Xb"),  # replaceFirst replaces the first match searched, not the full match
        ("\\Qa.b\\E-(.*)", "$1", "a.b-c", "c"),  # Java's \Q...\E quoting
        ("(?<x>a)\\k<x>-(.*)", "${x}$2", "aa-b", "ab"),  # Java's named back-reference; group x is group 1
        ("(?i)TOPIC-(\\d+)", "t$1", "topic-42", "t42"),
    ],
)
def test_regex_router_java_syntax(regex: str, replacement: str, topic: str, expected: str) -> None:
    assert route(regex, replacement, topic) == expected


@pytest.mark.parametrize(
    ("replacement", "reason"),
    [
        ("$2", "No group 2"),
        ("x$", "group index is missing"),
        ("x\\", "character to be escaped is missing"),
        ("$a", "Illegal group reference"),
        ("${}", "0 length name"),
        ("${name", "missing trailing '}'"),
        ("${nope}", "No group with name {nope}"),
        ("${1}", "starts with digit character"),
    ],
)
def test_regex_router_refuses_a_replacement_java_refuses(replacement: str, reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        regex_router("(?<name>.*)", replacement)
    assert list(caught.value.problems) == ["replacement"]
    assert reason in caught.value.problems["replacement"]


@pytest.mark.parametrize(
    ("regex", "reason"),
    [
        ("(unclosed", "Invalid regex"),
        ("[a-z&&[^aeiou]]", "intersected character classes"),
        ("[a-z[0-9]]", "nested"),
        ("(?<my_name>x)", "bad group name"),
        ("\\p{Alpha}+", "Invalid regex"),
        ("a(?i)b", "global flags"),
    ],
)
def test_regex_router_refuses_a_regex_naming_the_key(regex: str, reason: str) -> None:
    router = RegexRouter()
    problems = router.config_def().validate_all({"regex": regex, "replacement": "x"})
    assert reason in problems["regex"].errors[0]
    with pytest.raises(ConfigError) as caught:
        router.configure({"regex": regex, "replacement": "x"})
    assert list(caught.value.problems) == ["regex"]


def test_regex_router_requires_both_keys() -> None:
    with pytest.raises(ConfigError) as caught:
        RegexRouter().configure({})
    assert set(caught.value.problems) == {"regex", "replacement"}


def test_regex_router_changes_only_the_topic() -> None:
    original = record(
        "orig", key="k", value={"a": 1}, partition=3, timestamp=5, key_schema=STRING_SCHEMA, headers=[("h", b"v")]
    )
    routed = regex_router("(.*)", "copy-$1").apply(original)
    assert routed.topic == "copy-orig"
    assert dataclasses.replace(routed, topic="orig") == original
    assert original.topic == "orig"


def test_regex_router_returns_a_non_matching_record_as_is() -> None:
    original = record("orig")
    assert regex_router("foo", "bar").apply(original) is original


# -- TimestampRouter -----------------------------------------------------------------------------
def test_timestamp_router_default_configuration() -> None:
    # Kafka's TimestampRouterTest.defaultConfiguration
    routed = timestamp_router().apply(record("test", timestamp=KAFKA_TEST_TIMESTAMP))
    assert routed.topic == "test-20170103"
    assert routed.timestamp == KAFKA_TEST_TIMESTAMP


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("yyyyMMdd", "20170103"),
        ("yyyy-MM-dd'T'HH:mm", "2017-01-03T06:30"),
        ("yyyy.MM.dd-HH", "2017.01.03-06"),
        ("EEE, d MMM yyyy", "Tue, 3 Jan 2017"),
        ("EEEE, MMMM d, yyyy", "Tuesday, January 3, 2017"),
        ("h:mm a", "6:30 AM"),
        ("yy-D-w-W-F-u", "17-3-1-1-1-2"),
        ("DDD", "003"),
        ("HH:mm:ss.SSS z Z X", "06:30:01.864 UTC +0000 Z"),
        ("zzzz XX XXX", "Coordinated Universal Time Z Z"),
        ("'o''clock' ''", "o'clock '"),
        ("G GGGG y yyy yyyyy M MMMMM L LLL LLLL", "AD AD 2017 2017 02017 1 January 1 Jan January"),
        ("k K S SSSS", "6 6 864 0864"),
        ("E EE EEEEE", "Tue Tue Tuesday"),
        ("YYYY-'W'ww", "2017-W01"),
    ],
)
def test_timestamp_formats_as_java_simple_date_format(pattern: str, expected: str) -> None:
    assert JavaDateFormat.compile(pattern).format(KAFKA_TEST_TIMESTAMP) == expected
    routed = timestamp_router(**{"timestamp.format": pattern}).apply(record("t", timestamp=KAFKA_TEST_TIMESTAMP))
    assert routed.topic == f"t-{expected}"


@pytest.mark.parametrize(
    ("pattern", "millis", "expected"),
    [
        ("k K h H", 1483401600000, "24 0 12 0"),  # midnight
        ("YYYY-'W'ww Y", 1514678400000, "2018-W01 2018"),  # 2017-12-31, a Sunday: week 1 of 2018
        ("YYYY-'W'ww W", 1483142400000, "2016-W53 5"),  # 2016-12-31, a Saturday
        ("yyyy-MM-dd HH:mm:ss.SSS", -1, "1969-12-31 23:59:59.999"),
        ("h a", 1483448400000, "1 PM"),  # 13:00
    ],
)
def test_timestamp_formats_edge_instants(pattern: str, millis: int, expected: str) -> None:
    assert JavaDateFormat.compile(pattern).format(millis) == expected


def test_timestamp_router_topic_format() -> None:
    router = timestamp_router(**{"topic.format": "${timestamp}_${topic}/${topic}", "timestamp.format": "yyyy"})
    assert router.apply(record("orders", timestamp=KAFKA_TEST_TIMESTAMP)).topic == "2017_orders/orders"


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("yyyy-qq", "Illegal pattern character 'q'"),
        ("yyyyMMdd'T", "Unterminated quote"),
        ("XXXX", "invalid ISO 8601 format"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSxxx", "Illegal pattern character 'x'"),
    ],
)
def test_timestamp_router_refuses_a_pattern_naming_the_key(pattern: str, reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        timestamp_router(**{"timestamp.format": pattern})
    assert list(caught.value.problems) == ["timestamp.format"]
    assert reason in caught.value.problems["timestamp.format"]


def test_timestamp_router_needs_a_timestamp() -> None:
    with pytest.raises(DataError, match="Timestamp missing on record: topic='test'"):
        timestamp_router().apply(record("test"))


def test_timestamp_router_refuses_instants_java_formats_in_another_calendar() -> None:
    with pytest.raises(DataError, match=r"timestamp\.format='yyyyMMdd'"):
        timestamp_router().apply(record("test", timestamp=-12219292800001))  # 1582-10-14, Julian in Java


# -- Filter --------------------------------------------------------------------------------------
def test_filter_drops_every_record() -> None:
    drop = Filter()
    drop.configure({})
    assert drop.config_def().names() == []
    assert drop.apply(record("t", value=1, value_schema=INT32_SCHEMA)) is None
    assert drop.apply(record("t")) is None


# -- registry ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("org.apache.kafka.connect.transforms.RegexRouter", RegexRouter),
        ("TimestampRouter", TimestampRouter),
        ("org.apache.kafka.connect.transforms.Filter", Filter),
    ],
)
def test_kafka_names_find_the_routers(name: str, cls: type) -> None:
    assert builtin_transformation(name) is cls
