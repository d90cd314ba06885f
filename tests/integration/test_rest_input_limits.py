"""What the REST API refuses to take, so that it never stores what it cannot serve back: connector names
beyond 249 characters, with control characters or '/', or that are '.' or '..' even once percent-decoded
(400), request bodies over 1 MiB, declared or
chunked (413); a bad name an older version stored is skipped at start-up; and an unexpected error
answers 500 in Kafka's error shape, without a traceback."""

from __future__ import annotations

import http.client
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from connectworker.config.offsets_path import store_path_for
from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.body_limit import MAX_BODY_BYTES
from tests.broker import Broker
from tests.integration.test_rest_harness import RestWorker, datagen, rest_worker, rest_worker_config


@pytest.fixture(scope="module")
def config(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> WorkerConfig:
    return rest_worker_config(broker.bootstrap_servers, tmp_path_factory.mktemp("rest-limits"))


@pytest.fixture(scope="module")
def api(config: WorkerConfig) -> Iterator[RestWorker]:
    with rest_worker(config) as served:
        yield served


def stored_names(config: WorkerConfig) -> set[str]:
    """The connector names in the store file (what a restart would bring back)."""
    assert config.offset_storage_file_filename is not None
    path = store_path_for(config.offset_storage_file_filename)
    return set(json.loads(path.read_text())["connectors"]) if path.exists() else set()


def quiet(name: str, topic: str) -> dict[str, str]:
    """A connector that produces almost nothing: these tests are about what the API accepts."""
    return datagen(name, topic, rate="1", records="1")


def test_unusable_connector_names_get_400_and_nothing_is_stored(
    api: RestWorker, config: WorkerConfig, unique: str
) -> None:
    huge = "n" * 200_000
    refused = api.client.post("/connectors", json={"name": huge, "config": quiet(huge, f"t-{unique}")})
    assert refused.status_code == 400
    assert refused.json() == {
        "error_code": 400,
        "message": "Connector name must be at most 249 characters; it has 200000",
    }
    by_url = api.client.put(f"/connectors/{'m' * 250}/config", json=quiet("m" * 250, f"t-{unique}"))
    assert by_url.status_code == 400 and "at most 249 characters; it has 250" in by_url.json()["message"]

    bad_names = {
        "line\nbreak": "U+000A at position 5",
        "nul\x00": "U+0000 at position 4",
        "esc\x1b[31m": "U+001B at position 4",
        "c1\x9b": "U+009B at position 3",
        "   ": "must not be empty",
        "a/b": "must not contain '/'",
    }
    unnamed = {k: v for k, v in quiet("x", f"t-{unique}").items() if k != "name"}  # the API adds the name
    for name, problem in bad_names.items():
        posted = api.client.post("/connectors", json={"name": name, "config": unnamed})
        assert posted.status_code == 400 and problem in posted.json()["message"], (name, posted.text)
    for name in ("line\nbreak", "nul\x00", " padded "):
        put = api.client.put(f"/connectors/{quote(name, safe='')}/config", json={"connector.class": "DataGen"})
        assert put.status_code == 400, (name, put.text)
    assert "must not start or end with whitespace" in put.json()["message"]

    longest = f"{unique}-" + "L" * (249 - len(unique) - 1)
    created = api.client.post("/connectors", json={"name": longest, "config": quiet(longest, f"t-{unique}")})
    assert created.status_code == 201, created.text
    assert api.client.get(created.headers["location"]).json()["name"] == longest
    assert api.client.get("/connectors").json() == [longest]
    assert stored_names(config) == {longest}
    assert api.client.delete(f"/connectors/{longest}").status_code == 204
    assert stored_names(config) == set()

    validated = api.client.put(
        "/connector-plugins/DataGen/config/validate", json={"connector.class": "DataGen", "name": "tab\there"}
    )
    errors = {c["value"]["name"]: c["value"]["errors"] for c in validated.json()["configs"]}
    assert "must not contain ISO control characters" in errors["name"][0]


def test_names_a_url_cannot_address_get_400_by_body_and_by_url_and_nothing_is_stored(
    api: RestWorker, config: WorkerConfig, unique: str
) -> None:
    """`..` as a path segment is dropped by URL parsers (and `%2e` is a dot to WHATWG ones): a connector
    so named could be created but never read, changed or deleted."""
    unnamed = {k: v for k, v in quiet("x", f"t-{unique}").items() if k != "name"}
    for name, decoded in (
        (".", None),
        ("..", None),
        ("%2e%2e", ".."),
        ("%2E.", ".."),
        (".%2e", ".."),
        ("%252e%252e", ".."),
    ):
        posted = api.client.post("/connectors", json={"name": name, "config": unnamed})
        shown = repr(name) if decoded is None else f"{name!r} (it decodes to {decoded!r})"
        assert posted.status_code == 400, (name, posted.text)
        assert posted.json() == {
            "error_code": 400,
            "message": f"Connector name {shown} is illegal, it cannot be '.' or '..': a URL path drops such a segment",
        }
    # by URL: sent as written (httpx keeps percent-escapes), the server decodes `%2e%2e` to `..`, and
    # `%252e%252e` (a client quoting '%2e%2e' properly) to '%2e%2e'
    for path, name in (("%2e%2e", ".."), ("%2E.", ".."), ("%2e", "."), ("%252e%252e", "%2e%2e")):
        put = api.client.put(f"/connectors/{path}/config", json={"connector.class": "DataGen"})
        assert put.status_code == 400, (path, put.text)
        assert put.json()["message"].startswith(f"Connector name {name!r}"), put.text
        assert "it cannot be '.' or '..'" in put.json()["message"]
    refused = {".", "..", "%2e%2e", "%2E.", ".%2e", "%252e%252e", "%2e"}
    assert not refused & set(api.client.get("/connectors").json())
    assert not refused & stored_names(config)
    dotted = f"{unique}..v2"  # dots inside a name are fine
    created = api.client.post("/connectors", json={"name": dotted, "config": quiet(dotted, f"t-{unique}")})
    assert created.status_code == 201, created.text
    assert api.client.get(f"/connectors/{dotted}").json()["name"] == dotted
    assert api.client.delete(f"/connectors/{dotted}").status_code == 204


def test_text_and_numbers_that_could_not_be_served_back_get_400(
    api: RestWorker, config: WorkerConfig, unique: str
) -> None:
    """A JSON escape like \\ud800 without its pair decodes to a lone surrogate, which no response, store
    file or log line can encode; NaN and 40 levels of nesting are not JSON a response can carry."""
    unnamed = {k: v for k, v in quiet("x", f"t-{unique}").items() if k not in ("name", "rate")}
    base = json.dumps(unnamed)[1:-1].encode()  # the config's "key": "value" pairs, to add to
    json_headers = {"content-type": "application/json"}
    refused = {
        "name": ("POST", "/connectors", b'{"name": "lone\\ud800", "config": {' + base + b"}}"),
        "key": ("PUT", f"/connectors/k-{unique}/config", b'{"x\\udc00": "1", ' + base + b"}"),
        "value": ("PUT", f"/connectors/v-{unique}/config", b'{"x": "\\udc00", ' + base + b"}"),
        "NaN": ("PUT", f"/connectors/n-{unique}/config", b'{"rate": NaN, ' + base + b"}"),
        "patch": ("PATCH", f"/connectors/p-{unique}/config", b'{"x": "\\ud800"}'),
        "validate": ("PUT", "/connector-plugins/DataGen/config/validate", b'{"topic.pattern": "\\ud800"}'),
        "level": ("PUT", "/admin/loggers/connectworker", b'{"level": "\\ud800"}'),
        "offset": (
            "PATCH",
            f"/connectors/o-{unique}/offsets",
            b'{"offsets": [{"partition": {"file": "\\ud800"}, "offset": {"line": 1}}]}',
        ),
        "NaN offset": (
            "PATCH",
            f"/connectors/o-{unique}/offsets",
            b'{"offsets": [{"partition": {"file": "f"}, "offset": {"line": Infinity}}]}',
        ),
        "deep offset": (
            "PATCH",
            f"/connectors/o-{unique}/offsets",
            b'{"offsets": [{"partition": {"file": "f"}, "offset": {"line": ' + b"[" * 40 + b"]" * 40 + b"}}]}",
        ),
    }
    expected = {
        "name": "name: Value error, must be valid Unicode text, but it has a lone surrogate (\\ud800)",
        "key": "config key 'x\\udc00' must be valid Unicode text",
        "value": "x: Value error, must be valid Unicode text",
        "NaN": "rate: Value error, must be a JSON number, not nan",
        "patch": "x: Value error, must be valid Unicode text",
        "validate": "topic.pattern: Value error, must be valid Unicode text",
        "level": "level: Value error, must be valid Unicode text",
        "offset": "offsets.0.partition: Value error, must be valid Unicode text",
        "NaN offset": "offsets.0.offset: Value error, must be a JSON number, not inf",
        "deep offset": "offsets.0.offset: Value error, must not nest deeper than 32 levels",
    }
    for case, (method, path, body) in refused.items():
        response = api.client.request(method, path, content=body, headers=json_headers)
        assert response.status_code == 400, (case, response.text)
        assert expected[case] in response.json()["message"], (case, response.text)
    assert api.client.get("/connectors").json() == []
    assert stored_names(config) == set()


def _padded_connector(name: str, topic: str, size: int) -> bytes:
    """A valid create request of exactly `size` bytes (JSON allows trailing whitespace)."""
    body = json.dumps({"name": name, "config": quiet(name, topic)}).encode()
    return body + b" " * (size - len(body))


def _in_pieces(body: bytes, piece: int = 64 * 1024) -> Iterator[bytes]:
    """Sent by httpx with chunked transfer encoding: no Content-Length to check up front."""
    for start in range(0, len(body), piece):
        yield body[start : start + piece]


def test_bodies_over_one_mib_get_413_whether_declared_or_chunked(
    api: RestWorker, config: WorkerConfig, unique: str
) -> None:
    assert MAX_BODY_BYTES == 1024 * 1024  # the documented limit
    big, chunked, fits = f"big-{unique}", f"chunked-{unique}", f"fits-{unique}"
    json_headers = {"content-type": "application/json"}
    refusals = [
        api.client.post(
            "/connectors",
            json={"name": big, "config": {**quiet(big, f"t-{unique}"), "padding": "p" * (20 * 1024 * 1024)}},
        ),
        api.client.post(
            "/connectors", headers=json_headers, content=_padded_connector(big, f"t-{unique}", MAX_BODY_BYTES + 1)
        ),
        api.client.put(
            f"/connectors/{chunked}/config",
            headers=json_headers,
            content=_in_pieces(json.dumps({**quiet(chunked, f"t-{unique}"), "padding": "p" * MAX_BODY_BYTES}).encode()),
        ),
    ]
    for response in refusals:
        assert response.status_code == 413, response.text[:500]
        assert response.json() == {
            "error_code": 413,
            "message": "The request body is larger than the limit of 1 MiB (1048576 bytes)",
        }
    assert api.client.get("/connectors").json() == []
    assert stored_names(config) == set()

    # Exactly at the limit passes, in either form, and the connection is still good for more requests.
    at_limit = api.client.post(
        "/connectors", headers=json_headers, content=_padded_connector(fits, f"t-{unique}", MAX_BODY_BYTES)
    )
    assert at_limit.status_code == 201, at_limit.text
    streamed = api.client.put(
        f"/connectors/{chunked}/config",
        headers=json_headers,
        content=_in_pieces(json.dumps(quiet(chunked, f"t-{unique}")).encode()),
    )
    assert streamed.status_code == 201, streamed.text
    assert api.client.get("/connectors").json() == sorted([chunked, fits])
    for name in (chunked, fits):
        assert api.client.delete(f"/connectors/{name}").status_code == 204


def test_a_bad_name_stored_by_an_older_version_is_logged_and_skipped_at_start_up(
    broker: Broker, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    good, huge, newline, dots = f"good-{unique}", "h" * 200_000, "new\nline", "%2e%2e"

    def entry(name: str) -> dict[str, Any]:
        return {"config": quiet(name, f"t-{unique}"), "target_state": "PAUSED", "file_digest": None}

    assert config.offset_storage_file_filename is not None
    store = store_path_for(config.offset_storage_file_filename)
    store.write_text(json.dumps({"version": 1, "connectors": {n: entry(n) for n in (good, huge, newline, dots)}}))
    with caplog.at_level(logging.ERROR), rest_worker(config) as api:
        assert api.client.get("/connectors").json() == [good]
        assert api.client.get(f"/connectors/{good}/status").json()["connector"]["state"] == "PAUSED"
    skipped = [r.getMessage() for r in caplog.records if "from the connector store is not started" in r.getMessage()]
    assert len(skipped) == 3
    assert all(len(message) < 500 and str(store) in message for message in skipped)
    assert any("at most 249 characters; it has 200000" in m for m in skipped)
    assert any("'new\\nline'" in m and "U+000A at position 4" in m for m in skipped)
    assert any("'%2e%2e' (it decodes to '..') is illegal, it cannot be '.' or '..'" in m for m in skipped)
    assert stored_names(config) == {good, huge, newline, dots}  # left for the operator to remove, not lost


def test_an_unexpected_error_answers_500_in_kafkas_shape_with_secrets_hidden(
    api: RestWorker, unique: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, secret = f"pw-{unique}", f"s3cret-{unique}"
    created = api.client.post(
        "/connectors", json={"name": name, "config": {**quiet(name, f"t-{unique}"), "db.password": secret}}
    )
    assert created.status_code == 201

    def broken() -> list[str]:
        raise RuntimeError(f"database said no to {secret}")

    herder = api.server.app.state.herder
    monkeypatch.setattr(herder, "names", broken)
    failed = api.client.get("/connectors")
    assert failed.status_code == 500
    assert failed.json() == {
        "error_code": 500,
        "message": "Unexpected error: RuntimeError: database said no to [hidden]",
    }
    monkeypatch.undo()
    assert api.client.get("/connectors").json() == [name]
    assert api.client.delete(f"/connectors/{name}").status_code == 204


def test_an_idle_keep_alive_connection_outlives_a_clients_own_five_second_expiry(api: RestWorker) -> None:
    """The server keeps an idle connection 30 s, as Kafka Connect's does: a client whose pool forgets idle
    connections after 5 s (httpx) never sends on one the server is closing at that moment."""
    host, port = api.url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request("GET", "/")
        first = conn.getresponse()
        assert first.status == 200 and first.read()
        sock = conn.sock
        time.sleep(6)  # idle past uvicorn's default keep-alive timeout (5 s)
        conn.request("GET", "/")  # on the same connection; a closed one fails with RemoteDisconnected
        second = conn.getresponse()
        assert second.status == 200 and second.read() and conn.sock is sock
    finally:
        conn.close()
