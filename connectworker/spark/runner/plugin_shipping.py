"""`plugin.path` on a cluster: `connectworker spark` ships each entry to the executors.

Connector modules in a `plugin.path` directory exist on the driver's machine; executors elsewhere
would not find them. So each directory is zipped (its contents, so that its modules and packages are
at the archive's top level, as they are on the import path) and handed to `SparkContext.addPyFile`,
like a zip or wheel listed there as it is. Spark copies the archives to every executor and puts them
on its Python path. This must happen before the data sources are registered: each registration
records the Python files to ship with its functions.
"""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Sequence
from pathlib import Path

from pyspark import SparkContext

log = logging.getLogger(__name__)

SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".venv"})


def zip_directory(directory: Path, target: Path) -> Path:
    """`directory`'s files (not the directory itself) in a new zip archive `target`."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(directory.rglob("*")):
            relative = path.relative_to(directory)
            if path.is_file() and not SKIPPED_DIRS.intersection(relative.parts) and path.suffix != ".pyc":
                archive.write(path, relative.as_posix())
    return target


def ship_plugin_paths(context: SparkContext, plugin_path: Sequence[str], work_dir: Path) -> list[str]:
    """Ship every existing `plugin.path` entry to the executors; the archives shipped."""
    shipped = []
    for n, entry in enumerate(plugin_path):
        path = Path(entry).resolve()
        if path.is_dir():
            archive = str(zip_directory(path, work_dir / f"plugin-path-{n}-{path.name}.zip"))
        elif path.is_file():
            archive = str(path)  # a zip of modules, or a wheel
        else:
            continue  # reported already when the worker file was read
        context.addPyFile(archive)
        shipped.append(archive)
        log.info("plugin.path entry %s is shipped to the executors (%s)", entry, archive)
    return shipped
