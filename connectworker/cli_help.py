"""What `connectworker --help` says beyond the options: each command's examples and notes, and the
exit statuses it promises (the constants the commands exit with)."""

from __future__ import annotations

import argparse

from connectworker.cli_drift import EXIT_DRIFT, EXIT_ERROR, EXIT_IN_SYNC
from connectworker.config.reference import ENVIRONMENT_RULE, REFERENCE_DOC

# Exit statuses of `standalone` (README, "Running connectors").
EXIT_OK = 0
EXIT_FAILED = 1  # start-up failed, or a connector or task ended FAILED
EXIT_CONFIG = 2  # invalid configuration, nothing started
EXIT_UNCOMMITTED = 3  # stopped, but the offsets of some records were not committed (they come again)
EXIT_INTERRUPTED = 130  # Ctrl-C before the worker ran; a forced exit is 128 + the signal number

# Examples in the help run against the repository's own files (make run uses the first one); each
# is parsed, and the plan ones run, by tests/unit/test_cli_help.py.
DEMO = "connectworker standalone config/worker.properties config/connectors/datagen.properties"
PLAN = (
    "connectworker plan config/connectors/datagen.properties --worker config/worker.properties "
    "--topic orders.eu-west --topic orders.us-east"
)
SPARK = "connectworker spark config/worker.properties config/connectors/datagen.properties"
REAL_CLUSTER = (
    "CONNECT_BOOTSTRAP_SERVERS=broker:9092 connectworker standalone config/worker.properties "
    "config/connectors/file-source.properties"
)


def help_epilog(examples: str, *notes: str) -> str:
    """A parser's epilog: its examples (`# comment` / command lines), `notes`, the `CONNECT_*` rule and
    where every key is described. Shown with `HELP_FORMATTER`, which keeps these lines as written."""
    lines = ["examples:", *("  " + line for line in examples.strip().splitlines())]
    return "\n\n".join(
        [
            "\n".join(lines),
            *notes,
            ENVIRONMENT_RULE,
            f"every worker and connector key, with its default: {REFERENCE_DOC}",
        ]
    )


HELP_FORMATTER = argparse.RawDescriptionHelpFormatter

MAIN_EXAMPLES = f"""
# the demo: an embedded broker and a generator of orders, with the repository's files
{DEMO}
# which topics that connector would create, and how (no broker is started or contacted)
{PLAN}
# the same connectors on Spark (pip install 'connectworker[spark]')
{SPARK}
# a real cluster instead of the file's bootstrap.servers=embedded, from the environment
{REAL_CLUSTER}
"""

STANDALONE_EXAMPLES = f"""
# the demo (make run): an embedded broker and a generator of orders to orders.<region> topics
{DEMO}
# two connectors: also Kafka's FileStreamSource, reading README.md into connect-test
{DEMO} config/connectors/file-source.properties
# no connector file: connectors are created through the REST API (listeners=http://127.0.0.1:8083)
connectworker standalone config/worker.properties
# a real cluster instead of the file's bootstrap.servers=embedded
{REAL_CLUSTER}
"""

PLAN_EXAMPLES = f"""
# with the worker file's topic.creation.enable (its embedded broker is not started)
{PLAN}
# without a worker file (topic creation taken as enabled), as JSON
connectworker plan config/connectors/datagen.properties --topic orders.eu-west --json
# ask a real cluster to validate the creation too
CONNECT_BOOTSTRAP_SERVERS=broker:9092 {PLAN} --validate-only
"""

DRIFT = (
    "CONNECT_BOOTSTRAP_SERVERS=broker:9092 connectworker topics drift config/connectors/datagen.properties "
    "--worker config/worker.properties"
)

DRIFT_EXAMPLES = f"""
# the connector's own topics (those it wrote to, those its rules created), as its running worker knows them
{DRIFT} --all-known
# named topics, as JSON; then fix what can be fixed in place (more partitions, configs), after a prompt
{DRIFT} --topic orders.eu-west --json
{DRIFT} --topic orders.eu-west --apply
# without a terminal (CI, a script): --yes confirms
{DRIFT} --all-known --apply --yes
"""

DRIFT_EXIT = (
    f"exit status: {EXIT_IN_SYNC} in sync; {EXIT_DRIFT} drift found (also when --apply was not confirmed); "
    f"{EXIT_ERROR} an error (the\ncluster, the worker's REST API, a request the broker does not support); "
    f"{EXIT_CONFIG} for invalid configuration."
)

SPARK_EXAMPLES = f"""
# pip install 'connectworker[spark]' (and Java 17); spark.master defaults to local[*]
{SPARK}
# two local executor threads, from the environment (spark.master)
CONNECT_SPARK_MASTER='local[2]' {SPARK}
"""

STANDALONE_EXIT = (
    f"exit status: {EXIT_OK} after a clean stop; {EXIT_FAILED} if start-up failed or a connector or "
    f"task ended FAILED;\n{EXIT_CONFIG} for invalid configuration; {EXIT_UNCOMMITTED} after a stop that "
    "left the offsets of some records uncommitted\n(the cluster did not acknowledge them in time: "
    "they are produced again after a restart);\n128 + the signal number (130 for "
    "Ctrl-C, 143 for SIGTERM) when stopped during start-up,\nbefore any connector started, or after "
    "a third Ctrl-C or SIGTERM."
)
