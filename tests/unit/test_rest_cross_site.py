"""A change another site's page makes the browser send is refused; the console's own calls, what the
user types, and clients outside a browser are not affected."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.app import create_app
from connectworker.runtime.herder.herder import StandaloneHerder
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.worker import Worker
from tests.unit.test_bad_plugins import _no_gate


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    config = WorkerConfig.from_properties({"offset.storage.file.filename": str(tmp_path / "offsets.json")})
    worker = Worker(config, FileOffsetStore(tmp_path / "offsets.json"), _no_gate)
    return create_app(StandaloneHerder(worker, config), credentials={"admin": "s3cret"})


def send(app: FastAPI, method: str, path: str, site: str | None) -> httpx.Response:
    headers = {"sec-fetch-site": site} if site is not None else {}

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", auth=("admin", "s3cret")) as client:
            return await client.request(method, path, headers=headers)

    return asyncio.run(go())


@pytest.mark.parametrize("site", ["cross-site", "same-site", "Cross-Site"])
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/connectors/orders/restart"),
        ("POST", "/connectors/orders/tasks/0/restart"),
        ("DELETE", "/connectors/orders"),
    ],
)
def test_a_change_sent_for_another_sites_page_is_refused(app: FastAPI, method: str, path: str, site: str) -> None:
    response = send(app, method, path, site)
    assert response.status_code == 403
    message = response.json()["message"]
    assert message.startswith(f"{method} {path} refused: the browser says a page of another site")
    assert "Use the console at /ui" in message


@pytest.mark.parametrize("site", ["same-origin", "none", None])
def test_the_consoles_own_calls_typed_urls_and_other_clients_pass(app: FastAPI, site: str | None) -> None:
    response = send(app, "POST", "/connectors/orders/restart", site)
    assert response.status_code == 404  # reached the route: no connector of that name
    assert "not found" in response.json()["message"]


def test_reading_is_not_refused_to_another_site(app: FastAPI) -> None:
    # CORS keeps the answer from the other site's page; the request itself changes nothing
    response = send(app, "GET", "/connectors", "cross-site")
    assert response.status_code == 200 and response.json() == []


def test_strangers_are_still_asked_for_credentials_first(app: FastAPI) -> None:
    async def go() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            return await client.post("/connectors/orders/restart", headers={"sec-fetch-site": "cross-site"})

    assert asyncio.run(go()).status_code == 401
