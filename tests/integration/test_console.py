"""The status page as a console, in a real browser (Debian's chromium driven by Playwright) against a
worker on the test broker: records per second that rise while a connector runs, in a page that
refreshes itself without reloading; Pause, Resume, Restart and Delete buttons whose effect the REST API
reports; Delete asking first; a connector name full of HTML shown as text and acted on; and, with REST
basic auth, buttons that work only with credentials."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.broker import Broker
from tests.integration.fixture_connectors import starts
from tests.integration.harness import wait_until
from tests.integration.test_rest_harness import RestWorker, datagen, rest_worker, rest_worker_config, status_of
from tests.integration.test_status_page import CHROMIUM_FLAGS, MARKUP_NAME, chromium  # noqa: F401 (a fixture)

pytestmark = pytest.mark.heavy(seconds=45)

FLAKY = "tests.integration.fixture_connectors.FlakyStartDataGen"
SCREENSHOT = Path(os.environ.get("CONSOLE_SCREENSHOT", "/tmp/connectworker-console.png"))
WAIT_MS = 30_000


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:  # noqa: F811 (the fixture above)
    """One browser for the module (its start costs a few CPU-seconds); each test opens its own contexts."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


def path(name: str) -> str:
    return f"/connectors/{quote(name, safe='')}"


def card(page: Any, name: str) -> Any:
    """The connector's card, found by its name compared as text (it may hold quotes and markup)."""
    return page.locator("section.connector").filter(has=page.get_by_role("heading", name=name, exact=False)).first


def state_of(api: RestWorker, name: str) -> str:
    return str(status_of_quoted(api, name)["connector"]["state"])


def status_of_quoted(api: RestWorker, name: str) -> dict[str, Any]:
    answer = api.client.get(f"{path(name)}/status")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def refused(context: Any, url: str) -> bool:
    """Whether the page at `url` is refused to `context` for its credentials (headless chromium, which
    cannot ask, ends such a navigation with an error; with wrong credentials it may show the 401)."""
    from playwright.sync_api import Error

    try:
        response = context.new_page().goto(url)
    except Error as exc:
        return "ERR_INVALID_AUTH_CREDENTIALS" in str(exc)
    return response is not None and response.status == 401


def rate_of(locator: Any) -> float:
    return float(locator.get_attribute("data-rate") or "0")


def test_rates_rise_while_a_connector_runs_and_pause_resume_act_through_the_api(
    browser: Any, broker: Broker, tmp_path: Path, unique: str
) -> None:
    name = f"orders-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    with rest_worker(config) as api:
        created = api.client.post(
            "/connectors",
            json={"name": name, "initial_state": "PAUSED", "config": datagen(name, f"orders-{unique}", rate="100")},
        )
        assert created.status_code == 201, created.text
        wait_until(lambda: state_of(api, name) == "PAUSED", 30, "the connector to be created PAUSED")
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        assert page.goto(f"{api.url}/ui").status == 200
        page.evaluate("window.sameDocument = true")  # gone if the page were reloaded
        connector = card(page, name)
        assert connector.locator("h2 .state").inner_text() == "PAUSED"
        assert rate_of(connector.locator(".activity .rate")) == 0.0

        connector.locator("button[data-action=resume]").click()
        wait_until(lambda: state_of(api, name) == "RUNNING", 30, "the REST API to report RUNNING")
        expect(page.locator("#console-message")).to_have_text(f"Resume {name}: done", timeout=WAIT_MS)
        page.wait_for_function(
            """name => {
            const section = Array.from(document.querySelectorAll('section.connector'))
                .find(s => s.dataset.connector === name);
            return section && Number(section.querySelector('.activity .rate').dataset.rate) > 0
                && Number(section.querySelector('tr.task .rate').dataset.rate) > 0;
        }""",
            arg=name,
            timeout=WAIT_MS,
        )
        assert page.evaluate("window.sameDocument") is True  # refreshed in place, not reloaded
        page.wait_for_function(
            """name => Array.from(document.querySelectorAll('section.connector'))
            .find(s => s.dataset.connector === name).querySelector('.activity .commit-age')
            .textContent.endsWith('ago')""",
            arg=name,
            timeout=WAIT_MS,
        )
        page.wait_for_function(
            """name => Array.from(document.querySelectorAll('section.connector'))
            .find(s => s.dataset.connector === name).querySelector('.activity svg polyline') !== null""",
            arg=name,
            timeout=WAIT_MS,
        )
        overview = page.locator("#overview").inner_text()
        assert name in overview and "/s" in overview
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT), full_page=True)
        assert SCREENSHOT.stat().st_size > 10_000

        # the keyboard: focus Pause and press Enter; focus stays on it across refreshes
        pause = card(page, name).locator("button[data-action=pause]")
        pause.focus()
        page.keyboard.press("Enter")
        wait_until(lambda: state_of(api, name) == "PAUSED", 30, "the REST API to report PAUSED")
        page.wait_for_function(
            """name => Array.from(document.querySelectorAll('section.connector'))
            .find(s => s.dataset.connector === name).querySelector('h2 .state').textContent === 'PAUSED'""",
            arg=name,
            timeout=WAIT_MS,
        )
        refreshed = page.evaluate("document.getElementById('live').dataset.refreshed")
        page.wait_for_function(
            "before => document.getElementById('live').dataset.refreshed !== before", arg=refreshed, timeout=WAIT_MS
        )
        assert page.evaluate("document.activeElement.dataset.focus") == f"pause:{name}"
        assert page.evaluate("window.sameDocument") is True


