"""The value side of Debezium's column mappers (`io.debezium.relational.mapping`): `column.mask.with.N.chars`
(`MaskStrings` with a fixed mask), `column.mask.hash[.v2].<algorithm>.with.salt.<salt>` (`MaskStrings` hashing)
and `column.truncate.to.N.chars` (`TruncateColumn`), each as a function built once per column.

What each does, value by value, as Debezium does it:

- a mask replaces every value of a character column, null included, by N `*`;
- a hash writes the lower-case hex digest of the salt's bytes followed by the value's bytes, cut to the
  column's length when it has one; null stays null. Debezium's strategy V1 (`column.mask.hash.`) hashes the
  value as Java serializes a String (`ObjectOutputStream.writeObject`: the stream header, TC_STRING and a
  two-byte length, or TC_LONGSTRING and an eight-byte one past 65535 bytes, then modified UTF-8); V2
  (`column.mask.hash.v2.`) hashes its UTF-8 bytes. Salt and V2 values are encoded in UTF-8, Java's default
  charset (Java 18 on, or a UTF-8 locale);
- truncation cuts a string to N UTF-16 code units (Java's `String.length`) and a binary column's bytes to
  N bytes; any other value, null included, passes whole. Where Java's cut would split a surrogate pair the
  cut leaves the whole character out, so the string stays writable (Java keeps half of it).

The masks act on character columns only: on other columns Debezium passes values through, which
`ColumnMappers.warnings` says.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from connectworker.api.errors import DataError

ValueMapper = Callable[[Any], Any]

# The MessageDigest names of the JDK's SUN provider (looked up ignoring case, as Java does) and their aliases,
# by hashlib's names. MD2, which Java also has, is not in hashlib.
_JAVA_DIGESTS = {
    "md5": ("MD5",),
    "sha1": ("SHA-1", "SHA", "SHA1"),
    "sha224": ("SHA-224", "SHA224"),
    "sha256": ("SHA-256", "SHA256"),
    "sha384": ("SHA-384", "SHA384"),
    "sha512": ("SHA-512", "SHA512"),
    "sha512_224": ("SHA-512/224", "SHA512/224"),
    "sha512_256": ("SHA-512/256", "SHA512/256"),
    "sha3_224": ("SHA3-224",),
    "sha3_256": ("SHA3-256",),
    "sha3_384": ("SHA3-384",),
    "sha3_512": ("SHA3-512",),
}


def _available(name: str) -> bool:
    try:
        hashlib.new(name)
    except ValueError:  # this Python's OpenSSL lacks it (sha512_224 and sha512_256 are optional)
        return False
    return True


DIGESTS = {java.upper(): name for name, javas in _JAVA_DIGESTS.items() if _available(name) for java in javas}
DIGEST_NAMES = tuple(javas[0] for name, javas in _JAVA_DIGESTS.items() if _available(name))


def digest_problem(algorithm: str) -> str | None:
    """What is wrong with a hash algorithm's name, None when hashlib has it."""
    if algorithm.upper() in DIGESTS:
        return None
    allowed = ", ".join(DIGEST_NAMES)
    if algorithm.upper() == "MD2":
        return f"the hash algorithm MD2 is not supported here: use one of {allowed}"
    return f"unknown hash algorithm {algorithm!r}: use one of {allowed} (Java's MessageDigest names, any case)"


def hash_size(algorithm: str) -> int:
    """The bytes of a digest of the hash algorithm of that Java name."""
    return hashlib.new(DIGESTS[algorithm.upper()]).digest_size


def mask_with(mask: str) -> ValueMapper:
    """`MaskingValueConverter`: every value, null included, becomes `mask`."""

    def masked(value: Any) -> str:
        return mask

    return masked


_STREAM_HEADER = b"\xac\xed\x00\x05"  # ObjectOutputStream's STREAM_MAGIC and STREAM_VERSION
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _surrogate_pair(match: re.Match[str]) -> str:
    code = ord(match[0]) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def java_serialized(text: str) -> bytes:
    """The bytes Java's `ObjectOutputStream.writeObject` writes for a String (hashing strategy V1)."""
    if text.isascii() and "\x00" not in text:
        data = text.encode("ascii")
    else:  # modified UTF-8: NUL as two bytes, a character past U+FFFF as its surrogates, three bytes each
        data = _ASTRAL.sub(_surrogate_pair, text).encode("utf-8", "surrogatepass").replace(b"\x00", b"\xc0\x80")
    if len(data) <= 0xFFFF:
        return _STREAM_HEADER + b"\x74" + len(data).to_bytes(2, "big") + data  # TC_STRING
    return _STREAM_HEADER + b"\x7c" + len(data).to_bytes(8, "big") + data  # TC_LONGSTRING


def _utf8(text: str) -> bytes:
    """`String.getBytes()` in UTF-8 (hashing strategy V2): an unpaired surrogate is written `?`."""
    return text.encode("utf-8", "replace")


def hash_with(algorithm: str, salt: str, version: int, length: int | None, column: str) -> ValueMapper:
    """`HashValueConverter`, followed by `TruncatingValueConverter` to the column's length when it has one
    (`length`). `algorithm` is a Java MessageDigest name (see `digest_problem`); `column` names the column in
    the error a value other than a string raises (a character column's values are strings)."""
    salted = hashlib.new(DIGESTS[algorithm.upper()])
    salted.update(salt.encode("utf-8"))
    to_bytes = java_serialized if version == 1 else _utf8

    def hashed(value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise DataError(
                f"Cannot hash the {type(value).__name__} value of character column {column}: Debezium's column "
                "hash applies to strings"
            )
        digest = salted.copy()
        digest.update(to_bytes(value))
        return digest.hexdigest()[:length]

    return hashed


def truncate_text(text: str, length: int) -> str:
    """`text` cut to `length` UTF-16 code units (Java's `substring(0, length)`), a character whose surrogate
    pair the cut would split left out."""
    if text.isascii():
        return text[:length]
    if 2 * len(text) <= length:  # no string of these characters has more code units than that
        return text
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * length:
        return text
    cut = units[: 2 * length]
    if cut and 0xD8 <= cut[-1] <= 0xDB:  # the last unit is a high surrogate: its pair is cut off
        cut = cut[:-2]
    return cut.decode("utf-16-le", "surrogatepass")


def truncate_to(length: int, binary: bool) -> ValueMapper:
    """`TruncatingValueConverter`: strings to `length` UTF-16 code units; bytes to `length` bytes when the
    column is binary (Debezium's ByteBuffer values; other bytes, a Decimal's or Bits', are no ByteBuffer
    there); anything else unchanged."""

    def truncated(value: Any) -> Any:
        if isinstance(value, str):
            return truncate_text(value, length)
        if binary and isinstance(value, bytes | bytearray) and len(value) > length:
            return bytes(value[:length])
        return value

    return truncated
