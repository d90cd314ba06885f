"""`connectworker topics drift`: are a connector's existing topics still what its rules would create?

The topics compared are those named with `--topic`, or with `--all-known` the connector's own: those it
wrote to and those its rules created, as the running worker knows them (KIP-558's active topics, asked
through its REST API). Never the cluster's other topics: a default rule matches every topic, and other
connectors' topics are not this connector's to change.

Never changes anything unless `--apply` is given; then only what can be fixed in place (more
partitions, configs), after printing the changes (one that deletes records the topic holds is marked
so) and a confirmation: a prompt on a terminal, `--yes` otherwise. Exit status: 0 in sync, 3 drift
found (for CI; also when nothing was applied for want of a confirmation), 1 an error (the cluster, the
worker's REST API, a call the broker does not support), 2 invalid configuration.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING
from urllib.parse import quote

from connectworker.api.errors import ConfigError, ConnectError

if TYPE_CHECKING:
    from connectworker.config.worker_config import WorkerConfig
    from connectworker.topics.drift import TopicDrift

__all__ = ["EXIT_DRIFT", "EXIT_ERROR", "EXIT_IN_SYNC", "cmd_topics_drift"]

EXIT_IN_SYNC = 0
EXIT_ERROR = 1
EXIT_DRIFT = 3
WORKER_TIMEOUT_S = 30.0


def cmd_topics_drift(args: argparse.Namespace) -> int:
    from connectworker.config.connector_config import parse_connector_config
    from connectworker.config.loading import load_worker_config
    from connectworker.config.properties import load_connector_file
    from connectworker.config.topic_policy import load_topic_policy
    from connectworker.runtime.clients.admin_client import open_topic_admin
    from connectworker.runtime.offsets.read_only import committed_offsets_read_only
    from connectworker.runtime.topic_planning.drift import apply_fixes, drift_report
    from connectworker.topics.admin import UnsupportedCallError

    if bool(args.topic) == args.all_known:
        raise ConfigError(
            {
                "--topic": "name the topics with --topic NAME (repeatable), or give --all-known "
                "(the connector's own topics, as its running worker knows them)"
            }
        )
    worker = load_worker_config(args.worker, require_offsets_file=False)
    if worker.uses_embedded_broker:
        raise ConfigError(
            {
                "bootstrap.servers": "drift needs a real cluster: the embedded broker starts empty "
                "(set CONNECT_BOOTSTRAP_SERVERS=host:port)"
            },
            source=args.worker,
        )
    config = parse_connector_config(load_connector_file(args.connector), source=args.connector, worker=worker)
    topics = args.topic or _own_topics(worker, config.name, args.rest_url)
    policy = load_topic_policy(worker, source=args.worker)
    admin = open_topic_admin(
        worker.bootstrap_servers, worker.client_settings("admin", config.admin_overrides), request_timeout_s=15
    )
    committed = committed_offsets_read_only(worker, config.name)
    try:
        report = drift_report(config, topics, admin=admin, committed=committed, policy=policy)
        _print(report, as_json=args.json)
        drifted = [d for d in report if not d.in_sync]
        if not drifted or not args.apply:
            return EXIT_DRIFT if drifted else EXIT_IN_SYNC
        if not any(d.fixable for d in drifted):
            print("Nothing can be fixed in place: the differences need the topics re-created.")
            return EXIT_DRIFT
        if not _confirmed(drifted, assume_yes=args.yes):
            return EXIT_DRIFT
        print("Applying what can be fixed in place:")
        try:
            done = apply_fixes(admin, drifted)
        except UnsupportedCallError as exc:
            print(f"{exc}: nothing was changed.")
            return EXIT_ERROR
        for line in done:
            print(f"  {line}")
        after = drift_report(config, [d.topic for d in drifted], admin=admin, committed=committed, policy=policy)
        return EXIT_DRIFT if any(not d.in_sync for d in after) else EXIT_IN_SYNC
    finally:
        if policy is not None:
            policy.close()


def _own_topics(worker: WorkerConfig, name: str, rest_url: str | None) -> list[str]:
    """The topics the running worker knows as `name`'s: those it wrote to and those its rules created."""
    import httpx

    access = worker.rest_access
    url = rest_url or _listener_url(worker)
    credentials = next(iter((access.credentials or {}).items()), None)
    where = f"{url}/connectors/{quote(name, safe='')}/topics/drift"
    advice = "start the worker, give its REST address with --rest-url, or name the topics with --topic"
    try:
        response = httpx.get(where, auth=credentials, timeout=WORKER_TIMEOUT_S)
    except httpx.HTTPError as exc:
        raise ConnectError(
            f"--all-known asks the running worker for the connector's own topics, but {url} does not answer "
            f"({exc}): {advice}"
        ) from None
    if response.status_code == 404:
        raise ConnectError(f"The worker at {url} runs no connector named {name}: {advice}")
    if response.status_code != 200:
        raise ConnectError(f"The worker at {url} answered {where} with {response.status_code}: {response.text}")
    return [str(entry["topic"]) for entry in response.json()["topics"]]


def _listener_url(worker: WorkerConfig) -> str:
    listeners = worker.rest_access.listeners
    if not listeners:
        raise ConfigError({"--rest-url": "the worker file names no REST listener: give the worker's address"})
    first = listeners[0]
    if first.port == 0:
        raise ConfigError({"--rest-url": "the worker's listener takes a free port (0): give the address it took"})
    host = "127.0.0.1" if first.host in ("", "0.0.0.0") else "[::1]" if first.host == "::" else first.host
    return f"{first.scheme}://{host}:{first.port}"


def _confirmed(drifted: list[TopicDrift], *, assume_yes: bool) -> bool:
    """Whether the changes may be made: `--yes`, or a "y" typed at the prompt of a terminal."""
    changes = [(d.topic, f) for d in drifted for f in d.fixable]
    print(f"--apply changes {len(changes)} setting(s) of {len({topic for topic, _ in changes})} topic(s):")
    for topic, difference in changes:
        print(f"  {topic}: {difference}")
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        print("Nothing was changed: without a terminal to confirm on, give --yes to apply these changes.")
        return False
    answer = input("Apply these changes? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        print("Nothing was changed.")
        return False
    return True


def _print(report: list[TopicDrift], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps([d.to_json() for d in report], indent=2))
        return
    for drift in report:
        rule = f" (rule {drift.rule})" if drift.rule else ""
        if drift.note is not None:
            print(f"{drift.topic}{rule}: {drift.note}")
        elif drift.in_sync:
            print(f"{drift.topic}{rule}: in sync")
        else:
            print(f"{drift.topic}{rule}: {len(drift.differences)} difference(s)")
            for difference in drift.differences:
                print(f"  {difference}")
