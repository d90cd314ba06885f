"""The worker keys that declare config providers (`config.providers`, `config.providers.<name>.class`,
`config.providers.<name>.param.*`), and references in the worker config itself: resolved when it is
loaded, or refused naming the key (or variable), the reference and what is wrong, never the value."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Set
from pathlib import Path

import pytest

from connectworker.api import ConfigError, ConfigProvider
from connectworker.config.providers import (
    DirectoryConfigProvider,
    EnvVarConfigProvider,
    FileConfigProvider,
    open_config_providers,
)
from connectworker.config.worker_config import WorkerConfig

SECRET = "s3cr3t-Pa55word"
KAFKA = "org.apache.kafka.common.config.provider."
opened: list[dict[str, str]] = []


class VaultProvider(ConfigProvider):
    """A provider of one's own: answers `<path>/<key>` from a configured token."""

    def configure(self, configs: Mapping[str, str]) -> None:
        if "token" not in configs:
            raise ConfigError({"token": "required: the vault token"})
        opened.append(dict(configs))

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        return {key: f"{path}/{key}" for key in keys}


class NotAProvider:
    pass


class ExplodingProvider(VaultProvider):
    def configure(self, configs: Mapping[str, str]) -> None:
        raise RuntimeError("cannot reach the vault")


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    path = tmp_path / "db.properties"
    path.write_text(f"password={SECRET}\ntimeout=1234\n")
    return path


def _worker(tmp_path: Path, **props: str) -> WorkerConfig:
    return WorkerConfig.from_properties(
        {"offset.storage.file.filename": str(tmp_path / "offsets.json"), **props}, source="worker.properties"
    )


# -- declaring providers ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("class_name", "expected"),
    [
        (f"{KAFKA}FileConfigProvider", FileConfigProvider),
        ("FileConfigProvider", FileConfigProvider),
        ("File", FileConfigProvider),
        (f"{KAFKA}EnvVarConfigProvider", EnvVarConfigProvider),
        ("EnvVar", EnvVarConfigProvider),
        (f"{KAFKA}DirectoryConfigProvider", DirectoryConfigProvider),
        ("connectworker.config.providers.DirectoryConfigProvider", DirectoryConfigProvider),
    ],
)
def test_kafkas_class_names_and_aliases_name_the_built_in_providers(class_name: str, expected: type) -> None:
    providers = open_config_providers(["p"], {"p.class": class_name})
    assert providers.names == ["p"]
    assert type(providers._providers["p"]) is expected


@pytest.mark.parametrize("class_name", [f"{__name__}.VaultProvider", f"{__name__}:VaultProvider"])
def test_a_python_provider_is_loaded_by_path_and_configured_with_its_params(class_name: str) -> None:
    opened.clear()
    providers = open_config_providers(
        ["vault"],
        {"vault.class": class_name, "vault.param.token": "t0k3n", "vault.param.address.url": "https://vault:8200"},
    )
    assert opened == [{"token": "t0k3n", "address.url": "https://vault:8200"}]  # without the prefix
    assert providers.resolve({"pw": "${vault:db:password}"}).props == {"pw": "db/password"}


