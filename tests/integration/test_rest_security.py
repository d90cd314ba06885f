"""HTTPS listeners (PEM certificate made here with the openssl CLI) and HTTP basic authentication."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.broker import Broker
from tests.integration.harness import worker_config
from tests.integration.test_rest_harness import datagen, rest_worker


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_https_with_basic_auth_refuses_strangers_and_serves_users(broker: Broker, tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    credentials = tmp_path / "rest-users.properties"
    credentials.write_text("admin=s3cret:with-colon\nviewer=other\n")
    config = worker_config(
        broker.bootstrap_servers,
        tmp_path,
        listeners="https://127.0.0.1:0,http://:0",
        **{
            "listeners.https.ssl.certfile": str(cert),
            "listeners.https.ssl.keyfile": str(key),
            "rest.basic.auth.credentials.file": str(credentials),
        },
    )
    trusted = ssl.create_default_context(cafile=str(cert))
    with rest_worker(config, verify=trusted) as api:
        assert api.url.startswith("https://127.0.0.1:")
        for path in ("/connectors", "/openapi.json", "/"):
            refused = api.client.get(path)
            assert refused.status_code == 401
            assert refused.json() == {"error_code": 401, "message": "User cannot access the resource."}
            assert refused.headers["www-authenticate"] == 'Basic realm="connectworker"'
        assert api.client.get("/connectors", auth=("admin", "wrong")).status_code == 401
        assert api.client.get("/connectors", auth=("nobody", "other")).status_code == 401

        user = ("admin", "s3cret:with-colon")
        assert api.client.get("/connectors", auth=user).json() == []
        created = api.client.post(
            "/connectors", auth=user, json={"name": "tls", "config": datagen("tls", "tls-topic", rate="1")}
        )
        assert created.status_code == 201
        assert created.headers["location"] == f"{api.url}/connectors/tls"
        assert api.client.get("/connectors", auth=("viewer", "other")).json() == ["tls"]

        [plain] = [url for url in api.server.urls if url.startswith("http://")]
        assert plain.startswith("http://127.0.0.1:")  # an empty host binds loopback
        assert httpx.get(f"{plain}/connectors").status_code == 401
        assert httpx.get(f"{plain}/connectors", auth=user).json() == ["tls"]
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(api.url, verify=True)  # really TLS, with the certificate we made
        with pytest.raises(httpx.HTTPError):
            httpx.get(api.url.replace("https://", "http://"), timeout=5).raise_for_status()
        assert api.client.delete("/connectors/tls", auth=user).status_code == 204
