"""Local Python workers that import PySpark compiled, not from Spark's zip of sources.

Spark starts every Python process it needs (the data source planners, the streaming source and
sink runners, the task workers) with ``$SPARK_HOME/python/lib/pyspark.zip`` and py4j's zip first on
`PYTHONPATH`. With PySpark installed from pip, ``SPARK_HOME`` is the installed `pyspark` package and
that zip holds the very sources the package has, but Python caches no bytecode for modules imported
from a zip: each of those processes compiles PySpark again, about 0.5 s of CPU, and Spark starts six
of them one after the other before a query's first commit (measured with
`python -m bench.spark_first_batch_timeline`).

For a local master running the driver's own interpreter, `connectworker spark` therefore names as
the Python executable a two-line shell script that drops exactly those two zips from `PYTHONPATH` and
executes the interpreter: the same PySpark, imported from the package with its cached bytecode.
Clusters, other interpreters and a `SPARK_HOME` of its own are left as they are.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
from pathlib import Path

LAUNCHER_NAME = "python-without-spark-zips"
_written: set[str] = set()


def spark_zips() -> list[Path]:
    """The zips Spark puts on the workers' path when `SPARK_HOME` is the installed pyspark package
    (none when `SPARK_HOME` names another Spark: its zip may hold another PySpark)."""
    import pyspark

    package = Path(pyspark.__file__).resolve().parent
    home = os.environ.get("SPARK_HOME")
    if home is not None and Path(home).resolve() != package:
        return []
    lib = package / "python" / "lib"
    return sorted(p for p in lib.glob("*.zip") if p.name == "pyspark.zip" or p.name.startswith("py4j-"))


def write_launcher(directory: Path, python: str = sys.executable) -> str | None:
    """Write the launcher of `python` into `directory` and return its path; None when Spark's zips are
    not where the installed package has them (nothing to drop)."""
    zips = spark_zips()
    if not zips:
        return None
    drop = " ".join(shlex.quote(str(z)) for z in zips)
    script = directory / LAUNCHER_NAME
    script.write_text(
        "#!/bin/sh\n"
        "# Written by connectworker (connectworker/spark/python_launcher.py): runs the Python below\n"
        "# without Spark's zips of PySpark's sources, so it imports the installed, compiled PySpark.\n"
        "set -f\n"
        "kept=\n"
        "IFS=:\n"
        "for entry in $PYTHONPATH; do\n"
        f'  for dropped in {drop}; do [ "$entry" = "$dropped" ] && continue 2; done\n'
        '  kept="${kept:+$kept:}$entry"\n'
        "done\n"
        "unset IFS\n"
        "PYTHONPATH=$kept\n"
        "export PYTHONPATH\n"
        f'exec {shlex.quote(python)} "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    _written.add(str(script))
    return str(script)


def is_launcher(path: str) -> bool:
    """Whether `path` is a launcher this process wrote (it runs this process's interpreter)."""
    return path in _written


def runs_this_interpreter(python: str) -> bool:
    """Whether `python` (a path, or a name looked up on PATH) is this process's interpreter or one of
    its launchers. The path is compared, not its target: a virtualenv's python is a link to the base
    interpreter, which has other packages."""
    found = shutil.which(python) or python
    return is_launcher(python) or os.path.abspath(found) == os.path.abspath(sys.executable)
