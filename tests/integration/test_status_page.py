"""`GET /ui`, the status page, against a worker running on the test broker: what a person sees in a real
browser (Debian's chromium driven by Playwright), what it escapes, and its answers to bad input."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.harness import wait_committed, wait_until
from tests.integration.test_rest_harness import RestWorker, datagen, rest_worker, rest_worker_config

pytestmark = pytest.mark.heavy(seconds=20)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOT = Path(__file__).resolve().parents[2] / ".artifacts" / "status-page.png"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RULES = {
    "topic.creation.default.partitions": "1",
    "topic.creation.default.replication.factor": "1",
    "topic.creation.groups": "eu",
    "topic.creation.eu.include": ".*\\.eu-.*",
    "topic.creation.eu.partitions": "3",
    "topic.creation.eu.cleanup.policy": "compact",
}


# A connector name may hold markup (only '/' and control characters are refused): the page must show it as text.
MARKUP_NAME = "<script>window.pwned=1<img src=x onerror=window.pwned=2>broken-"


@pytest.fixture
def page_worker(broker: Broker, tmp_path: Path, unique: str) -> Iterator[tuple[RestWorker, str, str]]:
    """A worker with a RUNNING generator (its topic created by the 'eu' rule) and a FAILED task whose
    connector name and error are HTML."""
    running, failing = f"orders-{unique}", f"{MARKUP_NAME}{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    generator = datagen(running, f"orders.eu-{unique}", records="50", rate="0", **RULES, **{"db.password": "hunter2"})
    broken = {
        **datagen(failing, f"broken-{unique}"),
        "connector.class": "tests.integration.fixture_connectors.MarkupFailingDataGen",
    }
    with rest_worker(config, generator, broken) as api:
        wait_committed(api.worker, running, 50)
        wait_until(lambda: api.worker.get(failing).tasks[0].status.state is State.FAILED, 30, "the task to fail")
        yield api, running, failing


@pytest.fixture(scope="module")
def chromium() -> str:
    """Debian's chromium; checked before a worker is started for it."""
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


def test_the_page_in_a_real_browser_shows_connectors_a_failed_trace_and_a_plan(
    chromium: str, page_worker: tuple[RestWorker, str, str], unique: str
) -> None:
    from playwright.sync_api import sync_playwright

    api, running, failing = page_worker
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            response = page.goto(f"{api.url}/ui")
            assert response is not None and response.status == 200
            assert page.title() == "connectworker status"
            ok = page.locator(f"section.connector[data-connector='{running}']")
            assert ok.locator("h2 .state").inner_text() == "RUNNING"
            assert ok.locator("tr.task .state").inner_text() == "RUNNING"
            created = ok.locator("table.created").inner_text()
            assert f"orders.eu-{unique}" in created and "eu" in created and "cleanup.policy=compact" in created
            assert '{"seq": 50}' in ok.locator("table.offsets").inner_text()
            broken = page.locator(f'section.connector[data-connector="{failing}"]')
            assert broken.locator("h2").inner_text().startswith(failing)  # the name's markup shown as text
            assert broken.locator("tr.task .state").inner_text() == "FAILED"
            summary = broken.locator("tr.task details.trace summary")
            assert "<script>alert('pwned')</script> the source went away" in summary.inner_text()
            assert not broken.locator("tr.task pre.trace").is_visible()  # the trace opens in place
            summary.click()
            trace = broken.locator("tr.task pre.trace").inner_text()
            assert "<script>alert('pwned')</script> the source went away" in trace  # shown as text
            assert "Traceback (most recent call last)" in trace and "RuntimeError" in trace
            overview = page.locator("#overview").inner_text()
            assert running in overview and failing in overview
            # a connector whose only task FAILED stands out where the eye lands first: first row, marked,
            # its badge beside the connector's own RUNNING; the counts say so; the worker itself is healthy
            rows = page.locator("#overview tr.connector-row")
            assert rows.first.get_attribute("data-connector") == failing
            assert rows.first.get_attribute("class") == "connector-row failing"
            assert rows.nth(1).get_attribute("class") == "connector-row"
            assert rows.first.locator("td").nth(2).inner_text() == "RUNNING 1 of 1 task FAILED"
            assert broken.locator("h2 .task-badge").inner_text() == "1 of 1 task FAILED"
            assert page.locator("section.connector").first.get_attribute("data-connector") == failing
            assert page.locator("#summary").inner_text() == "2 connectors: 1 failing (0 FAILED, 1 of 2 tasks FAILED)"
            assert page.locator("#health").inner_text() == "worker: healthy"
            # its config, secrets hidden, opens in place
            config = ok.locator("details.config")
            config.locator("summary").click()
            shown = config.locator("table").inner_text()
            assert "db.password\t[hidden]" in shown and "hunter2" not in page.content()
            assert f"topic.pattern\torders.eu-{unique}" in shown
            assert page.evaluate("window.pwned === undefined && document.querySelectorAll('img').length") == 0
            assert page.evaluate("Array.from(document.scripts, s => s.src)") == [f"{api.url}/ui/console.js"]

            page.select_option("select[name=connector]", running)
            page.fill("input[name=topics]", f"orders.eu-new-{unique}, audit, orders.eu-{unique}")
            page.click("button[type=submit]")
            page.wait_for_url("**/ui?connector=*")
            rows = {
                r.locator("td").first.inner_text(): r.locator("td").all_inner_texts()
                for r in page.locator("#plan-result tr").all()[1:]
            }
            assert rows[f"orders.eu-new-{unique}"][:5] == [f"orders.eu-new-{unique}", "create", "eu", "3", "1"], rows
            assert "cleanup.policy=compact" in rows[f"orders.eu-new-{unique}"][5]
            assert rows["audit"][:5] == ["audit", "create", "default", "1", "1"], rows
            assert rows[f"orders.eu-{unique}"][1] == "exists", rows
            assert page.locator("select[name=connector]").input_value() == running  # the form keeps its input
            SCREENSHOT.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOT), full_page=True)
        finally:
            browser.close()
    assert SCREENSHOT.stat().st_size > 10_000
    print(f"screenshot: {SCREENSHOT}")


