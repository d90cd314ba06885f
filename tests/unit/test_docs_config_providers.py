"""docs/configuration-providers.md stays true: its example provider loads by the class name the doc
gives (`module:Class`) and resolves references, with the doc's messages."""

from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path

import pytest

from connectworker.config.providers import open_config_providers

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration-providers.md"
BLOCK = re.compile(r"<!-- example: (?P<name>[\w.]+) -->\n```python\n(?P<code>.*?)\n```", re.DOTALL)


def test_the_example_provider_resolves_references_as_the_doc_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOC.read_text(encoding="utf-8")
    examples = {m["name"]: m["code"] for m in BLOCK.finditer(text)}
    assert set(examples) == {"json_provider.py"}
    assert "config.providers.json.class=json_provider:JsonFileProvider" in text
    module = f"json_provider_{uuid.uuid4().hex[:8]}"  # unique: the plugin loader caches classes by name
    (tmp_path / f"{module}.py").write_text(examples["json_provider.py"] + "\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    secrets = tmp_path / "db.json"
    secrets.write_text(json.dumps({"password": "hunter2", "port": 5432}))
    try:
        providers = open_config_providers(
            ["json"], {"json.class": f"{module}:JsonFileProvider", "json.param.encoding": "utf-8"}
        )
        resolution = providers.resolve(
            {
                "a": f"${{json:{secrets}:password}}",
                "b": f"${{json:{secrets}:port}}",
                "c": f"${{json:{secrets}:user}}",
                "d": f"${{json:{tmp_path}/no.json:x}}",
            }
        )
    finally:
        sys.modules.pop(module, None)
    assert resolution.props["a"] == "hunter2" and resolution.props["b"] == "5432"
    assert resolution.problems == {
        "c": f"${{json:{secrets}:user}}: {secrets} has no key 'user'",
        "d": f"${{json:{tmp_path}/no.json:x}}: cannot read {tmp_path}/no.json: FileNotFoundError",
    }