@pytest.mark.parametrize(
    ("names", "settings", "key", "message"),
    [
        (
            ["vault"],
            {},
            "config.providers.vault.class",
            f"missing: config.providers names the provider vault, which needs a class, e.g. {KAFKA}FileConfigProvider",
        ),
        (
            ["vault"],
            {"vault.class": "no_such_module.Vault"},
            "config.providers.vault.class",
            "Class no_such_module.Vault (cannot import no_such_module: No module named 'no_such_module') could not be "
            f"found: use one of Kafka's providers ({KAFKA}FileConfigProvider, {KAFKA}EnvVarConfigProvider, "
            f"{KAFKA}DirectoryConfigProvider) or the Python path module.Class of a connectworker.api.ConfigProvider "
            "subclass (directories in plugin.path are searched)",
        ),
        (
            ["vault"],
            {"vault.class": f"{__name__}.NotAProvider"},
            "config.providers.vault.class",
            f"{__name__}.NotAProvider is not a subclass of connectworker.api.ConfigProvider",
        ),
        (
            ["vault"],
            {"vault.class": "connectworker.api.ConfigProvider"},
            "config.providers.vault.class",
            "connectworker.api.ConfigProvider does not implement ConfigProvider's abstract method(s) get",
        ),
        (
            ["vault"],
            {"vault.class": f"{__name__}.VaultProvider"},
            "config.providers.vault.param.token",
            "required: the vault token",
        ),
        (
            ["file"],
            {"file.class": "File", "file.param.allowed.paths": "etc/secrets"},
            "config.providers.file.param.allowed.paths",
            "Path etc/secrets is not absolute",
        ),
        (["a:b"], {}, "config.providers", "'a:b' cannot name a provider"),
    ],
)
def test_a_provider_that_cannot_be_built_is_refused_naming_its_key(
    names: list[str], settings: dict[str, str], key: str, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        open_config_providers(names, settings, source="worker.properties")
    assert list(caught.value.problems) == [key]
    assert caught.value.problems[key].startswith(message)
    assert str(caught.value).startswith("Invalid configuration in worker.properties:")


def test_a_provider_whose_configure_raises_is_refused_naming_its_class() -> None:
    with pytest.raises(ConfigError) as caught:
        open_config_providers(["vault"], {"vault.class": f"{__name__}.ExplodingProvider"})
    assert caught.value.problems["config.providers.vault.class"].startswith(
        f"{__name__}.ExplodingProvider.configure() raised RuntimeError: cannot reach the vault"
    )


def test_provider_keys_of_names_not_listed_are_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        open_config_providers(["file"], {"file.class": "File", "fiel.class": "File", "file.params.x": "1"})
    assert "config.providers.fiel.class is ignored: config.providers does not name the provider fiel" in caplog.text
    assert "config.providers.file.params.x is ignored: a provider takes only .class and .param.* keys" in caplog.text


# -- references in the worker config ------------------------------------------------------------------
def test_worker_keys_are_resolved_when_the_config_is_loaded(
    tmp_path: Path, db_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        config = _worker(
            tmp_path,
            **{
                "config.providers": "file",
                "config.providers.file.class": f"{KAFKA}FileConfigProvider",
                "producer.sasl.password": f"${{file:{db_file}:password}}",
                "offset.flush.timeout.ms": f"${{file:{db_file}:timeout}}",
            },
        )
    assert config.config_providers == ["file"]
    assert config.prefixed("producer.") == {"sasl.password": SECRET}
    assert config.offset_flush_timeout_ms == 1234  # validated once resolved, as Kafka does
    assert config.provider_values == {SECRET, "1234"}  # for the log redaction
    assert "not implement" not in caplog.text and "Unknown worker configuration key" not in caplog.text


def test_worker_keys_set_by_variables_are_resolved_too(
    tmp_path: Path, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONNECT_CONFIG_PROVIDERS", "file")
    monkeypatch.setenv("CONNECT_CONFIG_PROVIDERS_FILE_CLASS", "FileConfigProvider")
    monkeypatch.setenv("CONNECT_PRODUCER_SASL_PASSWORD", f"${{file:{db_file}:password}}")
    monkeypatch.setenv("CONNECT_OFFSET_FLUSH_TIMEOUT_MS", f"${{file:{db_file}:timeout}}")
    config = _worker(tmp_path)
    assert config.prefixed("producer.") == {"sasl.password": SECRET}
    assert config.offset_flush_timeout_ms == 1234


def test_an_unresolvable_worker_reference_is_refused_naming_key_and_reference_never_the_value(
    tmp_path: Path, db_file: Path
) -> None:
    missing = tmp_path / "missing.properties"
    with pytest.raises(ConfigError) as caught:
        _worker(
            tmp_path,
            **{
                "config.providers": "file",
                "config.providers.file.class": "File",
                "producer.sasl.password": f"${{file:{missing}:password}}",
                "producer.sasl.username": f"${{file:{db_file}:username}}",
                "bootstrap.timeout.ms": f"${{file:{missing}:timeout}}",
            },
        )
    assert caught.value.problems == {
        "producer.sasl.password": f"cannot be resolved: ${{file:{missing}:password}}: cannot read the properties "
        f"file {missing}: No such file or directory",
        "producer.sasl.username": f"cannot be resolved: ${{file:{db_file}:username}}: {db_file} has no key 'username'",
        "bootstrap.timeout.ms": f"cannot be resolved: ${{file:{missing}:timeout}}: cannot read the properties "
        f"file {missing}: No such file or directory",
    }
    assert caught.value.source == "worker.properties" and SECRET not in str(caught.value)


def test_an_unresolvable_reference_in_a_variable_is_blamed_on_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONNECT_PRODUCER_SASL_PASSWORD", "${env:CW_TEST_UNSET_VARIABLE}")
    with pytest.raises(ConfigError) as caught:
        _worker(tmp_path, **{"config.providers": "env", "config.providers.env.class": "EnvVar"})
    assert caught.value.problems == {
        "CONNECT_PRODUCER_SASL_PASSWORD (sets producer.sasl.password)": "cannot be resolved: "
        "${env:CW_TEST_UNSET_VARIABLE}: the environment variable CW_TEST_UNSET_VARIABLE is not set"
    }
    assert caught.value.source == "worker.properties and the environment"


def test_a_worker_reference_to_a_provider_not_declared_is_used_as_written_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        config = _worker(
            tmp_path,
            **{
                "config.providers": "env",
                "config.providers.env.class": "EnvVar",
                "producer.sasl.password": "${vault:db:password}",
            },
        )
    assert config.prefixed("producer.") == {"sasl.password": "${vault:db:password}"}
    assert (
        "${vault:db:password} in producer.sasl.password names no provider of config.providers (env); it is "
        "used as written"
    ) in caplog.text


def test_without_config_providers_references_are_plain_text(tmp_path: Path) -> None:
    config = _worker(tmp_path, **{"producer.sasl.password": "${file:/x:y}"})
    assert config.prefixed("producer.") == {"sasl.password": "${file:/x:y}"}
    assert config.open_config_providers().names == []
