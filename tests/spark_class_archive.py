"""One class-data-sharing archive of the classes a Spark JVM loads, for every JVM the tests start.

A Spark JVM spends most of its start-up CPU loading and verifying the classes of some 250 jars. Mapping
them from a CDS archive instead halves that: a local session's JVM took 15 CPU-seconds and 8.6 s to start,
and 8 CPU-seconds and 4.6 s with the archive (measured on a 2-core machine, JDK 17). The suite starts about
thirty Spark JVMs (drivers, executors, standalone masters and workers) on two cores.

The archive is made once per environment (this venv's pyspark, this JDK), by a small local Spark job whose
driver writes the classes it loaded when it exits (JDK 17's `-XX:ArchiveClassesAtExit`), and kept in the
venv. Every JVM names it in `JDK_JAVA_OPTIONS`; one whose class path or JDK does not match it, or that
starts before it exists, loads its classes as before (CDS logging is off: nothing is printed either way).
A test process that collected a Spark test starts making it at once, in the background, under a file lock
(the first one does the work); a Spark test waits for it before its fixtures start JVMs.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

JIT_FLAGS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""Every JVM of the tests lives for seconds and runs little of its own code: compiling only with C1 and one GC
thread costs less CPU than the defaults. The archive is made with the same flags it is used with."""
QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"
DUMP_TIMEOUT_S = 240.0

_DUMP_JOB = """
import sys
from pyspark.sql import SparkSession

archive = sys.argv[1]
spark = (
    SparkSession.builder.master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.driver.extraJavaOptions", f"-XX:ArchiveClassesAtExit={archive} {sys.argv[2]}")
    .getOrCreate()
)
spark.range(1000).selectExpr("sum(id)").collect()
spark.sparkContext.parallelize(range(100), 2).map(lambda n: n * 2).sum()
jvm = spark.sparkContext._gateway.proc  # the driver JVM: it writes the archive as it exits
spark.stop()
jvm.stdin.close()  # the gateway exits when its stdin closes
sys.exit(jvm.wait(timeout=120))
"""


def archive_path() -> Path | None:
    """Where this environment's archive is (or will be); None without pyspark or Java."""
    spec = importlib.util.find_spec("pyspark")
    java = shutil.which("java")
    if spec is None or not spec.submodule_search_locations or java is None:
        return None
    jars = Path(next(iter(spec.submodule_search_locations))) / "jars"
    if not jars.is_dir():
        return None
    key = hashlib.sha256()
    for entry in sorted(jars.iterdir()):
        key.update(f"{entry.name}:{entry.stat().st_mtime_ns}\n".encode())
    real_java = Path(java).resolve()
    key.update(f"{real_java}:{real_java.stat().st_mtime_ns}:{JIT_FLAGS}".encode())
    return Path(sys.prefix) / "spark-class-archive" / f"{key.hexdigest()[:16]}.jsa"


def java_options(archive: Path | None) -> str:
    """`JDK_JAVA_OPTIONS` for every JVM the tests start: the JIT flags, and the archive when there is one."""
    return f"{JIT_FLAGS} -XX:SharedArchiveFile={archive} {QUIET}" if archive else JIT_FLAGS


def ensure(archive: Path) -> None:
    """Make the archive unless it exists; a test process that finds another making it waits for it. A failed
    dump leaves no archive (the JVMs run without one) and is not tried again in this run."""
    if archive.exists():
        return
    archive.parent.mkdir(parents=True, exist_ok=True)
    failed = archive.with_suffix(f".failed-{os.environ.get('PYTEST_XDIST_TESTRUNUID', os.getpid())}")
    with (archive.parent / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if archive.exists() or failed.exists():
            return
        for stale in archive.parent.glob("*.partial-*"):  # left by a test process that ended mid-dump
            stale.unlink(missing_ok=True)
        partial = archive.with_suffix(f".partial-{os.getpid()}")
        env = {**os.environ, "JDK_JAVA_OPTIONS": JIT_FLAGS, "PYSPARK_PYTHON": sys.executable}
        env["SPARK_LOCAL_IP"] = "127.0.0.1"
        try:
            result = subprocess.run(
                [sys.executable, "-c", _DUMP_JOB, str(partial), QUIET],
                env=env,
                capture_output=True,
                text=True,
                timeout=DUMP_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired as e:
            failed.write_text(f"the dump job took over {e.timeout} s\n")
            return
        if result.returncode != 0 or not partial.exists():
            failed.write_text(f"exit {result.returncode}\n{result.stderr[-3000:]}")
            return
        partial.rename(archive)


def prepare_in_background(archive: Path) -> None:
    """Start `ensure` on a thread, so that the dump runs while the first tests that need no Spark do."""
    threading.Thread(target=ensure, args=(archive,), name="spark-class-archive", daemon=True).start()
