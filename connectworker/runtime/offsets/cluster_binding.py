"""Which Kafka cluster an offsets file's offsets were committed against.

Source offsets say how far a connector's records reached *a cluster*. Read against another cluster they
skip data that cluster never received: the memory-only embedded broker starts empty on every run, and a
worker file may be pointed at a new cluster while its offsets file stays. The id of the cluster is kept
next to the file (``<file>.cluster-id``) and checked at every start, once the cluster has answered:

- `bootstrap.servers=embedded`: the offsets of an earlier run are set aside (``<file>.previous-run``) and
  every connector starts from the beginning, with a log line saying so;
- another cluster than the one recorded: a WARN naming both ids and what to do. The offsets are still
  used: data copied between clusters (MirrorMaker) keeps them valid, and only the operator knows.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from connectworker.runtime.offsets.file_store import FileOffsetStore

log = logging.getLogger(__name__)

ID_SUFFIX = ".cluster-id"
PREVIOUS_RUN_SUFFIX = ".previous-run"


def bind_to_cluster(store: FileOffsetStore, cluster_id: str | None, *, embedded: bool) -> None:
    """Check the offsets of `store` (an offsets file) against the cluster that answered, then record it."""
    path = Path(store.path)
    id_file = path.with_name(path.name + ID_SUFFIX)
    recorded = id_file.read_text(encoding="utf-8").strip() if id_file.exists() else None
    connectors = store.connectors()
    if embedded and connectors:
        kept = path.with_name(path.name + PREVIOUS_RUN_SUFFIX)
        shutil.copyfile(path, kept)
        for connector in connectors:
            store.remove(connector)
        store.flush()
        log.info(
            "bootstrap.servers=embedded: the embedded broker starts empty on every run, so the source offsets "
            "an earlier run committed to %s (of %s; kept in %s) are not used: every connector starts from the "
            "beginning",
            path,
            ", ".join(sorted(connectors)),
            kept,
        )
    elif recorded and cluster_id and recorded != cluster_id and connectors:
        log.warning(
            "The source offsets in %s were committed against Kafka cluster %s, but this worker's cluster is %s. "
            "The connectors resume from them, which skips every record this cluster never received. If this is "
            "another cluster (not one the data was copied to), stop the worker and delete %s, or reset each "
            "connector's offsets (PUT /connectors/NAME/stop, then DELETE /connectors/NAME/offsets)",
            path,
            recorded,
            cluster_id,
            path,
        )
    if cluster_id and cluster_id != recorded:
        _write_atomically(id_file, cluster_id + "\n")


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)  # as the offsets file's own first write does
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
