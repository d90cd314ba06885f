"""Reading Kafka's `sasl.jaas.config`: Java's JAAS syntax, as Kafka's own parser reads it.

The value is ``<login module class> <control flag> (<option>=<value>)* ;``, e.g.
``org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";``.
Kafka tokenises it with `java.io.StreamTokenizer`, so the same rules apply here: values are words
(letters, digits after the first character, ``-``, ``_``, ``$``, ``.``) or strings quoted with ``"`` or
``'`` in which ``\\n``, ``\\t``, octal escapes and ``\\<any>`` (giving ``<any>``) are read as Java reads
them; a string ends at its closing quote or at the end of the line; ``//`` and ``/* */`` (and a lone
``/``) start comments; a bare number is not a value. Problems are reported with Kafka's messages and
never quote a value, which may be a password.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CONTROL_FLAGS = ("REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL")

_ESCAPES = {"a": "\x07", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\x0b"}
_WORD_EXTRA = "-_$"
_NUMBER_START = "0123456789.-"


class JaasError(ValueError):
    """The value is not a JAAS configuration Kafka would accept; the message says why."""


@dataclass(frozen=True)
class JaasEntry:
    """One login module entry."""

    login_module: str
    control_flag: str  # upper case: REQUIRED, REQUISITE, SUFFICIENT or OPTIONAL
    options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Token:
    kind: str  # "word", "quoted", "number", "char" or "eof"
    text: str | None = None  # a word's or a quoted string's value; the character of a "char"


def _is_word_start(c: str) -> bool:
    return (c.isascii() and c.isalpha()) or c in _WORD_EXTRA or ord(c) >= 160


def _is_word_part(c: str) -> bool:
    return _is_word_start(c) or c in "0123456789."


class _Tokenizer:
    """The subset of `java.io.StreamTokenizer` that Kafka's JAAS parser relies on."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0

    def _peek(self, offset: int = 0) -> str:
        index = self._pos + offset
        return self._text[index] if index < len(self._text) else ""

    def _skip_to_line_end(self) -> None:
        while self._pos < len(self._text) and self._text[self._pos] not in "\r\n":
            self._pos += 1

    def next(self) -> _Token:
        while True:
            c = self._peek()
            if not c:
                return _Token("eof")
            if ord(c) <= 32:
                self._pos += 1
            elif c == "/":
                if self._peek(1) == "*":
                    end = self._text.find("*/", self._pos + 2)
                    self._pos = len(self._text) if end < 0 else end + 2
                else:  # "//", and (a comment character in Java's default table) a lone "/"
                    self._skip_to_line_end()
            else:
                break
        if c in _NUMBER_START:  # Java tries a number first; a "-" that starts none is a character of its own
            if c != "-" or (self._peek(1) and self._peek(1) in "0123456789."):
                return self._number()
            self._pos += 1
            return _Token("char", c)
        if _is_word_start(c):
            start = self._pos
            while self._peek() and _is_word_part(self._peek()):
                self._pos += 1
            return _Token("word", self._text[start : self._pos])
        if c in "\"'":
            return self._quoted(c)
        self._pos += 1
        return _Token("char", c)

    def _number(self) -> _Token:
        if self._peek() == "-":
            self._pos += 1
        seen_dot = False
        while (c := self._peek()) and ((c.isdigit() and c.isascii()) or (c == "." and not seen_dot)):
            seen_dot = seen_dot or c == "."
            self._pos += 1
        return _Token("number")

    def _quoted(self, quote: str) -> _Token:
        self._pos += 1
        out: list[str] = []
        while (c := self._peek()) and c != quote and c not in "\r\n":
            self._pos += 1
            if c != "\\":
                out.append(c)
                continue
            escaped = self._peek()
            if not escaped:
                break
            self._pos += 1
            if "0" <= escaped <= "7":  # up to three octal digits, the first at most 3 when there are three
                value, digits = int(escaped), 1
                while digits < 3 and "0" <= self._peek() <= "7" and (digits < 2 or escaped <= "3"):
                    value = value * 8 + int(self._peek())
                    self._pos += 1
                    digits += 1
                out.append(chr(value))
            else:
                out.append(_ESCAPES.get(escaped, escaped))
        if self._peek() == quote:
            self._pos += 1
        return _Token("quoted", "".join(out))


def _entry(tokens: _Tokenizer, first: _Token) -> JaasEntry:
    module = first.text if first.kind in ("word", "quoted") else None
    flag_token = tokens.next()
    if flag_token.kind == "eof":
        raise JaasError("Login module control flag not specified in JAAS config")
    flag = flag_token.text if flag_token.kind in ("word", "quoted") else None
    if flag is None:
        raise JaasError("Login module control flag is not available in the JAAS config")
    if flag.upper() not in CONTROL_FLAGS:
        raise JaasError(f"Invalid login module control flag '{flag}' in JAAS config")
    if module is None:
        raise JaasError("Login module not specified in JAAS config")
    options: dict[str, str] = {}
    while (token := tokens.next()).kind != "eof" and not (token.kind == "char" and token.text == ";"):
        key = token.text if token.kind in ("word", "quoted") else None
        equals = tokens.next()
        value = tokens.next() if equals.kind == "char" and equals.text == "=" else _Token("eof")
        if value.kind not in ("word", "quoted") or key is None or value.text is None:
            raise JaasError(f"Value not specified for key '{key}' in JAAS config")
        options[key] = value.text
    if token.kind == "eof":
        raise JaasError("JAAS config entry not terminated by semi-colon")
    return JaasEntry(module, flag.upper(), options)


def parse_jaas(text: str) -> list[JaasEntry]:
    """Every login module entry of `text`; raises JaasError as Kafka's parser would."""
    tokens = _Tokenizer(text)
    entries: list[JaasEntry] = []
    while (token := tokens.next()).kind != "eof":
        entries.append(_entry(tokens, token))
    if not entries:
        raise JaasError("Login module not specified in JAAS config")
    return entries


def parse_single_entry(text: str) -> JaasEntry:
    """The one login module entry `sasl.jaas.config` must hold (Kafka refuses more than one)."""
    entries = parse_jaas(text)
    if len(entries) > 1:
        raise JaasError(f"JAAS config property contains {len(entries)} login modules, should be 1 module")
    return entries[0]


def secret_options(text: str) -> list[str]:
    """The values of the options of `text` that are credentials (a password, a client secret), for
    redaction; nothing when `text` does not parse."""
    try:
        entries = parse_jaas(text)
    except JaasError:
        return []
    return [
        value
        for entry in entries
        for key, value in entry.options.items()
        if any(word in key.lower() for word in ("password", "secret"))
    ]
