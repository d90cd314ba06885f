"""`connectworker --help` and each command's `--help` show examples with the repository's own files,
kept line by line, and the `CONNECT_*` environment rule; the examples parse, the `plan` ones that need
no cluster run, and the rule's examples are what the worker does."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from connectworker.cli import build_parser, main
from connectworker.config.reference import ENVIRONMENT_RULE, REFERENCE_DOC
from connectworker.config.worker_config import WorkerConfig
from connectworker.config.worker_env import key_for_variable

ROOT = Path(__file__).resolve().parents[2]
DEMO = "connectworker standalone config/worker.properties config/connectors/datagen.properties"
RULE_LINE = "Every worker key can be set by a variable: CONNECT_ + the key upper-cased, with '.' written '_'"


def _leaf_parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command's parser (`standalone`, `plan`, ..., nested ones too), by its words."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _leaf_parsers(child, (*path, name)) or [((*path, name), child)]
    return found


def _help_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args([*argv, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


def _examples(text: str) -> list[str]:
    """The command lines of the `examples:` section, without their `VAR=value` prefixes."""
    section = text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0]
    commands = []
    for line in section.splitlines():
        words = shlex.split(line.strip(), comments=True)
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            words.pop(0)
        if words:
            commands.append(shlex.join(words))
    return commands


def test_connectworker_help_shows_the_demo_and_the_environment_rule() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "connectworker.cli", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"\n  {DEMO}\n" in out  # kept on one line, as typed
    assert RULE_LINE in out
    assert "    CONNECT_BOOTSTRAP_SERVERS=broker:9092             sets bootstrap.servers\n" in out
    assert "Precedence: the variable, then the worker file, then the default." in out
    assert REFERENCE_DOC in out


def test_every_command_shows_examples_and_the_environment_rule(capsys: pytest.CaptureFixture[str]) -> None:
    commands = _leaf_parsers(build_parser())
    assert {words for words, _ in commands} >= {("standalone",), ("plan",), ("spark",)}
    for words, _ in commands:
        out = _help_of(list(words), capsys)
        hint = f"give `connectworker {' '.join(words)}` an epilog=help_epilog(...) in connectworker/cli.py"
        assert "\nexamples:\n  " in out, hint
        assert any(c.startswith("connectworker " + " ".join(words)) for c in _examples(out)), hint
        assert RULE_LINE in out and ENVIRONMENT_RULE.splitlines()[-1] in out, hint


def test_the_examples_parse_and_name_files_of_the_repository(capsys: pytest.CaptureFixture[str]) -> None:
    parser_argv = [[]] + [list(words) for words, _ in _leaf_parsers(build_parser())]
    for argv in parser_argv:
        for command in _examples(_help_of(argv, capsys)):
            words = shlex.split(command)
            assert words[0] == "connectworker", command
            build_parser().parse_args(words[1:])  # exits (status 2) on a wrong example
            for word in words[1:]:
                if word.endswith(".properties"):
                    assert (ROOT / word).is_file(), f"{command}: {word} does not exist"


def test_the_plan_examples_without_a_cluster_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    examples = [c for c in _examples(_help_of(["plan"], capsys)) if "--validate-only" not in c]
    assert len(examples) >= 2
    for command in examples:
        assert main(shlex.split(command)[1:]) == 0, command
        out = capsys.readouterr().out
        assert "orders.eu-west" in out, command
    assert main(shlex.split(examples[0])[1:]) == 0
    assert "CREATE orders.eu-west  rule=eu" in capsys.readouterr().out


def test_the_rules_examples_are_what_the_worker_does(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = re.findall(r"(CONNECT_\w+)=(\S+) +sets (\S+)", ENVIRONMENT_RULE)
    assert len(pairs) >= 3
    for variable, _, key in pairs:
        assert key_for_variable(variable) == key
    file_values = {
        "bootstrap.servers": "from-file:9092",
        "offset.flush.interval.ms": "5",
        "producer.linger.ms": "1",
        "value.converter.schemas.enable": "true",
    }
    for variable, value, _ in pairs:
        monkeypatch.setenv(variable.lower() if "LINGER" in variable else variable, value)  # any case
    config = WorkerConfig.from_properties(file_values)
    assert config.bootstrap_servers == "broker:9092"  # the variable wins over the file
    assert config.offset_flush_interval_ms == 10000
    assert config.prefixed("producer.")["linger.ms"] == "5"
    assert config.prefixed("value.converter.")["schemas.enable"] == "false"