def test_restart_buttons_restart_what_they_name_and_a_trace_opens_in_place(
    browser: Any, broker: Broker, tmp_path: Path, unique: str
) -> None:
    name, file = f"flaky-{unique}", tmp_path / "starts.txt"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    flaky = {**datagen(name, f"flaky-{unique}"), "connector.class": FLAKY, "starts.file": str(file), "fail.starts": "2"}
    with rest_worker(config, flaky) as api:
        wait_until(lambda: status_of(api, name)["tasks"][0]["state"] == "FAILED", 30, "the first start to fail")
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{api.url}/ui")
        connector = card(page, name)
        summary = connector.locator("tr.task details.trace summary")
        assert "<b>flaky</b> start 1 failed on purpose" in summary.inner_text()  # shown as text
        assert connector.locator("tr.task b").count() == 0
        summary.press("Enter")  # opens in place, by keyboard
        assert "Traceback (most recent call last)" in connector.locator("tr.task pre.trace").inner_text()

        connector.locator("tr.task button[data-action=restart-task]").click()  # start 2: fails again
        wait_until(lambda: len(starts(file)) == 2, 30, "the task restart")
        wait_until(lambda: status_of(api, name)["tasks"][0]["state"] == "FAILED", 30, "start 2 to fail")

        # the connector's Restart with Kafka's onlyFailed choice: the failed task restarts, and runs (start 3)
        connector = card(page, name)
        connector.locator("select.restart-scope").select_option("includeTasks=true&onlyFailed=true")
        connector.locator("button[data-action=restart]").click()
        wait_until(lambda: len(starts(file)) == 3, 30, "the connector restart's task restart")
        wait_until(lambda: status_of(api, name)["tasks"][0]["state"] == "RUNNING", 30, "the task to run")
        expect(page.locator("#console-message")).to_have_text(
            f"Restart {name} (failed connector and failed tasks only): done", timeout=WAIT_MS
        )

        # with onlyFailed and nothing failed, nothing restarts; "connector and all tasks" restarts the task
        connector = card(page, name)
        connector.locator("select.restart-scope").select_option("includeTasks=true&onlyFailed=false")
        connector.locator("button[data-action=restart]").click()
        wait_until(lambda: len(starts(file)) == 4, 30, "the restart of the connector and its task")
        wait_until(lambda: status_of(api, name)["tasks"][0]["state"] == "RUNNING", 30, "the task to run again")


