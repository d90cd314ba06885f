"""Config providers: the `${provider:[path:]key}` syntax (Kafka's pattern), resolving a config with them,
and Kafka's three built-in providers with their parameters, as an operator sees them: the values, or a
message naming the reference and what is wrong, never the value."""

from __future__ import annotations

import os
from collections.abc import Mapping, Set
from pathlib import Path

import pytest

from connectworker.api import ConfigError, ConfigProvider
from connectworker.config.providers import (
    ConfigProviders,
    DirectoryConfigProvider,
    EnvVarConfigProvider,
    FileConfigProvider,
    UnresolvedReferenceError,
    is_reference_only,
    references,
    shown_message,
)

SECRET = "s3cr3t-Pa55word"


def _file_provider(**params: str) -> FileConfigProvider:
    provider = FileConfigProvider()
    provider.configure(params)
    return provider


def _directory_provider(**params: str) -> DirectoryConfigProvider:
    provider = DirectoryConfigProvider()
    provider.configure(params)
    return provider


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    path = tmp_path / "db.properties"
    path.write_text(f"user=admin\npassword={SECRET}\nescaped=a\\=b\\u00e9\n", encoding="utf-8")
    return path


# -- the syntax ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("${file:/etc/db.properties:password}", [("file", "/etc/db.properties", "password")]),
        ("${env:DB_PASSWORD}", [("env", "", "DB_PASSWORD")]),
        ("${directory:/run/secrets:db-password}", [("directory", "/run/secrets", "db-password")]),
        # Kafka's lazy groups: the path ends at the second ':', the key takes the rest
        ("${vault:secret/db:pass:word}", [("vault", "secret/db", "pass:word")]),
        ("jdbc:pg://${env:HOST}:5432/${env:DB}", [("env", "", "HOST"), ("env", "", "DB")]),
        ("${nocolon}", []),
        ("$env:X}", []),
    ],
)
def test_references_follow_kafkas_pattern(value: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(r.provider, r.path, r.key) for r in references(value)] == expected


def test_a_value_made_only_of_references_is_a_reference_not_a_secret() -> None:
    assert is_reference_only("${file:/etc/db.properties:password}")
    assert is_reference_only("${env:USER}${env:PASS}")
    assert not is_reference_only("pw-${env:PASS}")
    assert not is_reference_only("")
    assert not is_reference_only("hunter2")


