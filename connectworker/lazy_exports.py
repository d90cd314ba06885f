"""Package surfaces that import nothing until a name is used (PEP 562).

`connectworker.runtime` and `connectworker.rest` state their public names in `__all__` without
importing every module on first touch: a Spark executor that needs only the task context must not pay
for the herder, FastAPI or the Admin client, and eager re-exports would tie the packages' import
order together.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` resolving each name of `exports` from its module (relative to `package`)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