def test_delete_asks_first_and_a_name_with_html_is_text_and_acted_on(
    browser: Any, broker: Broker, tmp_path: Path, unique: str
) -> None:
    name = f"{MARKUP_NAME}?a=1&b=\"'#%25 {unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    with rest_worker(config) as api:
        created = api.client.post("/connectors", json={"name": name, "config": datagen(name, f"markup-{unique}")})
        assert created.status_code == 201, created.text
        wait_until(lambda: state_of(api, name) == "RUNNING", 30, "the connector to run")
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{api.url}/ui")
        connector = page.locator("section.connector").first
        assert connector.get_attribute("data-connector") == name
        assert connector.locator("h2").inner_text().startswith(name)
        connector.locator("button[data-action=pause]").click()
        wait_until(lambda: state_of(api, name) == "PAUSED", 30, "the markup-named connector to pause")

        asked: list[str] = []

        def dismiss(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", dismiss)
        page.locator("section.connector").first.locator("button[data-action=delete]").click()
        expect(page.locator("#console-message")).to_have_text(f"Delete {name}: cancelled", timeout=WAIT_MS)
        assert asked and asked[0].startswith(f"Delete connector {name}?")
        assert api.client.get(path(name)).status_code == 200  # still there

        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("section.connector").first.locator("button[data-action=delete]").click()
        wait_until(lambda: api.client.get(path(name)).status_code == 404, 30, "the connector to be deleted")
        # a locator's count, not a predicate string: polling a string makes Playwright eval it in the page,
        # which the page's Content-Security-Policy (no 'unsafe-eval') refuses whenever the first check fails
        expect(page.locator("section.connector")).to_have_count(0, timeout=WAIT_MS)
        assert page.evaluate("window.pwned === undefined && document.querySelectorAll('img').length") == 0


@contextmanager
def guarded_worker(broker: Broker, tmp_path: Path, name: str) -> Iterator[RestWorker]:
    """A worker whose REST API asks for basic credentials (admin / secret), running connector `name`."""
    users = tmp_path / "users.properties"
    users.write_text("admin=secret\n")
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"rest.basic.auth.credentials.file": str(users)})
    with rest_worker(config, datagen(name, name), auth=("admin", "secret")) as api:
        wait_until(lambda: state_of(api, name) == "RUNNING", 30, "the connector to run")
        yield api


def test_with_basic_auth_the_buttons_work_only_with_credentials(
    browser: Any, broker: Broker, tmp_path: Path, unique: str
) -> None:
    name = f"guarded-{unique}"
    with guarded_worker(broker, tmp_path, name) as api:
        assert refused(browser.new_context(), f"{api.url}/ui")  # a person's browser would ask for them
        assert refused(
            browser.new_context(http_credentials={"username": "admin", "password": "guess"}), f"{api.url}/ui"
        )

        allowed = browser.new_context(http_credentials={"username": "admin", "password": "secret"})
        page = allowed.new_page()
        assert page.goto(f"{api.url}/ui").status == 200
        # the API itself refuses a request that carries other credentials than the page's
        answer = page.evaluate(
            """url => fetch(url, {method: 'PUT',
                                                      headers: {Authorization: 'Basic ' + btoa('admin:guess')}})
            .then(r => r.status)""",
            f"connectors/{quote(name, safe='')}/pause",
        )
        assert answer == 401 and state_of(api, name) == "RUNNING"
        card(page, name).locator("button[data-action=pause]").click()
        wait_until(lambda: state_of(api, name) == "PAUSED", 30, "the credentialed Pause")
        card(page, name).locator("button[data-action=resume]").click()
        wait_until(lambda: state_of(api, name) == "RUNNING", 30, "the credentialed Resume")


