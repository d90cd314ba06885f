"""Lists of regular expressions as Debezium reads them for its column mappers: `Strings.setOfRegex`
splits a list at the commas a backslash does not escape, leaves out empty items, trims each item (Java's
`trim`: the characters up to a space) and unescapes its `\\,`; `Predicates.includes` compiles each with
`Pattern.CASE_INSENSITIVE` and a name matches when one pattern matches it whole (`Matcher.matches`).

Java's flag folds ASCII letters only and its `\\w`, `\\d`, `\\s` and `\\b` are ASCII, hence `re.ASCII`
with `re.IGNORECASE` here. A pattern that Python's `re` does not read (Java-only syntax such as `\\p{Alpha}`
or `(?<name>...)`) is refused with the error's text.
"""

from __future__ import annotations

import re

_JAVA_TRIMMED = "".join(map(chr, range(0x21)))  # what Java's String.trim removes from both ends


def split_regex_list(text: str) -> list[str]:
    """The items of a comma-separated list (`RegExSplitter`); raises ValueError for a trailing `\\`."""
    parts, start, at = [], 0, 0
    while at < len(text):
        if text[at] == "\\":
            if at + 1 == len(text):
                raise ValueError(f"{text!r} ends in a backslash that escapes nothing")
            at += 2
            continue
        if text[at] == ",":
            parts.append(text[start:at])
            start = at + 1
        at += 1
    parts.append(text[start:])
    return [part.strip(_JAVA_TRIMMED).replace("\\,", ",") for part in parts if part]


def compile_regex_list(text: str) -> tuple[re.Pattern[str], ...]:
    """The patterns of a list, compiled to match as Debezium's do (use `fullmatch`); an item that is empty
    after trimming matches no name and is left out. Raises ValueError naming a pattern `re` cannot read."""
    patterns = []
    for item in split_regex_list(text):
        if not item:
            continue
        try:
            patterns.append(re.compile(item, re.IGNORECASE | re.ASCII))
        except re.error as exc:
            raise ValueError(f"{item!r} is not a valid regular expression: {exc}") from None
    return tuple(patterns)
