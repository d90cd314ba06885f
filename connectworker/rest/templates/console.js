// The status page's console: refreshes the live part of the page and sends the buttons' requests to
// the REST API. Served from /ui/console.js (the page's Content-Security-Policy allows no other script).
// It inserts only HTML the server rendered (and escaped), and text through textContent; connector names
// come from data- attributes and go into URLs through encodeURIComponent.
(() => {
  "use strict";
  const REFRESH_MS = 2000;
  const live = document.getElementById("live");
  const message = document.getElementById("console-message");
  if (!live || !message) return;
  let refreshing = false;

  function say(text, failed) {
    message.textContent = text;
    message.className = failed ? "failed" : "ok";
  }

  function connectorPath(name, rest) {
    return "connectors/" + encodeURIComponent(name) + rest;
  }

  async function call(method, url, what) {
    let response;
    try {
      response = await fetch(url, { method: method, credentials: "same-origin", headers: { Accept: "application/json" } });
    } catch (error) {
      say(what + " failed: the worker did not answer (" + error.message + ")", true);
      return false;
    }
    if (response.ok) {
      say(what + ": done");
      return true;
    }
    let detail = response.status + " " + response.statusText;
    try {
      const body = await response.json();
      if (body && typeof body.message === "string") detail = body.message;
    } catch (error) {
      // not JSON: the status line says enough
    }
    if (response.status === 401) detail = "the REST API wants credentials: reload the page and log in (" + detail + ")";
    say(what + " failed: " + detail, true);
    return false;
  }

  async function act(button) {
    const name = button.dataset.connector;
    switch (button.dataset.action) {
      case "pause":
        return call("PUT", connectorPath(name, "/pause"), "Pause " + name);
      case "resume":
        return call("PUT", connectorPath(name, "/resume"), "Resume " + name);
      case "restart": {
        const group = button.closest(".actions");
        const scope = group ? group.querySelector("select.restart-scope") : null;
        const query = scope ? scope.value : "includeTasks=false&onlyFailed=false";
        const shown = scope ? scope.options[scope.selectedIndex].text : "connector";
        return call("POST", connectorPath(name, "/restart?" + query), "Restart " + name + " (" + shown + ")");
      }
      case "restart-task": {
        const task = button.dataset.task;
        return call("POST", connectorPath(name, "/tasks/" + encodeURIComponent(task) + "/restart"),
                    "Restart task " + name + "-" + task);
      }
      case "delete":
        if (!window.confirm("Delete connector " + name + "?\n\nIts tasks stop and its configuration is removed " +
                            "from this worker; its committed offsets are kept.")) {
          say("Delete " + name + ": cancelled");
          return false;
        }
        return call("DELETE", connectorPath(name, ""), "Delete " + name);
      default:
        return false;
    }
  }

  // Buttons are never disabled (a disabled button loses the keyboard focus); a second click on a button
  // whose request is still under way is ignored instead.
  const pending = new Set();
  live.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button || !live.contains(button)) return;
    const key = button.dataset.focus;
    if (pending.has(key)) return;
    pending.add(key);
    button.setAttribute("aria-busy", "true");
    try {
      await act(button);
    } finally {
      pending.delete(key);
      button.removeAttribute("aria-busy");
    }
    refresh();
  });

  function byFocusKey(key) {
    for (const element of live.querySelectorAll("[data-focus]")) {
      if (element.dataset.focus === key) return element;
    }
    return null;
  }

  function swap(html) {
    const active = document.activeElement;
    const focused = active && live.contains(active) && active.dataset ? active.dataset.focus : undefined;
    const open = new Set(Array.from(live.querySelectorAll("details[open]"), (d) => d.dataset.key));
    const scopes = new Map(Array.from(live.querySelectorAll("select.restart-scope"), (s) => [s.dataset.connector, s.value]));
    live.innerHTML = html;
    for (const details of live.querySelectorAll("details")) {
      if (open.has(details.dataset.key)) details.open = true;
    }
    for (const select of live.querySelectorAll("select.restart-scope")) {
      if (scopes.has(select.dataset.connector)) select.value = scopes.get(select.dataset.connector);
    }
    if (focused !== undefined) {
      const again = byFocusKey(focused);
      if (again) again.focus({ preventScroll: true });
    }
  }

  async function refresh() {
    const active = document.activeElement;
    if (refreshing || (active && active.tagName === "SELECT" && live.contains(active))) return;  // someone is choosing
    refreshing = true;
    try {
      const response = await fetch("ui/live", { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (response.ok) {
        swap(await response.text());
        live.dataset.refreshed = String(Date.now());
      } else {
        say("Refreshing the page failed: " + response.status + " " + response.statusText, true);
      }
    } catch (error) {
      say("Refreshing the page failed: the worker did not answer (" + error.message + ")", true);
    } finally {
      refreshing = false;
    }
  }

  setInterval(refresh, REFRESH_MS);
})();
