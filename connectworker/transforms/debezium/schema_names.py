"""`schema.name.adjustment.mode`: Debezium's adjustment of schema names for Avro.

`none` keeps a name; `avro` replaces each character Avro does not allow in a full name (letters, digits,
`_` and `.`, not a digit first) with `_` (a leading digit keeps itself after the `_`: `1a` -> `_1a`);
`avro_unicode` replaces it with `_u` and its code in hex, padded to four digits when it has two (`-` ->
`_u002d`), and treats `_` as invalid first.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ADJUSTMENT_MODES", "schema_name_adjuster"]

ADJUSTMENT_MODES = ("none", "avro", "avro_unicode")


def _letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _avro(name: str) -> str:
    out = []
    for i, c in enumerate(name):
        if _letter(c) or c == "_" or (i > 0 and (c == "." or "0" <= c <= "9")):
            out.append(c)
        else:
            out.append("_" + c if i == 0 and "0" <= c <= "9" else "_")
    return "".join(out)


def _avro_unicode(name: str) -> str:
    out = []
    for i, c in enumerate(name):
        if _letter(c) or (i > 0 and (c in "._" or "0" <= c <= "9")):
            out.append(c)
        else:
            code = f"{ord(c):x}"
            out.append("_u" + ("00" + code if len(code) <= 2 else code))
    return "".join(out)


def schema_name_adjuster(mode: str) -> Callable[[str], str]:
    """The adjustment `mode` (one of `ADJUSTMENT_MODES`, any case) names."""
    return {"avro": _avro, "avro_unicode": _avro_unicode}.get(mode.lower(), str)
