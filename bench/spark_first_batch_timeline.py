"""Where the first micro-batch's latency goes on Spark local[2]: a timeline, printed (not a benchmark
with a target; `bench_spark` measures those). Seconds from `SparkEngine` construction to: the session
up, `start()` returned (queries started), the first micro-batch's trigger, and the first offsets
commit; plus Spark's own `durationMs` of the first two micro-batches.

    python -m bench.spark_first_batch_timeline
"""

from __future__ import annotations

import json
import tempfile
import time
from datetime import datetime
from pathlib import Path

from bench.bench_spark import STRING_CONVERTER, connector
from connectworker.config.connector_config import parse_connector_config
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.spark.engine import SparkEngine
from connectworker.spark.worker_settings import load_spark_worker


def main() -> None:
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        offsets = work / "offsets.json"
        worker = {"bootstrap.servers": broker.bootstrap_servers, "key.converter": STRING_CONVERTER,
                  "value.converter": STRING_CONVERTER, "topic.creation.enable": "true", "spark.master": "local[2]",
                  "spark.trigger.interval.ms": "2000", "spark.checkpoint.location": str(work / "checkpoints"),
                  "spark.conf.spark.ui.enabled": "false", "spark.conf.spark.driver.host": "127.0.0.1",
                  "offset.storage.file.filename": str(offsets)}
        worker_file = work / "worker.properties"
        worker_file.write_text("".join(f"{k}={v}\n" for k, v in worker.items()))
        begin, wall = time.monotonic(), time.time()
        engine = SparkEngine(load_spark_worker(worker_file),
                             [parse_connector_config(connector("timeline", "timeline", 2, 200_000, 100))])
        try:
            engine.start()
            started = time.monotonic() - begin
            assert engine.session_ready is not None
            while not offsets.exists():
                time.sleep(0.05)
            committed = time.monotonic() - begin
            time.sleep(3)
            progress = engine.queries[0].query.recentProgress[:2]
        finally:
            engine.stop()
    first_trigger = datetime.fromisoformat(progress[0]["timestamp"].replace("Z", "+00:00")).timestamp() - wall
    print(f"session up         {engine.session_ready - begin:6.2f} s")
    print(f"queries started    {started:6.2f} s")
    print(f"first trigger      {first_trigger:6.2f} s")
    print(f"first commit       {committed:6.2f} s")
    for p in progress:
        print(f"micro-batch {p['batchId']}: {p['numInputRows']} rows, durationMs {json.dumps(p['durationMs'])}")


if __name__ == "__main__":
    main()
