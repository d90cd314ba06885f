"""`connectworker` command line: `standalone` (like connect-standalone.sh), `plan` (topic-creation dry
run) and `spark` (the same connectors on Spark)."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from connectworker import __version__
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.worker_config import WorkerConfig

if TYPE_CHECKING:
    from connectworker.config.connector_config import ConnectorConfig
    from connectworker.rest.server import RestServer
    from connectworker.runtime.standalone import StandaloneRuntime

log = logging.getLogger("connectworker")


def _setup_logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), stream=sys.stderr,
                        format="[%(asctime)s] %(levelname)s %(message)s (%(name)s)")


def cmd_standalone(args: argparse.Namespace) -> int:
    from connectworker.runtime.gc_tuning import tune_gc_for_throughput
    from connectworker.runtime.standalone import StandaloneRuntime, load_connector_configs, load_worker_config

    config = load_worker_config(args.worker)
    connectors = load_connector_configs(args.connectors)  # every file validated before anything starts
    tune_gc_for_throughput()
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: stop.set())
    runtime = StandaloneRuntime(config).start()
    try:
        rest = _start_rest(runtime, connectors)  # starts the connectors, reconciled with those saved via REST
        assert runtime.worker is not None
        log.info("Worker running with %d connector(s); Ctrl-C stops it after committing offsets",
                 len(runtime.worker.connector_names()))
        while not stop.wait(0.5):
            pass
        log.info("Stopping: flushing in-flight records and committing offsets")
        rest.stop()
    finally:
        runtime.stop()
    return 0


def _start_rest(runtime: StandaloneRuntime, connectors: list[ConnectorConfig]) -> RestServer:
    """Serve the REST API on `listeners`; it also restores connectors saved through it (docs/rest.md)."""
    from connectworker.rest.server import RestServer

    return RestServer.start_for(runtime, connectors)


def cmd_plan(args: argparse.Namespace) -> int:
    from connectworker.config.connector_config import parse_connector_config
    from connectworker.config.properties import load_connector_file
    from connectworker.runtime.standalone import load_worker_config
    from connectworker.topics.admin import TopicAdmin
    from connectworker.topics.plan import broker_honours_validate_only, plan_topics

    worker = (load_worker_config(args.worker, require_offsets_file=False) if args.worker
              else WorkerConfig.from_properties({"topic.creation.enable": "true"}))
    config = parse_connector_config(load_connector_file(args.connector), source=args.connector)
    admin = None
    if args.worker and not worker.uses_embedded_broker:
        admin = TopicAdmin(worker.bootstrap_servers, worker.prefixed("admin."), request_timeout_s=15)
    elif args.validate_only:
        raise ConfigError({"--validate-only": "needs --worker naming a reachable (non-embedded) cluster"})
    entries = plan_topics(config, args.topic, enabled=worker.topic_creation_enable, admin=admin,
                          validate_only=args.validate_only,
                          broker_honours_validate_only=admin is not None and broker_honours_validate_only(admin))
    if args.json:
        print(json.dumps([e.to_json() for e in entries], indent=2))
        return 0
    for e in entries:
        head = "CREATE" if e.create else "SKIP  "
        print(f"{head} {e.topic}  rule={e.rule or '-'}  ({e.reason})")
        if e.create:
            print(f"       partitions={e.partitions} replication.factor={e.replication_factor}")
            for k, v in sorted(e.configs.items()):
                print(f"       {k}={v}")
        if (verdict := e.broker_verdict) is not None:
            print(f"       broker (validate_only): {'valid' if verdict.valid else f'rejected: {verdict.error}'}")
            if verdict.note:
                print(f"       note: {verdict.note}")
    return 0


def cmd_spark(args: argparse.Namespace) -> int:
    from connectworker.spark.engine import run_spark

    return run_spark(args.worker, args.connectors)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="connectworker", description=__doc__)
    parser.add_argument("--version", action="version", version=f"connectworker {__version__}")
    parser.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING or ERROR (default INFO)")
    sub = parser.add_subparsers(dest="command", required=True)

    standalone = sub.add_parser("standalone", help="run connectors from files, like connect-standalone.sh")
    standalone.add_argument("worker", help="worker .properties file")
    standalone.add_argument("connectors", nargs="+", help="connector .properties or .json files")
    standalone.set_defaults(func=cmd_standalone)

    plan = sub.add_parser("plan", help="show which topics would be created, and how (dry run)")
    plan.add_argument("connector", help="connector .properties or .json file")
    plan.add_argument("--worker", help="worker file: its topic.creation.enable and cluster are used")
    plan.add_argument("--topic", action="append", required=True, help="topic name (repeatable)")
    plan.add_argument("--json", action="store_true", help="print JSON objects")
    plan.add_argument("--validate-only", action="store_true",
                      help="also ask the broker to validate the creation (CreateTopics validate_only)")
    plan.set_defaults(func=cmd_plan)

    spark = sub.add_parser("spark", help="run connectors from the same files on Spark (PySpark)")
    spark.add_argument("worker", help="worker .properties file (spark.master etc.)")
    spark.add_argument("connectors", nargs="+", help="connector .properties or .json files")
    spark.set_defaults(func=cmd_spark)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _setup_logging(args.log_level)
    try:
        return args.func(args)
    except ConfigError as exc:
        print(f"connectworker: {exc}", file=sys.stderr)
        return 2
    except ConnectError as exc:
        print(f"connectworker: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
