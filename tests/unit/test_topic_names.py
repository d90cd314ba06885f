from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectworker.topics.names import MAX_NAME_LENGTH, collides, metric_name, validate_topic_name

LEGAL_CHARS = "abcxyzABCXYZ0189._-"


@pytest.mark.parametrize(
    "name", ["a", "orders", "orders.v1", "my_topic-2", "A.B_C-D", "..a", "_", "-", "x" * MAX_NAME_LENGTH, "..."]
)
def test_legal_names(name: str) -> None:
    assert validate_topic_name(name) is None


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "can't be empty"),
        (".", '"." or ".."'),
        ("..", '"." or ".."'),
        ("x" * (MAX_NAME_LENGTH + 1), "longer than 249 characters"),
        ("bad topic!", "' '"),
        ("bad topic!", "'!'"),
        ("tab\there", "'\\t'"),
        ("café", "'é'"),
        ("slash/name", "'/'"),
        ("trailing\n", "'\\n'"),
        ("١٢٣", "ASCII alphanumerics"),  # Unicode digits are not ASCII digits
    ],
)
def test_illegal_names_say_what_is_wrong(name: str, fragment: str) -> None:
    message = validate_topic_name(name)
    assert message is not None
    assert fragment in message


def test_a_non_string_is_reported_not_raised() -> None:
    message = validate_topic_name(42)  # type: ignore[arg-type]
    assert message is not None and "string" in message


def test_dot_and_underscore_collide_in_metric_names() -> None:
    assert metric_name("a.b_c") == "a_b_c"
    assert collides("orders.v1", "orders_v1")
    assert collides("a_b", "a.b")
    assert not collides("orders", "orders")  # the same topic is not a collision
    assert not collides("orders-v1", "orders_v1")


@settings(max_examples=200)
@given(st.text(alphabet=LEGAL_CHARS + " !é/\n", max_size=260))
def test_validate_agrees_with_kafkas_rules(name: str) -> None:
    legal = name not in ("", ".", "..") and len(name) <= MAX_NAME_LENGTH and all(ch in LEGAL_CHARS for ch in name)
    assert (validate_topic_name(name) is None) == legal


@settings(max_examples=100)
@given(st.text(alphabet="ab._", max_size=6), st.text(alphabet="ab._", max_size=6))
def test_collides_is_symmetric(a: str, b: str) -> None:
    assert collides(a, b) == collides(b, a)
