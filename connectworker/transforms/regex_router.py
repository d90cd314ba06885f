"""`RegexRouter`: a topic the regular expression matches in full is renamed by the replacement.

Kafka's keys: `regex` and `replacement`, both required. Kafka compiles `regex` as a
`java.util.regex.Pattern` and, when it matches the whole topic, renames the topic with
`Matcher.replaceFirst(replacement)`; other topics are left as they are. Here:

- `regex` is Java syntax, translated to Python's: ``(?<name>...)`` groups, ``\\k<name>``
  back-references, ``\\Q...\\E`` quoting, ``\\v`` and the ``\\z``/``\\Z`` anchors are rewritten;
  ``\\d``, ``\\w``, ``\\s`` and case-insensitivity are ASCII, as Java's defaults are. Java constructs
  Python lacks (nested or intersected character classes, ``\\p{...}`` classes, flags in mid-pattern)
  are refused naming `regex`, rather than read with another meaning.
- `replacement` is Java's replacement syntax: ``$n`` (the longest run of digits that names an existing
  group, as Java reads ``$10`` with one group as ``$1`` then ``0``), ``${name}``, and ``\\`` escaping
  the next character (``\\$`` is a dollar). A group that did not take part in the match gives "". A
  reference to a missing group, or a bad escape, is refused when the transform is configured; Kafka
  only fails when a topic first matches.
- As `replaceFirst` does, the first match found by searching the topic is the one replaced; it is
  usually the whole topic, but not always: ``a|ab`` matches all of ``ab`` yet replaces only ``a``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import ConfigError
from connectworker.api.record import SourceRecord
from connectworker.api.transform import Transformation
from connectworker.transforms.side import with_topic

__all__ = ["RegexRouter", "compile_java_regex", "parse_java_replacement", "replace_whole_match"]

REGEX_CONFIG = "regex"
REPLACEMENT_CONFIG = "replacement"

_JAVA_GROUP_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# Java's \Z: the end of input, or before a line terminator that ends it.
_JAVA_END_BEFORE_TERMINATOR = "(?=(?:\r\n|[\n\r\u0085\u2028\u2029])?\\Z)"

_JAVA_VERTICAL_SPACE = "\\n\\x0b\\f\\r\\x85\\u2028\\u2029"

Replacement = tuple[str | int, ...]
"""A parsed replacement: literal text, and the numbers of the groups whose text goes in between."""


def _group_name(pattern: str, start: int, close: str) -> tuple[str, int]:
    """The Java group name that starts at `start` and the index after its closing `close`."""
    end = pattern.find(close, start)
    name = pattern[start:end] if end >= 0 else ""
    if end < 0 or not _JAVA_GROUP_NAME.fullmatch(name):
        raise ValueError(
            f"bad group name near index {start}: a name is a letter followed by letters or digits, closed by {close!r}"
        )
    return name, end + 1


def _translate(pattern: str) -> str:
    """`pattern` (Java syntax) in Python's syntax; ValueError for what has no faithful translation."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            escaped = pattern[i + 1]
            if escaped == "Q":
                end = pattern.find("\\E", i + 2)
                out.append(re.escape(pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]))
                i = n if end < 0 else end + 2
            elif escaped == "k" and not in_class and pattern.startswith("<", i + 2):
                name, i = _group_name(pattern, i + 3, ">")
                out.append(f"(?P={name})")
            elif escaped == "v":  # Java: any vertical whitespace; Python: the vertical tab only
                out.append(_JAVA_VERTICAL_SPACE if in_class else f"[{_JAVA_VERTICAL_SPACE}]")
                i += 2
            elif escaped in "zZ" and not in_class:
                out.append("\\Z" if escaped == "z" else _JAVA_END_BEFORE_TERMINATOR)
                i += 2
            else:
                out.append(pattern[i : i + 2])
                i += 2
            continue
        if in_class:
            if char == "[" or pattern.startswith("&&", i):
                raise ValueError(
                    f"nested or intersected character classes ({char!r} inside [...], near index {i}) "
                    "are not supported; escape a literal '[' or '&&'"
                )
            in_class = char != "]"
            out.append(char)
            i += 1
            continue
        if char == "[":
            # A ']' first in the class (after an optional '^') is literal, in Java as in Python.
            start = i + 1 + (pattern.startswith("^", i + 1))
            start += pattern.startswith("]", start)
            out.append(pattern[i:start])
            in_class = True
            i = start
            continue
        if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            name, i = _group_name(pattern, i + 3, ">")
            out.append(f"(?P<{name}>")
            continue
        out.append(char)
        i += 1
    return "".join(out)


def compile_java_regex(pattern: str) -> re.Pattern[str]:
    """`pattern`, a `java.util.regex.Pattern` expression, compiled with Python's `re`; ValueError
    ("Invalid regex: ...") when Java would refuse it or Python cannot match it the same way."""
    try:
        return re.compile(_translate(pattern), re.ASCII)
    except (ValueError, re.error) as exc:
        raise ValueError(f"Invalid regex: {exc}") from None