# -- resolving -------------------------------------------------------------------------------------
class CountingProvider(ConfigProvider):
    """Answers every key with `<path>/<key>` except "absent"; records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, frozenset[str]]] = []

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        self.calls.append((path, frozenset(keys)))
        return {key: f"{path}/{key}" for key in keys if key != "absent"}


class FailingProvider(ConfigProvider):
    def __init__(self, error: Exception) -> None:
        self.error = error

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        raise self.error


def test_every_key_of_one_path_is_fetched_with_one_call_and_replaced_in_place() -> None:
    counting = CountingProvider()
    resolution = ConfigProviders({"p": counting}).resolve(
        {"a": "${p:one:x}", "b": "pre-${p:one:y}-post", "c": "${p:two:x}", "plain": "value"}
    )
    assert resolution.props == {"a": "one/x", "b": "pre-one/y-post", "c": "two/x", "plain": "value"}
    assert sorted(counting.calls) == [("one", frozenset({"x", "y"})), ("two", frozenset({"x"}))]
    assert resolution.values == {"one/x", "one/y", "two/x"}
    assert resolution.resolved_keys == {"a", "b", "c"} and not resolution.problems


def test_a_reference_to_a_provider_not_configured_is_left_as_written() -> None:
    resolution = ConfigProviders({"p": CountingProvider()}).resolve({"a": "${vault:db:pw}", "b": "${p::k}"})
    assert resolution.props == {"a": "${vault:db:pw}", "b": "/k"}
    assert resolution.unknown == {"a": ["${vault:db:pw}"]} and not resolution.problems
    assert resolution.check() == resolution.props


def test_a_missing_key_is_a_problem_naming_the_reference_and_the_config_key() -> None:
    resolution = ConfigProviders({"p": CountingProvider()}).resolve({"db.password": "${p:/x:absent}"})
    assert resolution.props == {"db.password": "${p:/x:absent}"}  # left as written, never half-resolved
    assert resolution.problems == {"db.password": "${p:/x:absent}: no value for 'absent' at /x"}
    with pytest.raises(UnresolvedReferenceError) as caught:
        resolution.check(source="connector db")
    assert str(caught.value) == (
        "Invalid configuration in connector db:\n"
        "  db.password: cannot be resolved: ${p:/x:absent}: no value for 'absent' at /x"
    )


def test_a_provider_that_raises_fails_each_reference_to_that_path_with_its_message() -> None:
    providers = ConfigProviders(
        {
            "refusing": FailingProvider(ConfigError("the vault is sealed")),
            "broken": FailingProvider(RuntimeError("boom")),
        }
    )
    resolution = providers.resolve({"a": "${refusing:db:pw}", "b": "${refusing:db:user}", "c": "${broken:k}"})
    assert resolution.problems["a"] == "${refusing:db:pw}: the vault is sealed"
    assert resolution.problems["b"] == "${refusing:db:user}: the vault is sealed"
    assert resolution.problems["c"].startswith("${broken:k}: provider broken raised RuntimeError: boom")


def test_closing_closes_every_provider_even_when_one_raises(caplog: pytest.LogCaptureFixture) -> None:
    closed: list[str] = []

    class Closing(CountingProvider):
        def __init__(self, name: str, fail: bool) -> None:
            super().__init__()
            self.name, self.fail = name, fail

        def close(self) -> None:
            closed.append(self.name)
            if self.fail:
                raise OSError("socket gone")

    ConfigProviders({"a": Closing("a", True), "b": Closing("b", False)}).close()
    assert closed == ["a", "b"]
    assert "Config provider a raised from close(): OSError: socket gone" in caplog.text


def test_a_message_about_resolved_values_names_the_references_instead() -> None:
    raw = {"port": "${env:PORT}", "url": "${file:/x:url}"}
    resolved = {"port": "80a", "url": "https://u:" + SECRET + "@h"}
    message = f"Invalid value '80a' for port; cannot reach https://u:{SECRET}@h; password {SECRET} refused"
    shown = shown_message(message, raw, resolved, values={"80a", resolved["url"], SECRET})
    assert shown == ("Invalid value '${env:PORT}' for port; cannot reach ${file:/x:url}; password [hidden] refused")


# -- FileConfigProvider -------------------------------------------------------------------------------
def test_the_file_provider_reads_keys_of_a_java_properties_file(db_file: Path) -> None:
    got = _file_provider().get(str(db_file), {"password", "escaped", "nope"})
    assert got == {"password": SECRET, "escaped": "a=bé"}
    assert _file_provider().describe_missing(str(db_file), "nope") == f"{db_file} has no key 'nope'"


def test_the_file_provider_names_a_missing_file_without_any_value(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError,
        match=r"cannot read the properties file /nonexistent/db.properties: "
        r"No such file or directory",
    ):
        _file_provider().get("/nonexistent/db.properties", {"password"})
    with pytest.raises(ConfigError, match="needs the file's path"):
        _file_provider().get("", {"password"})
    binary = tmp_path / "binary.properties"
    binary.write_bytes(b"password=\xff\xfe" + SECRET.encode())
    with pytest.raises(ConfigError) as caught:
        _file_provider().get(str(binary), {"password"})
    assert "is not a UTF-8 Java properties file" in str(caught.value) and SECRET not in str(caught.value)


def test_allowed_paths_admit_paths_below_them_and_refuse_others_normalised(tmp_path: Path, db_file: Path) -> None:
    allowed = tmp_path / "secrets"
    allowed.mkdir()
    inside = allowed / "db.properties"
    inside.write_text(f"password={SECRET}\n")
    other = tmp_path / "other"
    other.mkdir()
    provider = _file_provider(**{"allowed.paths": f"{other}/,{allowed}/../secrets"})  # normalised too
    assert provider.get(str(inside), {"password"}) == {"password": SECRET}
    assert provider.get(f"{allowed}/./sub/../db.properties", {"password"}) == {"password": SECRET}
    for outside in (str(db_file), f"{allowed}/../db.properties", f"{allowed}-other/db.properties", "db.properties"):
        with pytest.raises(
            ConfigError,
            match=rf"the path {outside} is outside the provider's allowed.paths "
            rf"\({other}, {allowed}\)",
        ):
            provider.get(outside, {"password"})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("relative/dir", "Path relative/dir is not absolute"),
        ("/nonexistent/secrets", "Path /nonexistent/secrets does not exist"),
    ],
)
def test_allowed_paths_must_be_absolute_and_exist_as_in_kafka(value: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _file_provider(**{"allowed.paths": value})
    assert caught.value.problems == {"allowed.paths": message}


# -- DirectoryConfigProvider --------------------------------------------------------------------------
def test_the_directory_provider_reads_whole_files_named_by_the_keys(tmp_path: Path) -> None:
    (tmp_path / "db-password").write_text(SECRET + "\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner").write_text("x")
    os.symlink(tmp_path / "db-password", tmp_path / "linked")
    got = _directory_provider().get(str(tmp_path), {"db-password", "linked", "sub", "sub/inner", "../x", "none"})
    assert got == {"db-password": SECRET + "\n", "linked": SECRET + "\n"}  # as Kafka: the trailing newline kept
    assert (
        _directory_provider().describe_missing(str(tmp_path), "sub/inner")
        == f"{tmp_path} has no regular file named 'sub/inner'"
    )


def test_the_directory_provider_names_a_path_that_is_no_directory(tmp_path: Path, db_file: Path) -> None:
    with pytest.raises(ConfigError, match=f"{db_file} is not a directory"):
        _directory_provider().get(str(db_file), {"password"})
    with pytest.raises(ConfigError, match=f"cannot read the directory {tmp_path}/none: No such file or directory"):
        _directory_provider().get(str(tmp_path / "none"), {"password"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    allowed = tmp_path / "secrets"
    allowed.mkdir()
    with pytest.raises(ConfigError, match=r"is outside the provider's allowed\.paths"):
        _directory_provider(**{"allowed.paths": str(allowed)}).get(str(elsewhere), {"x"})


# -- EnvVarConfigProvider -----------------------------------------------------------------------------
def test_the_env_provider_reads_variables_the_allowlist_pattern_matches_whole() -> None:
    environ = {"DB_PASSWORD": SECRET, "DB_PASSWORD_OLD": "old", "HOME": "/root"}
    provider = EnvVarConfigProvider(environ)
    provider.configure({"allowlist.pattern": "DB_PASSWORD"})
    assert provider.get("", {"DB_PASSWORD", "DB_PASSWORD_OLD", "HOME", "UNSET"}) == {"DB_PASSWORD": SECRET}
    assert (
        provider.describe_missing("", "HOME")
        == "the environment variable HOME does not match allowlist.pattern (DB_PASSWORD)"
    )
    assert provider.describe_missing("", "UNSET") == "the environment variable UNSET is not set"
    everything = EnvVarConfigProvider(environ)
    everything.configure({})
    assert everything.get("", {"HOME"}) == {"HOME": "/root"}


def test_the_env_provider_refuses_a_path_and_a_bad_pattern_with_kafkas_message() -> None:
    provider = EnvVarConfigProvider({})
    provider.configure({})
    with pytest.raises(ConfigError, match="Path is not supported for EnvVarConfigProvider, invalid value '/etc'"):
        provider.get("/etc", {"X"})
    with pytest.raises(ConfigError) as caught:
        provider.configure({"allowlist.pattern": "DB_("})
    assert list(caught.value.problems) == ["allowlist.pattern"]
    assert "'DB_(' is not a regular expression" in caught.value.problems["allowlist.pattern"]


def test_the_env_provider_reads_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CW_TEST_SECRET", SECRET)
    provider = EnvVarConfigProvider()
    provider.configure({})
    assert ConfigProviders({"env": provider}).resolve({"k": "${env:CW_TEST_SECRET}"}).props == {"k": SECRET}