def test_the_page_escapes_and_answers_bad_plan_input_with_4xx(page_worker: tuple[RestWorker, str, str]) -> None:
    api, running, failing = page_worker
    page = api.client.get("/ui")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert policy.startswith("default-src 'none'") and "script-src 'self';" in policy  # only the page's own script
    assert "unsafe-inline" not in policy.split("script-src", 1)[1].split(";", 1)[0]
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in page.text  # the trace
    assert "&lt;script&gt;window.pwned=1&lt;img src=x onerror=window.pwned=2&gt;broken-" in page.text  # the name
    assert page.text.count("<script") == 1 and '<script src="ui/console.js" defer></script>' in page.text
    assert "<img" not in page.text

    def plan(status: int, **params: str) -> str:
        answer = api.client.get("/ui", params=params)
        assert answer.status_code == status, answer.text
        assert answer.headers["content-type"].startswith("text/html")
        assert answer.text.count("Traceback") == page.text.count("Traceback") == 1  # the failed task's, only
        return answer.text

    assert "Connector &lt;b&gt;nope&lt;/b&gt; not found." in plan(404, connector="<b>nope</b>", topics="a")
    assert "Choose a connector" in plan(400, connector=" ", topics="a")
    assert "Choose a connector" in plan(400, topics="a")
    assert "Name at least one topic" in plan(400, connector=running, topics=" , ")
    assert "Name at least one topic" in plan(400, connector=running)
    assert "Name at most 100 topics" in plan(400, connector=running, topics=",".join(f"t{i}" for i in range(101)))
    assert "too long" in plan(400, connector=running, topics="a" * 20_001)
    illegal = plan(400, connector=running, topics="fine, <b>bad</b>, .., " + "x" * 250)
    assert "Not a legal Kafka topic name" in illegal and 'id="plan-result"' not in illegal
    assert "Topic name &#39;&lt;b&gt;bad&lt;/b&gt;&#39; is illegal" in illegal
    assert "Topic name cannot be &#34;.&#34; or &#34;..&#34;" in illegal
    assert "can&#39;t be longer than 249 characters" in illegal
    assert "<b>" not in illegal
    # The markup-named connector plans like any other; its name comes back escaped in the form.
    ok = plan(200, connector=failing, topics="audit")
    assert 'id="plan-result"' in ok and ok.count("<script") == 1


def test_the_page_needs_the_apis_credentials(broker: Broker, tmp_path: Path) -> None:
    credentials = tmp_path / "users.properties"
    credentials.write_text("admin=secret\n")
    config = rest_worker_config(
        broker.bootstrap_servers, tmp_path, **{"rest.basic.auth.credentials.file": str(credentials)}
    )
    with rest_worker(config) as api:
        refused = httpx.get(f"{api.url}/ui", timeout=10)
        wrong = httpx.get(f"{api.url}/ui", auth=("admin", "guess"), timeout=10)
        plan_refused = httpx.get(f"{api.url}/ui", params={"connector": "x", "topics": "a"}, timeout=10)
        allowed = httpx.get(f"{api.url}/ui", auth=("admin", "secret"), timeout=10)
    assert refused.status_code == wrong.status_code == plan_refused.status_code == 401
    assert "connectworker status" not in refused.text + wrong.text + plan_refused.text
    assert allowed.status_code == 200 and "No connectors." in allowed.text