def parse_java_replacement(replacement: str, regex: re.Pattern[str]) -> Replacement:
    """`replacement` read as `java.util.regex.Matcher` reads it against `regex`'s groups; ValueError
    with Java's reason for a replacement Java would refuse."""
    parts: list[str | int] = []
    literal: list[str] = []
    i, n = 0, len(replacement)
    while i < n:
        char = replacement[i]
        if char == "\\":
            if i + 1 == n:
                raise ValueError("character to be escaped is missing (end the replacement with \\\\ for a backslash)")
            literal.append(replacement[i + 1])
            i += 2
            continue
        if char != "$":
            literal.append(char)
            i += 1
            continue
        i += 1
        if i == n:
            raise ValueError("Illegal group reference: group index is missing (use \\$ for a dollar sign)")
        if replacement[i] == "{":
            end = i + 1
            while end < n and replacement[end].isascii() and replacement[end].isalnum():
                end += 1
            name = replacement[i + 1 : end]
            if not name:
                raise ValueError("named capturing group has 0 length name")
            if end == n or replacement[end] != "}":
                raise ValueError("named capturing group is missing trailing '}'")
            if name[0].isdigit():
                raise ValueError(f"capturing group name {{{name}}} starts with digit character")
            if name not in regex.groupindex:
                raise ValueError(f"No group with name {{{name}}}")
            group = regex.groupindex[name]
            i = end + 1
        else:
            if not ("0" <= replacement[i] <= "9"):
                raise ValueError(
                    f"Illegal group reference: '$' followed by {replacement[i]!r} "
                    "(use $n, ${name} or \\$ for a dollar sign)"
                )
            group = int(replacement[i])
            i += 1
            # Java takes further digits only while they still name an existing group.
            while i < n and "0" <= replacement[i] <= "9" and group * 10 + int(replacement[i]) <= regex.groups:
                group = group * 10 + int(replacement[i])
                i += 1
            if group > regex.groups:
                raise ValueError(f"No group {group} (the regex has {regex.groups} group(s))")
        if literal:
            parts.append("".join(literal))
            literal.clear()
        parts.append(group)
    if literal:
        parts.append("".join(literal))
    return tuple(parts)


def _valid_java_regex(key: str, value: Any) -> None:
    if value is not None:
        compile_java_regex(value)


_ROUTES_CACHED = 10_000


class RegexRouter(Transformation):
    """Update the record topic using the configured regular expression and replacement string."""

    def __init__(self) -> None:
        self._regex = re.compile("(?!)")  # matches nothing until configured
        self._replacement: Replacement = ()
        self._routes: dict[str, str] = {}

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                REGEX_CONFIG,
                ConfigType.STRING,
                validator=_valid_java_regex,
                importance=Importance.HIGH,
                documentation="Regular expression to use for matching (java.util.regex syntax).",
            )
            .define(
                REPLACEMENT_CONFIG,
                ConfigType.STRING,
                importance=Importance.HIGH,
                documentation="Replacement string: $n or ${name} for a group, \\$ for a dollar sign.",
            )
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._regex = compile_java_regex(config[REGEX_CONFIG])
        try:
            self._replacement = parse_java_replacement(config[REPLACEMENT_CONFIG], self._regex)
        except ValueError as exc:
            raise ConfigError(
                {
                    REPLACEMENT_CONFIG: f"Invalid value {config[REPLACEMENT_CONFIG]!r} for regex "
                    f"{config[REGEX_CONFIG]!r}: {exc}"
                }
            ) from None

    def apply(self, record: SourceRecord) -> SourceRecord:
        topic = self._routes.get(record.topic)
        if topic is None:
            topic = self._route(record.topic)
            if len(self._routes) < _ROUTES_CACHED:  # a task writes to few topics: route each once
                self._routes[record.topic] = topic
        return record if topic == record.topic else with_topic(record, topic)

    def apply_to_copy(self, record: SourceRecord) -> SourceRecord:
        """`apply`, writing into `record`, a copy the transform chain owns: saves a record per step."""
        topic = self._routes.get(record.topic)
        if topic is None:
            return self.apply(record)
        record.topic = topic
        return record

    def _route(self, topic: str) -> str:
        routed = replace_whole_match(self._regex, self._replacement, topic)
        return topic if routed is None else routed


def replace_whole_match(regex: re.Pattern[str], replacement: Replacement, text: str) -> str | None:
    """Java's ``matcher.matches() ? matcher.replaceFirst(replacement) : …``: `text` with the first match of
    `regex` replaced, when `regex` matches the whole of it; None when it does not."""
    match = regex.search(text) if regex.fullmatch(text) else None
    if match is None:
        return None
    replaced = "".join(part if isinstance(part, str) else match.group(part) or "" for part in replacement)
    return text[: match.start()] + replaced + text[match.end() :]
