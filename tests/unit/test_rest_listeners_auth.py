"""Listener parsing (loopback by default, PEM files for HTTPS) and basic-auth credential checks."""

from __future__ import annotations

import base64
import ssl
from pathlib import Path

import pytest

from connectworker.api.errors import ConfigError
from connectworker.config.listeners import Listener, TlsSettings, load_credentials, parse_listeners
from connectworker.rest.auth import check_basic


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_http_listeners_default_to_loopback_for_an_empty_host() -> None:
    assert parse_listeners("http://127.0.0.1:8083", {}) == [Listener("http", "127.0.0.1", 8083)]
    assert parse_listeners("http://:8083, http://[::1]:0 ,", {}) == [
        Listener("http", "127.0.0.1", 8083),
        Listener("http", "::1", 0),
    ]
    assert parse_listeners("HTTP://0.0.0.0:80", {}) == [Listener("http", "0.0.0.0", 80)]


@pytest.mark.parametrize(
    ("listeners", "fragment"),
    [
        (",", "names no listener"),
        ("ftp://h:1", "is not http"),
        ("http://h", "names no port"),
        ("http://h:99999", "invalid port"),
        ("http://h:1/path", "is not http"),
    ],
)
def test_bad_listeners_are_config_errors(listeners: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment) as info:
        parse_listeners(listeners, {})
    assert "listeners" in info.value.problems


def test_https_needs_pem_files_and_rejects_java_keystores(tmp_path: Path) -> None:
    cert, key, ca = tmp_path / "c.pem", tmp_path / "k.pem", tmp_path / "ca.pem"
    for f in (cert, key, ca):
        f.write_text("pem")
    with pytest.raises(ConfigError, match="needs a PEM certificate"):
        parse_listeners("https://127.0.0.1:8443", {})
    with pytest.raises(ConfigError, match="Java keystores are not supported"):
        parse_listeners("https://127.0.0.1:8443", {"ssl.keystore.location": "/k.jks"})
    with pytest.raises(ConfigError, match="file not found"):
        parse_listeners("https://127.0.0.1:8443", {"ssl.certfile": str(tmp_path / "missing.pem")})
    with pytest.raises(ConfigError, match="needs the CAs"):
        parse_listeners("https://127.0.0.1:8443", {"ssl.certfile": str(cert), "ssl.client.authentication": "required"})
    [listener] = parse_listeners(
        "https://127.0.0.1:8443",
        {
            "ssl.certfile": str(cert),
            "ssl.keyfile": str(key),
            "ssl.key.password": "kp",
            "ssl.cafile": str(ca),
            "ssl.client.authentication": "REQUIRED",
        },
    )
    assert listener.tls == TlsSettings(str(cert), str(key), "kp", str(ca), ssl.CERT_REQUIRED)


def test_credentials_file_is_a_properties_file_of_users(tmp_path: Path) -> None:
    path = tmp_path / "creds.properties"
    path.write_text("# users\nalice=wonder:land\nbob: builder\n")
    credentials = load_credentials(path)
    assert credentials == {"alice": "wonder:land", "bob": "builder"}
    assert check_basic(basic("alice", "wonder:land"), credentials)
    assert check_basic(basic("bob", "builder").replace("Basic", "basic"), credentials)
    assert not check_basic(basic("alice", "wonder"), credentials)
    assert not check_basic(basic("carol", "builder"), credentials)
    for header in (None, "", "Bearer x", "Basic !!!", "Basic " + base64.b64encode(b"no-colon").decode()):
        assert not check_basic(header, credentials)
    path.write_text("# nobody\n")
    with pytest.raises(ConfigError, match="nobody could log in"):
        load_credentials(path)


def test_a_pickled_worker_config_leaves_the_rest_credentials_behind(tmp_path: Path) -> None:
    """A task process or a Spark task gets the worker config pickled: never the REST API's passwords."""
    import pickle

    from connectworker.config.worker_config import WorkerConfig

    path = tmp_path / "credentials.properties"
    path.write_text("admin=s3cret-password\n")
    config = WorkerConfig.from_properties({"rest.basic.auth.credentials.file": str(path)})
    assert config.rest_access.credentials == {"admin": "s3cret-password"}
    data = pickle.dumps(config)
    assert b"s3cret-password" not in data
    copy = pickle.loads(data)
    assert copy.bootstrap_servers == config.bootstrap_servers
    assert copy.rest_access.credentials == {"admin": "s3cret-password"}  # read again where it is asked for