def test_a_page_of_another_site_cannot_act_through_the_browsers_credentials(
    browser: Any, broker: Broker, tmp_path: Path, unique: str
) -> None:
    name = f"guarded-{unique}"
    with guarded_worker(broker, tmp_path, name) as api:
        page = browser.new_context(http_credentials={"username": "admin", "password": "secret"}).new_page()
        # a page that is not the worker's (about:blank here: another origin) posts a plain form to it
        action = f"{api.url}{path(name)}/restart?includeTasks=true"
        page.set_content(f'<form method="post" action="{action}"><button>restart</button></form>')
        with page.expect_navigation() as navigation:
            page.click("button")
        answer = navigation.value
        assert answer is not None and answer.status == 403
        assert "refused: the browser says a page of another site (Sec-Fetch-Site: cross-site)" in answer.text()
        # the same browser and credentials on the worker's own page still act
        assert page.goto(f"{api.url}/ui").status == 200
        card(page, name).locator("button[data-action=pause]").click()
        wait_until(lambda: state_of(api, name) == "PAUSED", 30, "the console's Pause")


def test_a_task_the_automatic_restarts_gave_up_on_says_so_on_the_page(
    browser: Any, broker: Broker, tmp_path: Path, unique: str
) -> None:
    name, file = f"hopeless-{unique}", tmp_path / "starts.txt"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    hopeless = {
        **datagen(name, f"hopeless-{unique}"),
        "connector.class": FLAKY,
        "starts.file": str(file),
        "auto.restart.enabled": "true",
        "auto.restart.max.restarts": "1",
        "auto.restart.backoff.base.ms": "100",
    }
    with rest_worker(config, hopeless) as api:
        wait_until(lambda: "gave up" in (status_of(api, name)["tasks"][0].get("trace") or ""), 30, "the give-up")
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{api.url}/ui")
        task = card(page, name).locator("tr.task")
        assert "auto-restarted 1 time" in task.locator(".auto-restarts").inner_text()
        assert task.locator(".given-up").inner_text() == "automatic restarts gave up"
        assert "automatic restarts: on, at most 1 restart, base 0.1 s" in card(page, name).inner_text()
        task.locator("details.trace summary").click()
        trace = task.locator("pre.trace").inner_text()
        assert "RuntimeError: <b>flaky</b> start 2 failed on purpose" in trace
        assert trace.rstrip().endswith(f"Restart it through the REST API (POST /connectors/{name}/tasks/0/restart).")


