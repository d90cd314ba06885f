"""Connector names: at most 249 characters, not blank, no ISO control characters, no '/', not '.' or '..'
(also percent-encoded), for connectors from files as much as for those created through the REST API
(tests/integration/test_rest_input_limits.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from connectworker.api import ConfigError
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.connector_names import (
    MAX_CONNECTOR_NAME_LENGTH,
    connector_name_problem,
    shown_name,
)
from connectworker.config.loading import load_connector_configs


def test_names_up_to_249_characters_of_printable_text_are_accepted() -> None:
    for name in (
        "a",
        "orders-eu.v2",
        "données 東京 ✓",
        "x" * MAX_CONNECTOR_NAME_LENGTH,
        "with\u00a0nbsp",
        "...",
        ".hidden",
        "a..",
        "%2e%2e%2e",
        "100%",
        "%",
        "%zz",
        "%ff",
    ):
        assert connector_name_problem(name) is None, name


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "Connector name must not be empty or whitespace only"),
        (" \t ", "Connector name must not be empty or whitespace only"),
        ("x" * 250, "Connector name must be at most 249 characters; it has 250"),
        ("x" * 200_000, "Connector name must be at most 249 characters; it has 200000"),
        ("a\nb", "Connector name must not contain ISO control characters; it has U+000A at position 2"),
        ("a\x00b", "Connector name must not contain ISO control characters; it has U+0000 at position 2"),
        ("del\x7f", "Connector name must not contain ISO control characters; it has U+007F at position 4"),
        ("nel\x85", "Connector name must not contain ISO control characters; it has U+0085 at position 4"),
        ("a/b", "Connector name must not contain '/'"),
        (".", "Connector name '.' is illegal, it cannot be '.' or '..': a URL path drops such a segment"),
        ("..", "Connector name '..' is illegal, it cannot be '.' or '..': a URL path drops such a segment"),
        (
            "%2e%2e",
            "Connector name '%2e%2e' (it decodes to '..') is illegal, it cannot be '.' or '..': a URL path "
            "drops such a segment",
        ),
    ],
)
def test_unusable_names_are_refused_saying_what_is_allowed(name: str, problem: str) -> None:
    assert connector_name_problem(name) == problem


@pytest.mark.parametrize(
    ("name", "decoded"),
    [
        ("%2E.", ".."),
        (".%2e", ".."),
        ("%2E%2E", ".."),
        ("%2e", "."),
        ("%252e%252e", ".."),
        ("%25252E", "."),
    ],
)
def test_names_that_percent_decode_to_a_dot_segment_are_refused(name: str, decoded: str) -> None:
    """Any number of decoding rounds: a proxy or client library that decodes once more must not turn a
    stored name into a path segment that URL parsers drop."""
    assert connector_name_problem(name) == (
        f"Connector name {name!r} (it decodes to {decoded!r}) is illegal, "
        f"it cannot be '.' or '..': a URL path drops such a segment"
    )


def test_a_connector_file_with_a_bad_name_is_refused_naming_the_file_and_the_key(tmp_path: Path) -> None:
    bell = tmp_path / "bell.properties"
    bell.write_text("name=ring\\u0007ring\nconnector.class=DataGen\n")  # a Java escape for BEL
    long = tmp_path / "long.json"
    long.write_text('{"name": "' + "n" * 300 + '", "config": {"connector.class": "DataGen"}}')
    with pytest.raises(ConfigError) as raised:
        load_connector_configs([bell, long])
    message = str(raised.value)
    assert "bell.properties" in message and "long.json" in message
    assert (
        "name: Invalid value 'ring\\x07ring' for configuration name: Connector name must not contain ISO "
        "control characters; it has U+0007 at position 5" in message
    )
    assert "Connector name must be at most 249 characters; it has 300" in message


def test_the_validator_sees_every_source_of_configs() -> None:
    with pytest.raises(ConfigError, match=r"name: .*must not contain '/'"):
        parse_connector_config({"name": "a/b", "connector.class": "DataGen"})
    assert parse_connector_config({"name": "x" * 249, "connector.class": "DataGen"}).name == "x" * 249


def test_long_names_are_shortened_in_messages() -> None:
    assert shown_name("short") == "'short'"
    shown = shown_name("y" * 200_000)
    assert len(shown) < 100 and shown.endswith("… (200000 characters)")
