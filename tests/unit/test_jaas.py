"""`sasl.jaas.config` read as Kafka reads it (Java's StreamTokenizer rules), with Kafka's messages."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from connectworker.config.jaas import JaasEntry, JaasError, parse_jaas, parse_single_entry, secret_options

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


def test_the_usual_plain_entry() -> None:
    entry = parse_single_entry(f'{PLAIN} required username="alice" password="alice-secret";')
    assert entry == JaasEntry(PLAIN, "REQUIRED", {"username": "alice", "password": "alice-secret"})


def test_quoted_values_take_java_escapes() -> None:
    text = (
        f'{PLAIN} required username=\'o\\\'neil\' password="a\\"b\\\\c\\td\\101\\7x\\q" path="C:\\\\secrets" empty="";'
    )
    options = parse_single_entry(text).options
    assert options == {"username": "o'neil", "password": 'a"b\\c\tdA\x07xq', "path": "C:\\secrets", "empty": ""}


def test_octal_escapes_take_three_digits_only_from_0_to_3() -> None:
    assert parse_single_entry(f'{PLAIN} required a="\\1234" b="\\477";').options == {"a": "S4", "b": "'7"}


def test_unquoted_words_comments_flags_and_layout() -> None:
    text = (
        f"/* the client */ {PLAIN}   Required\n  username=alice // a comment to the end of the line\n"
        f'  password="p w"\n  token_id=$abc-1.2 ;'
    )
    entry = parse_single_entry(text)
    assert entry.control_flag == "REQUIRED"
    assert entry.options == {"username": "alice", "password": "p w", "token_id": "$abc-1.2"}
    for flag in ("requisite", "SUFFICIENT", "optional"):
        assert parse_single_entry(f"{PLAIN} {flag};").control_flag == flag.upper()


def test_a_quoted_string_ends_at_the_end_of_its_line_as_in_java() -> None:
    assert parse_single_entry(f'{PLAIN} required a="open\n;').options == {"a": "open"}


def test_several_entries_parse_but_sasl_jaas_config_takes_one() -> None:
    text = f'{PLAIN} required a="1"; {PLAIN} optional b="2";'
    assert [e.control_flag for e in parse_jaas(text)] == ["REQUIRED", "OPTIONAL"]
    with pytest.raises(JaasError) as info:
        parse_single_entry(text)
    assert str(info.value) == "JAAS config property contains 2 login modules, should be 1 module"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Login module not specified in JAAS config"),
        ("  /* nothing */ ", "Login module not specified in JAAS config"),
        (PLAIN, "Login module control flag not specified in JAAS config"),
        (f"{PLAIN} ;", "Login module control flag is not available in the JAAS config"),
        (f"{PLAIN} requird;", "Invalid login module control flag 'requird' in JAAS config"),
        (f'{PLAIN} required username="u" password="p"', "JAAS config entry not terminated by semi-colon"),
        (f"{PLAIN} required username=;", "Value not specified for key 'username' in JAAS config"),
        (f"{PLAIN} required username;", "Value not specified for key 'username' in JAAS config"),
        (f"{PLAIN} required retries=3;", "Value not specified for key 'retries' in JAAS config"),  # a number
        (f"{PLAIN} required path=/etc/x;", "Value not specified for key 'path' in JAAS config"),  # "/" starts a comment
    ],
)
def test_what_kafka_refuses_is_refused_with_kafkas_message(text: str, message: str) -> None:
    with pytest.raises(JaasError) as info:
        parse_single_entry(text)
    assert str(info.value) == message


def test_messages_never_quote_a_value() -> None:
    with pytest.raises(JaasError) as info:
        parse_single_entry(f'{PLAIN} required username="u" password="hunter2-secret"')
    assert "hunter2" not in str(info.value)


def test_secret_options_are_the_credentials_inside() -> None:
    text = (
        f'{PLAIN} required username="u" password="p1"; '
        f'x.OAuth required clientId="c" clientSecret="s2" keyPassword="k3";'
    )
    assert secret_options(text) == ["p1", "s2", "k3"]
    assert secret_options("not jaas") == []


def _java_quoted(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


@given(st.text())
def test_any_value_quoted_as_java_writes_it_reads_back(value: str) -> None:
    entry = parse_single_entry(f"{PLAIN} required password={_java_quoted(value)};")
    assert entry.options == {"password": value}
