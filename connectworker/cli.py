"""`connectworker` command line: `standalone` (like connect-standalone.sh), `plan` (topic-creation dry
run), `topics drift` (existing topics against their rules, `cli_drift.py`) and `spark` (the same
connectors on Spark)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from connectworker import __version__
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.cli_drift import cmd_topics_drift
from connectworker.cli_help import (
    DRIFT_EXAMPLES,
    DRIFT_EXIT,
    EXIT_CONFIG,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNCOMMITTED,
    HELP_FORMATTER,
    MAIN_EXAMPLES,
    PLAN_EXAMPLES,
    SPARK_EXAMPLES,
    STANDALONE_EXAMPLES,
    STANDALONE_EXIT,
    help_epilog,
)
from connectworker.config.worker_config import WorkerConfig
from connectworker.log_format import LOG_FORMATS, report, setup_logging, use_format
from connectworker.log_levels import ALLOWED, LEVELS

if TYPE_CHECKING:
    from connectworker.rest.metrics_listener import MetricsListener
    from connectworker.rest.server import RestServer
    from connectworker.runtime.herder.standalone import StandaloneRuntime
    from connectworker.runtime.runners.placement import TaskPlacement
    from connectworker.runtime.runners.task_runner import TaskHandle
    from connectworker.runtime.status import Status
    from connectworker.shutdown_signals import ShutdownSignals

log = logging.getLogger("connectworker")


def log_level(text: str) -> int:
    """argparse type of --log-level: a level name, any case."""
    try:
        return LEVELS[text.strip().upper()]
    except KeyError:
        raise argparse.ArgumentTypeError(f"invalid level {text!r}; allowed: {ALLOWED}") from None


def _log_format_from(args: argparse.Namespace, config: WorkerConfig) -> None:
    """The worker file's `log.format`, unless `--log-format` said otherwise."""
    if args.log_format is None and config.log_format != "text":
        use_format(config.log_format)


class ShutdownProgress:
    """What `standalone` is doing while it stops, for the second Ctrl-C to report. Read from the signal
    watcher thread, so it takes no lock the stopping threads could hold."""

    def __init__(self) -> None:
        self.phase = "start-up to finish (the cluster check, then the connectors starting)"
        self.runtime: StandaloneRuntime | None = None
        self.components: list[tuple[str, Status, TaskHandle | None]] = []

    def waiting_for(self) -> str:
        if self.phase != "tasks":
            return self.phase
        alive = [task.name for _, _, task in self.components if task is not None and not task.join(0)]
        if alive:
            return (
                f"task(s) {', '.join(alive)} to stop: each flushes its in-flight records and commits their "
                f"offsets (bounded by task.shutdown.graceful.timeout.ms + offset.flush.timeout.ms)"
            )
        if self.runtime is not None and self.runtime.worker is None and self.runtime.embedded is not None:
            return "the embedded broker to stop"
        return "the connectors to stop and the offsets file to be written"


def cmd_standalone(args: argparse.Namespace) -> int:
    from connectworker.runtime.runners.fork_server import TaskForkServer
    from connectworker.runtime.runners.placement import LocalPlacement

    # First, while this process has one thread and has loaded no plugin: the task processes' fork server
    # is then a fork of it, with the task runtime imported already (fork_server.py).
    return run_worker(args, LocalPlacement(TaskForkServer()))


def cmd_spark(args: argparse.Namespace) -> int:
    """The standalone worker whose tasks run as Spark tasks (docs/spark.md)."""
    from connectworker.spark.runner.spark_runtime import SparkPlacement

    return run_worker(args, SparkPlacement())


