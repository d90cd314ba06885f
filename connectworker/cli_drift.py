"""`connectworker topics drift`: are a connector's existing topics still what its rules would create?

Never changes anything unless `--apply` is given; then only what can be fixed in place (more
partitions, configs), after printing the plan. Exit status: 0 in sync, 3 drift found (for CI), 1 an
error (the cluster, a call the broker does not support), 2 invalid configuration.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from connectworker.api.errors import ConfigError

if TYPE_CHECKING:
    from connectworker.topics.drift import TopicDrift

__all__ = ["EXIT_DRIFT", "EXIT_ERROR", "EXIT_IN_SYNC", "cmd_topics_drift"]

EXIT_IN_SYNC = 0
EXIT_ERROR = 1
EXIT_DRIFT = 3


def cmd_topics_drift(args: argparse.Namespace) -> int:
    from connectworker.config.connector_config import parse_connector_config
    from connectworker.config.loading import load_worker_config
    from connectworker.config.properties import load_connector_file
    from connectworker.config.topic_policy import load_topic_policy
    from connectworker.runtime.clients.admin_client import open_topic_admin
    from connectworker.runtime.topic_planning.drift import apply_fixes, drift_report, rule_topics
    from connectworker.topics.admin import UnsupportedCallError

    if bool(args.topic) == args.all_known:
        raise ConfigError(
            {
                "--topic": "name the topics with --topic NAME (repeatable), or give --all-known "
                "(the cluster's topics that one of the connector's rules matches)"
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
    policy = load_topic_policy(worker, source=args.worker)
    admin = open_topic_admin(
        worker.bootstrap_servers, worker.client_settings("admin", config.admin_overrides), request_timeout_s=15
    )
    try:
        topics = args.topic or rule_topics(config, admin)
        report = drift_report(config, topics, admin=admin, policy=policy)
        _print(report, as_json=args.json)
        drifted = [d for d in report if not d.in_sync]
        if not drifted or not args.apply:
            return EXIT_DRIFT if drifted else EXIT_IN_SYNC
        if not any(d.fixable for d in drifted):
            print("Nothing can be fixed in place: the differences need the topics re-created.")
            return EXIT_DRIFT
        print("Applying what can be fixed in place:")
        try:
            done = apply_fixes(admin, drifted)
        except UnsupportedCallError as exc:
            print(f"{exc}: nothing was changed.")
            return EXIT_ERROR
        for line in done:
            print(f"  {line}")
        after = drift_report(config, [d.topic for d in drifted], admin=admin, policy=policy)
        return EXIT_DRIFT if any(not d.in_sync for d in after) else EXIT_IN_SYNC
    finally:
        if policy is not None:
            policy.close()


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
