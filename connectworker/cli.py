"""`connectworker` command line: `standalone` (like connect-standalone.sh), `plan` (topic-creation dry
run) and `spark` (the same connectors on Spark)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from connectworker import __version__
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.worker_config import WorkerConfig

if TYPE_CHECKING:
    from connectworker.rest.server import RestServer
    from connectworker.runtime.standalone import StandaloneRuntime
    from connectworker.runtime.status import Status
    from connectworker.runtime.worker_source_task import WorkerSourceTask

log = logging.getLogger("connectworker")

# Exit statuses of `standalone` (README, "Running connectors").
EXIT_OK = 0
EXIT_FAILED = 1  # start-up failed, or a connector or task ended FAILED
EXIT_CONFIG = 2  # invalid configuration, nothing started
EXIT_INTERRUPTED = 130  # Ctrl-C before the worker ran; a forced exit is 128 + the signal number

# Kafka's (log4j) level names, and Python's, for --log-level. TRACE is DEBUG here: nothing logs finer.
LOG_LEVELS = {"TRACE": logging.DEBUG, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
              "WARNING": logging.WARNING, "ERROR": logging.ERROR, "FATAL": logging.CRITICAL,
              "CRITICAL": logging.CRITICAL}


def log_level(text: str) -> int:
    """argparse type of --log-level: a level name, any case."""
    try:
        return LOG_LEVELS[text.strip().upper()]
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"invalid level {text!r}; allowed: TRACE (same as DEBUG), DEBUG, INFO, WARN, ERROR, FATAL "
            f"(any case; WARNING and CRITICAL too)") from None


def _setup_logging(level: int) -> None:
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="[%(asctime)s] %(levelname)s %(message)s (%(name)s)")


class ShutdownProgress:
    """What `standalone` is doing while it stops, for the second Ctrl-C to report. Read from the signal
    watcher thread, so it takes no lock the stopping threads could hold."""

    def __init__(self) -> None:
        self.phase = "start-up to finish (the cluster check, then the connectors starting)"
        self.runtime: StandaloneRuntime | None = None
        self.components: list[tuple[str, Status, WorkerSourceTask | None]] = []

    def waiting_for(self) -> str:
        if self.phase != "tasks":
            return self.phase
        alive = [task.name for _, _, task in self.components if task is not None and not task.join(0)]
        if alive:
            return (f"task(s) {', '.join(alive)} to stop: each flushes its in-flight records and commits their "
                    f"offsets (bounded by task.shutdown.graceful.timeout.ms + offset.flush.timeout.ms)")
        if self.runtime is not None and self.runtime.worker is None and self.runtime.embedded is not None:
            return "the embedded broker to stop"
        return "the connectors to stop and the offsets file to be written"


def cmd_standalone(args: argparse.Namespace) -> int:
    from connectworker.config.loading import load_connector_configs, load_worker_config
    from connectworker.runtime.gc_tuning import tune_gc_for_throughput
    from connectworker.runtime.standalone import StandaloneRuntime
    from connectworker.runtime.status import State
    from connectworker.shutdown_signals import ShutdownSignals

    config = load_worker_config(args.worker)
    # every file validated before anything starts
    connectors = load_connector_configs(args.connectors, exactly_once_worker=config.exactly_once_enabled)
    rest = _rest_server(config)
    tune_gc_for_throughput()
    progress = ShutdownProgress()
    signals = ShutdownSignals(progress.waiting_for).install()
    try:
        runtime = progress.runtime = StandaloneRuntime(config).start()
        try:
            herder = runtime.start_herder(connectors)  # with those saved through REST, reconciled
            if rest is not None:
                rest.serve(herder)
            log.info("Worker running with %d connector(s)%s; Ctrl-C stops it after committing offsets",
                     len(herder.worker.connector_names()), "" if rest is not None else ", without REST")
            signals.wait()
            log.info("Stopping: flushing in-flight records and committing offsets")
            progress.phase = "the REST server to finish the requests it is serving"
        finally:
            if rest is not None:
                rest.stop()
            if runtime.worker is not None:  # no REST change can come in any more: this is the final set
                progress.components = runtime.worker.status_snapshot()
            progress.phase = "tasks"
            tasks = sum(1 for _, _, task in progress.components if task is not None)
            log.info("Stopping %d task(s); each commits the offsets of what Kafka acknowledged", tasks)
            runtime.stop()
    finally:
        signals.uninstall()
        if rest is not None:
            rest.stop()  # closes the bound ports if start-up failed before serving
    failed = [label for label, status, _ in progress.components if status.state is State.FAILED]
    if failed:
        log.error("Exiting with status %d: %s ended FAILED (the reason was logged when it failed)",
                  EXIT_FAILED, ", ".join(failed))
        return EXIT_FAILED
    return EXIT_OK


def _rest_server(config: WorkerConfig) -> RestServer | None:
    """The REST server `listeners` asks for, its ports already bound, so a port in use stops start-up
    before the cluster is contacted or any connector starts; None for an empty `listeners=`."""
    if not config.listeners.strip():
        log.info("listeners is empty: running without the REST API")
        return None
    from connectworker.rest.server import RestServer

    server = RestServer.for_worker(config, os.environ)
    return server.bind() if server is not None else None


def cmd_plan(args: argparse.Namespace) -> int:
    from connectworker.config.connector_config import parse_connector_config
    from connectworker.config.loading import load_worker_config
    from connectworker.config.properties import load_connector_file
    from connectworker.runtime.topic_admin import open_topic_admin
    from connectworker.runtime.topic_plan import plan_topics
    from connectworker.topics.plan import broker_honours_validate_only

    worker = (load_worker_config(args.worker, require_offsets_file=False) if args.worker
              else WorkerConfig.from_properties({"topic.creation.enable": "true"}))
    config = parse_connector_config(load_connector_file(args.connector), source=args.connector)
    admin = None
    if args.worker and not worker.uses_embedded_broker:
        admin = open_topic_admin(worker.bootstrap_servers, worker.prefixed("admin."), request_timeout_s=15)
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
        routed = f"{e.emitted} -> " if e.emitted is not None and e.emitted != e.topic else ""
        print(f"{head} {routed}{e.topic}  rule={e.rule or '-'}  ({e.reason})")
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
    parser.add_argument("--log-level", default="INFO", type=log_level,
                        help="TRACE (same as DEBUG), DEBUG, INFO, WARN, ERROR or FATAL (default INFO)")
    sub = parser.add_subparsers(dest="command", required=True)

    standalone = sub.add_parser("standalone", help="run connectors from files, like connect-standalone.sh")
    standalone.add_argument("worker", help="worker .properties file")
    standalone.add_argument("connectors", nargs="*",
                            help="connector .properties or .json files (none: manage connectors through REST)")
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
        return EXIT_CONFIG
    except ConnectError as exc:
        print(f"connectworker: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:  # Ctrl-C before the command installed its own handling: nothing ran yet
        print("connectworker: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