def run_worker(args: argparse.Namespace, placement: TaskPlacement) -> int:
    """Run the worker of `args`' files, its tasks placed by `placement` (closed when the worker ends)."""
    from connectworker.config.loading import load_worker_files
    from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
    from connectworker.runtime.herder.standalone import StandaloneRuntime
    from connectworker.runtime.status import State
    from connectworker.shutdown_signals import ShutdownSignals, StopRequested

    try:  # every file validated before anything starts
        config, connectors = load_worker_files(
            args.worker, args.connectors, configured=lambda worker: _log_format_from(args, worker)
        )
    except BaseException:
        placement.close()
        raise
    runtime = StandaloneRuntime(config, connectors, placement=placement)
    metrics = None
    try:
        metrics = _metrics_listener(config, runtime)
        rest = _rest_server(config)
    except BaseException:
        if metrics is not None:
            metrics.stop()
        runtime.stop()
        raise
    tune_gc_for_throughput()
    progress = ShutdownProgress()
    signals = ShutdownSignals(progress.waiting_for).install()
    waiting = f"while waiting for the Kafka cluster at bootstrap.servers={config.bootstrap_servers} to answer"
    try:
        try:
            progress.runtime = runtime.start(interrupt=lambda: signals.raise_if_requested(waiting))
        except StopRequested:
            return _stopped_during_start_up(signals, waiting)
        try:
            if signals.requested:  # came while the offsets were opened: start no connector only to stop it
                return _stopped_during_start_up(signals, "before the connectors were started")
            herder = runtime.start_herder(connectors)  # with those saved through REST, reconciled
            if rest is not None:
                rest.serve(herder)
            log.info(
                "Worker running with %d connector(s)%s; Ctrl-C stops it after committing offsets",
                len(herder.worker.connector_names()),
                "" if rest is not None else ", without REST",
            )
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
        if metrics is not None:
            metrics.stop()
    failed = [label for label, status, _ in progress.components if status.state is State.FAILED]
    if failed:
        log.error(
            "Exiting with status %d: %s ended FAILED (the reason was logged when it failed)",
            EXIT_FAILED,
            ", ".join(failed),
        )
        return EXIT_FAILED
    uncommitted = {
        task.name: count
        for _, _, task in progress.components
        if task is not None and (count := _uncommitted_at_stop(task))
    }
    if uncommitted:
        log.error(
            "Exiting with status %d: the offsets of %d record(s) of %s were not committed (said above, per "
            "source partition); those records are produced again after a restart",
            EXIT_UNCOMMITTED,
            sum(uncommitted.values()),
            ", ".join(f"task {name}" for name in uncommitted),
        )
        return EXIT_UNCOMMITTED
    return EXIT_OK


def _uncommitted_at_stop(task: TaskHandle) -> int:
    """Records of a stopped `task` whose offsets are not committed: as the task counted them when it
    stopped, or, for a task abandoned still running (stuck past the stop's bound), all it has in flight."""
    stats = task.stats()
    return stats.uncommitted_at_stop if task.join(0) else stats.active


def _stopped_during_start_up(signals: ShutdownSignals, when: str) -> int:
    """Ctrl-C or SIGTERM while start-up waited: nothing ran, nothing is left to commit. The status is
    the one the signal gives a process that does not handle it (130, 143), as before the signal
    handlers are installed: the worker did not come up, and a supervisor must not take it for a run."""
    status = 128 + signals.first.value if signals.first is not None else EXIT_INTERRUPTED
    log.info("Stopped during start-up, %s: no connector was started. Exiting with status %d", when, status)
    return status


def _rest_server(config: WorkerConfig) -> RestServer | None:
    """The REST server `listeners` asks for, its ports already bound, so a port in use stops start-up
    before the cluster is contacted or any connector starts; None for an empty `listeners=`."""
    if not config.listeners.strip():
        log.info("listeners is empty: running without the REST API")
        return None
    from connectworker.rest.server import RestServer

    server = RestServer.for_worker(config)
    return server.bind() if server is not None else None


def _metrics_listener(config: WorkerConfig, runtime: StandaloneRuntime) -> MetricsListener | None:
    """`metrics.listener`'s server, bound and serving (a worker not yet started shows no tasks)."""
    address = config.metrics_address
    if address is None:
        return None
    from connectworker.rest.metrics_listener import MetricsListener

    return MetricsListener.start(address, runtime.metrics.registry)