def test_stop_then_reset_and_edit_offsets_from_the_page_with_buttons_enabled_by_state(
    browser: Any, broker: Broker, tmp_path: Path, unique: str
) -> None:
    name = f"edited-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path)
    with rest_worker(config, datagen(name, f"edited-{unique}", records="30", rate="0")) as api:
        wait_until(lambda: offsets_of(api, name) == [({"task": 0}, {"seq": 30})], 30, "30 records committed")
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{api.url}/ui")
        connector = card(page, name)

        # RUNNING: Resume and the offset actions are ruled out, and say why instead of sending a request
        resume = connector.locator("button[data-action=resume]")
        assert resume.get_attribute("aria-disabled") == "true"
        assert connector.locator("button[data-action=pause]").get_attribute("aria-disabled") is None
        assert connector.locator("button[data-action=reset-offsets]").get_attribute("aria-disabled") == "true"
        assert connector.locator("details.edit-offsets").count() == 0
        resume.focus()  # aria-disabled keeps it focusable (a browser's own click skips it): press it by keyboard
        page.keyboard.press("Enter")
        expect(page.locator("#console-message")).to_have_text(
            f"Resume {name}: not possible now. Resume applies to a PAUSED or STOPPED connector; this one is RUNNING",
            timeout=WAIT_MS,
        )

        connector.locator("button[data-action=stop]").click()
        wait_until(lambda: state_of(api, name) == "STOPPED", 30, "the REST API to report STOPPED")
        expect(page.locator("#console-message")).to_have_text(f"Stop {name}: done", timeout=WAIT_MS)
        expect(card(page, name).locator("button[data-action=stop]")).to_have_attribute(
            "aria-disabled", "true", timeout=WAIT_MS
        )
        connector = card(page, name)
        for enabled in ("resume", "reset-offsets", "delete"):
            assert connector.locator(f"button[data-action={enabled}]").get_attribute("aria-disabled") is None
        for ruled_out in ("pause", "stop", "restart"):
            assert connector.locator(f"button[data-action={ruled_out}]").get_attribute("aria-disabled") == "true"

        # Edit offsets: a body the connector refuses is said and changes nothing; a good one is stored.
        # The edit survives the page's refreshes while it is being made.
        connector.locator("details.edit-offsets summary").click()
        text = connector.locator("textarea.offsets-text")
        assert json.loads(text.input_value()) == {"offsets": [{"partition": {"task": 0}, "offset": {"seq": 30}}]}
        text.fill('{"offsets": [{"partition": {"task": 0}, "offset": {"seq": "abc"}}]}')
        card(page, name).locator("button[data-action=alter-offsets]").click()
        expect(page.locator("#console-message")).to_contain_text(
            f"Edit offsets of {name} failed: Connector {name} refused the offsets: A DataGen offset is null or",
            timeout=WAIT_MS,
        )
        assert offsets_of(api, name) == [({"task": 0}, {"seq": 30})]
        wait_for_refresh(page)
        text = card(page, name).locator("textarea.offsets-text")
        assert '"abc"' in text.input_value()  # not overwritten by the refresh
        body = {
            "offsets": [
                {"partition": {"task": 0}, "offset": {"seq": 10}},
                {"partition": {"task": 3}, "offset": {"seq": 5}},
            ]
        }
        text.fill(json.dumps(body))
        card(page, name).locator("button[data-action=alter-offsets]").click()
        expect(page.locator("#console-message")).to_have_text(
            f"Edit offsets of {name}: done (The offsets for this connector have been altered successfully)",
            timeout=WAIT_MS,
        )
        assert offsets_of(api, name) == [({"task": 0}, {"seq": 10}), ({"task": 3}, {"seq": 5})]

        # an offset no task of this config would use (task 3 of a one-task connector) is flagged
        unused = card(page, name).locator("table.offsets tr.unused")
        expect(unused).to_have_count(1, timeout=WAIT_MS)
        assert unused.inner_text() == (
            '{"task": 3}\t{"seq": 5}\tunused: the connector runs 1 task(s) (tasks.max), none numbered 3'
        )
        assert card(page, name).locator(".unused-summary").inner_text() == (
            "1 of 2 offsets no task of this configuration would resume from"
        )

        # Reset asks first; then every offset is gone
        page.once("dialog", lambda dialog: dialog.dismiss())
        card(page, name).locator("button[data-action=reset-offsets]").click()
        expect(page.locator("#console-message")).to_have_text(f"Reset offsets of {name}: cancelled", timeout=WAIT_MS)
        assert len(offsets_of(api, name)) == 2
        asked: list[str] = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        card(page, name).locator("button[data-action=reset-offsets]").click()
        wait_until(lambda: offsets_of(api, name) == [], 30, "the offsets to be reset")
        assert asked and asked[0].startswith(f"Reset the offsets of connector {name}?")
        expect(card(page, name).locator("table.offsets")).to_have_count(0, timeout=WAIT_MS)

        # Resume: the task starts again from nothing and commits its 30 records again
        card(page, name).locator("button[data-action=resume]").click()
        wait_until(lambda: offsets_of(api, name) == [({"task": 0}, {"seq": 30})], 30, "a new start from seq 0")


def offsets_of(api: RestWorker, name: str) -> list[tuple[Any, Any]]:
    answer = api.client.get(f"{path(name)}/offsets")
    assert answer.status_code == 200, answer.text
    return [(o["partition"], o["offset"]) for o in answer.json()["offsets"]]


def wait_for_refresh(page: Any) -> None:
    """Until the page's script has swapped in its live part once more."""
    before = page.evaluate("document.getElementById('live').dataset.refreshed || ''")
    page.wait_for_function(
        "before => (document.getElementById('live').dataset.refreshed || '') !== before", arg=before, timeout=WAIT_MS
    )
