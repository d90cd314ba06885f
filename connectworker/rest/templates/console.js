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

  async function messageOf(response) {
    try {
      const body = await response.json();
      if (body && typeof body.message === "string") return body.message;
    } catch (error) {
      // no JSON body (a 202 or 204): the caller's words say enough
    }
    return null;
  }

  // `body`, when given, is JSON text sent as it is: the API checks it and says what is wrong.
  async function call(method, url, what, body) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(url, { method: method, credentials: "same-origin", headers: headers, body: body });
    } catch (error) {
      say(what + " failed: the worker did not answer (" + error.message + ")", true);
      return false;
    }
    if (response.ok) {
      const said = await messageOf(response);
      say(what + ": done" + (said ? " (" + said + ")" : ""));
      return true;
    }
    let detail = (await messageOf(response)) || response.status + " " + response.statusText;
    if (response.status === 401) detail = "the REST API wants credentials: reload the page and log in (" + detail + ")";
    say(what + " failed: " + detail, true);
    return false;
  }

  // A request that destroys something: sent only once the person confirms `question`.
  async function askFirst(question, method, url, what) {
    if (!window.confirm(question)) {
      say(what + ": cancelled");
      return false;
    }
    return call(method, url, what);
  }

  async function act(button) {
    const name = button.dataset.connector;
    switch (button.dataset.action) {
      case "pause":
        return call("PUT", connectorPath(name, "/pause"), "Pause " + name);
      case "resume":
        return call("PUT", connectorPath(name, "/resume"), "Resume " + name);
      case "stop":
        return call("PUT", connectorPath(name, "/stop"), "Stop " + name);
      case "reset-offsets":
        return askFirst("Reset the offsets of connector " + name + "?\n\nEvery committed offset is removed: when " +
                        "it is resumed, its tasks start from the beginning as the connector defines it.",
                        "DELETE", connectorPath(name, "/offsets"), "Reset offsets of " + name);
      case "alter-offsets": {
        const text = button.closest("details").querySelector("textarea.offsets-text");
        const done = await call("PATCH", connectorPath(name, "/offsets"), "Edit offsets of " + name, text.value);
        if (done) text.defaultValue = text.value;  // saved: the next refresh shows the stored offsets
        return done;
      }
      case "restart": {
        const group = button.closest(".actions");
        const scope = group ? group.querySelector("select.restart-scope") : null;
        const query = scope ? scope.value : "includeTasks=false&onlyFailed=false";
        const shown = scope ? scope.options[scope.selectedIndex].text : "connector";
        return call("POST", connectorPath(name, "/restart?" + query), "Restart " + name + " (" + shown + ")");
      }
      case "signal": {  // a button the task's progress asked for: its signal, as the page rendered it
        const task = button.dataset.task;
        return call("POST", connectorPath(name, "/tasks/" + encodeURIComponent(task) + "/signals"),
                    button.textContent + " (task " + name + "-" + task + ")", button.dataset.signal);
      }
      case "restart-task": {
        const task = button.dataset.task;
        return call("POST", connectorPath(name, "/tasks/" + encodeURIComponent(task) + "/restart"),
                    "Restart task " + name + "-" + task);
      }
      case "delete":
        return askFirst("Delete connector " + name + "?\n\nIts tasks stop and its configuration is removed " +
                        "from this worker; its committed offsets are kept.",
                        "DELETE", connectorPath(name, ""), "Delete " + name);
      default:
        return false;
    }
  }

  // Buttons are never `disabled` (a disabled button loses the keyboard focus): one the connector's state
  // rules out is aria-disabled, and says why when pressed; a second click on a button whose request is
  // still under way is ignored.
  const pending = new Set();
  live.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button || !live.contains(button)) return;
    if (button.getAttribute("aria-disabled") === "true") {  // kept focusable; its title says why
      say(button.textContent + " " + button.dataset.connector + ": not possible now. " + button.title, true);
      return;
    }
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
    const edited = new Map(Array.from(live.querySelectorAll("textarea"))  // unsaved edits survive a refresh
      .filter((t) => t.value !== t.defaultValue).map((t) => [t.dataset.key, t.value]));
    live.innerHTML = html;
    for (const textarea of live.querySelectorAll("textarea")) {
      if (edited.has(textarea.dataset.key)) textarea.value = edited.get(textarea.dataset.key);
    }
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
    const choosing = active && (active.tagName === "SELECT" || active.tagName === "TEXTAREA") && live.contains(active);
    if (refreshing || choosing) return;  // someone is choosing or typing
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