def cmd_plan(args: argparse.Namespace) -> int:
    from pathlib import Path

    from connectworker.config.connector_config import parse_connector_config
    from connectworker.config.loading import load_worker_config
    from connectworker.config.properties import load_connector_file
    from connectworker.config.providers.connector_refs import ConnectorConfigResolver
    from connectworker.config.topic_policy import load_topic_policy
    from connectworker.runtime.clients.admin_client import open_topic_admin
    from connectworker.runtime.offsets.read_only import committed_offsets_read_only
    from connectworker.runtime.topic_planning.plan import plan_topics
    from connectworker.runtime.topic_planning.sample_records import read_sample_record
    from connectworker.topics.plan import broker_honours_validate_only

    worker = (
        load_worker_config(args.worker, require_offsets_file=False)
        if args.worker
        else WorkerConfig.from_properties({"topic.creation.enable": "true"})
    )
    resolver = ConnectorConfigResolver(worker.open_config_providers(), worker=worker)  # the worker's providers
    try:  # the plan dry-starts the connector: with the values it would receive
        config = resolver.connector(
            parse_connector_config(
                load_connector_file(args.connector), source=args.connector, providers=resolver.providers, worker=worker
            )
        )
    finally:
        resolver.close()
    admin = None
    if args.worker and not worker.uses_embedded_broker:
        admin = open_topic_admin(
            worker.bootstrap_servers, worker.client_settings("admin", config.admin_overrides), request_timeout_s=15
        )
    elif args.validate_only:
        raise ConfigError({"--validate-only": "needs --worker naming a reachable (non-embedded) cluster"})
    if args.worker:  # the offsets the worker's next run would resume from, read without writing
        committed = committed_offsets_read_only(worker, config.name)
    else:
        log.info("No --worker: the dry run of %s reads no committed offsets", config.name)
        committed = {}
    policy = load_topic_policy(worker, source=args.worker)
    try:
        entries = plan_topics(
            config,
            args.topic,
            enabled=worker.topic_creation_enable,
            committed=committed,
            admin=admin,
            validate_only=args.validate_only,
            policy=policy,
            broker_honours_validate_only=admin is not None and broker_honours_validate_only(admin),
            samples=[read_sample_record(Path(path)) for path in args.record],
        )
    finally:
        if policy is not None:
            policy.close()
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
        if e.policy is not None:
            print(f"       policy (topic.creation.policy.class): {e.policy}")
        if (verdict := e.broker_verdict) is not None:
            print(f"       broker (validate_only): {'valid' if verdict.valid else f'rejected: {verdict.error}'}")
            if verdict.note:
                print(f"       note: {verdict.note}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="connectworker",
        description=__doc__,
        formatter_class=HELP_FORMATTER,
        epilog=help_epilog(MAIN_EXAMPLES, "connectworker COMMAND --help shows each command's options and examples."),
    )
    parser.add_argument("--version", action="version", version=f"connectworker {__version__}")
    parser.add_argument(
        "--log-level",
        default="INFO",
        type=log_level,
        help="TRACE, DEBUG, INFO, WARN, ERROR, FATAL or OFF (default INFO)",
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default=None,
        help="text (default) or json: one JSON object per line, with connector, task and "
        "topic where a line is about one; overrides the worker file's log.format",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    standalone = sub.add_parser(
        "standalone",
        help="run connectors from files, like connect-standalone.sh",
        description="Run connectors from files, like connect-standalone.sh.",
        formatter_class=HELP_FORMATTER,
        epilog=help_epilog(STANDALONE_EXAMPLES, STANDALONE_EXIT),
    )
    standalone.add_argument("worker", help="worker .properties file")
    standalone.add_argument(
        "connectors",
        nargs="*",
        default=[],  # else argparse lists it as required when the worker file is missing
        help="connector .properties or .json files (none: manage connectors through REST)",
    )
    standalone.set_defaults(func=cmd_standalone)

    plan = sub.add_parser(
        "plan",
        help="show which topics would be created, and how (dry run)",
        description="Show which topics the connector would create, with which settings and "
        "by which rule (a dry run: nothing is created).",
        formatter_class=HELP_FORMATTER,
        epilog=help_epilog(PLAN_EXAMPLES),
    )
    plan.add_argument("connector", help="connector .properties or .json file")
    plan.add_argument("--worker", help="worker file: its topic.creation.enable and cluster are used")
    plan.add_argument("--topic", action="append", required=True, help="topic name (repeatable)")
    plan.add_argument("--json", action="store_true", help="print JSON objects")
    plan.add_argument(
        "--record",
        action="append",
        default=[],
        metavar="FILE",
        help="a sample record emitted to each --topic, for transforms that route by the record's data "
        '(repeatable; JSON: {"schema": …, "payload": …} as JsonConverter writes it, or a change event in '
        'short, {"op": "c", "after": {…}}; docs/transforms.md)',
    )
    plan.add_argument(
        "--validate-only",
        action="store_true",
        help="also ask the broker to validate the creation (CreateTopics validate_only)",
    )
    plan.set_defaults(func=cmd_plan)

    topics = sub.add_parser(
        "topics",
        help="check existing topics against the connector's rules",
        description="Existing topics and the connector's topic.creation rules.",
        formatter_class=HELP_FORMATTER,
        epilog=help_epilog(DRIFT_EXAMPLES),
    )
    drift = topics.add_subparsers(dest="topics_command", required=True).add_parser(
        "drift",
        help="report (and with --apply fix) topics that differ from what their rule would create",
        description="Compare each topic with what its rule (after the task's hook, within the worker's policy) "
        "would create now: partitions, replication factor and the configs the rule sets. Nothing "
        "is changed without --apply.",
        formatter_class=HELP_FORMATTER,
        epilog=help_epilog(DRIFT_EXAMPLES, DRIFT_EXIT),
    )
    drift.add_argument("connector", help="connector .properties or .json file")
    drift.add_argument("--worker", required=True, help="worker file: its cluster, admin.* keys and policy")
    drift.add_argument("--topic", action="append", default=[], help="topic name (repeatable)")
    drift.add_argument(
        "--all-known",
        action="store_true",
        help="the connector's own topics: those it wrote to and those its rules created, asked of its running "
        "worker's REST API (never the cluster's other topics)",
    )
    drift.add_argument(
        "--rest-url",
        help="the running worker's REST address for --all-known (default: the worker file's first listener)",
    )
    drift.add_argument(
        "--apply",
        action="store_true",
        help="add partitions and set configs where that fixes a difference, after printing the changes (those "
        "that delete data marked) and a confirmation",
    )
    drift.add_argument("--yes", action="store_true", help="confirm --apply without a prompt (no terminal: required)")
    drift.add_argument("--json", action="store_true", help="print JSON objects")
    drift.set_defaults(func=cmd_topics_drift)

    spark = sub.add_parser(
        "spark",
        help="run connectors from the same files on Spark (PySpark)",
        description="Run connectors from the same files on Spark (PySpark); see docs/spark.md.",
        formatter_class=HELP_FORMATTER,
        epilog=help_epilog(SPARK_EXAMPLES),
    )
    spark.add_argument("worker", help="worker .properties file (spark.master etc.)")
    spark.add_argument(
        "connectors", nargs="*", default=[], help="connector .properties or .json files (none: REST only)"
    )
    spark.set_defaults(func=cmd_spark)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    setup_logging(args.log_level, args.log_format or "text")
    try:
        return args.func(args)
    except ConfigError as exc:
        report(f"connectworker: {exc}")
        return EXIT_CONFIG
    except ConnectError as exc:
        report(f"connectworker: {exc}")
        return EXIT_FAILED
    except KeyboardInterrupt:  # Ctrl-C before the command installed its own handling: nothing ran yet
        report("connectworker: interrupted")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
