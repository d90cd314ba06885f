"""Parsing one `topic.creation.*` value: counts, lists and pattern lists, with Kafka's messages.

Each function returns the parsed value and the problems found, never raises and never logs: the
rule parser (`rule_parser.py`) collects the problems of every key before reporting them together.
"""

from __future__ import annotations

import re
from typing import Any

from connectworker.api.config_def import config_text
from connectworker.api.topic_settings import USE_BROKER_DEFAULT
from connectworker.topics.config_keys import INT_MAX, REPLICATION_FACTOR, SHORT_MAX
from connectworker.topics.rules import compile_pattern

__all__ = [
    "DUPLICATE_ALIAS_MESSAGE",
    "PARTITIONS_MESSAGE",
    "REPLICATION_FACTOR_MESSAGE",
    "invalid_message",
    "missing_message",
    "parse_count",
    "parse_patterns",
    "split_list",
]

REPLICATION_FACTOR_MESSAGE = (
    "Replication factor must be positive and not larger than the number of brokers in the Kafka cluster, "
    "or -1 to use the broker's default"
)
PARTITIONS_MESSAGE = "Number of partitions must be positive, or -1 to use the broker's default"
DUPLICATE_ALIAS_MESSAGE = "Duplicate alias provided."

_COUNTED_QUANTIFIER = re.compile(r"\{[0-9]*,[0-9]*\}")  # {m,n}: cannot survive the comma split of a list
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")  # Java's Integer.parseInt: ASCII digits, no '_' separators


def missing_message(key: str) -> str:
    """Kafka's message for a required key without a value."""
    return f'Missing required configuration "{key}" which has no default value.'


def invalid_message(key: str, raw: Any, why: str) -> str:
    """Kafka's message for a value that does not parse or validate."""
    return f"Invalid value {raw!r} for configuration {key}: {why}"


def split_list(raw: Any) -> list[str]:
    """Kafka's LIST parsing: trim, split on commas, trim each item (empty items are kept)."""
    if isinstance(raw, list | tuple):
        return [config_text(item).strip() for item in raw]
    text = config_text(raw).strip()
    return [] if not text else [item.strip() for item in text.split(",")]


def parse_count(key: str, raw: Any, setting: str) -> tuple[int | None, str | None]:
    """A replication factor (a Java short) or partition count (an int): ≥ 1 or -1, else a problem."""
    if setting == REPLICATION_FACTOR:
        rule, type_name, maximum = REPLICATION_FACTOR_MESSAGE, "SHORT", SHORT_MAX
    else:
        rule, type_name, maximum = PARTITIONS_MESSAGE, "INT", INT_MAX
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    else:
        text = config_text(raw).strip()
        if isinstance(raw, bool) or _INTEGER_TEXT.fullmatch(text) is None:
            return None, invalid_message(key, raw, f"Not a number of type {type_name}. {rule}")
        value = int(text)
    if value < 1 and value != USE_BROKER_DEFAULT:
        return None, invalid_message(key, raw, rule)
    if value > maximum:
        return None, invalid_message(
            key, raw, f"Value {value} is larger than the largest {type_name.lower()} ({maximum}). {rule}"
        )
    return value, None


def parse_patterns(key: str, raw: Any, *, single: bool) -> tuple[list[str], list[str]]:
    """A pattern list (or one pattern when `single`), compile-checked: (patterns, problems)."""
    # Trimmed like Kafka's STRING and LIST values: a trailing blank in a .properties file would
    # otherwise become part of the pattern and silently stop it from matching.
    text = config_text(raw)
    patterns = [text.strip()] if single else [p for p in split_list(raw) if p]
    problems = []
    split_quantifier = None if single else _COUNTED_QUANTIFIER.search(text)
    if split_quantifier is not None:
        # Python reads the halves ("a{1" and "3}") as literals where Java fails to compile them.
        problems.append(
            invalid_message(
                key,
                raw,
                f"the quantifier {split_quantifier.group()!r} is split in two: commas separate patterns in this list",
            )
        )
    for pattern in patterns:
        try:
            compile_pattern(pattern)
        except ValueError as exc:
            hint = " (commas separate patterns in this list)" if not single and "," in text else ""
            problems.append(invalid_message(key, raw, f"{exc}{hint}"))
    return patterns, problems
