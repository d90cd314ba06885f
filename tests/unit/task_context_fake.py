"""A task context for unit tests of connectors: hands the task whatever offset reader the test built."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class FakeContext:
    def __init__(self, reader: Any) -> None:
        self._reader = reader

    @property
    def offset_storage_reader(self) -> Any:
        return self._reader

    def configs(self) -> Mapping[str, str]:
        return {}
