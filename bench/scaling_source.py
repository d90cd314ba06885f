"""An ordinary source connector (each poll a `list[SourceRecord]` built one record at a time) that splits
`records` over its `tasks.max` tasks, for the task-scaling benchmark. `work.rounds` adds that many rounds
of pure-Python work per record (as parsing a document would; the benchmark calibrates them once, with
`rounds_for`, so that every variant does the same work); 0 is the fastest ordinary connector
(100-character string values, nothing else).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from bench.ordinary_source import BATCH, VARIANTS, OrdinarySource, string_values
from connectworker.api import ConfigDef, ConfigType, SourceRecord, SourceTask

CONFIG_DEF = (
    ConfigDef()
    .define("topic", ConfigType.STRING)
    .define("records", ConfigType.INT)
    .define("work.rounds", ConfigType.INT, 0)
    .define("task.index", ConfigType.INT, 0)
    .define("task.records", ConfigType.INT, 0)
)


def _spin(rounds: int) -> int:
    x = 1
    for _ in range(rounds):
        x = (x * 31 + 7) & 0xFFFF
    return x


def rounds_for(micros: int) -> int:
    """Iterations of `_spin` that take about `micros` microseconds on this machine (the fastest of five
    trials: the others were slowed by a neighbour)."""
    if micros <= 0:
        return 0
    trial = 200_000
    fastest = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        _spin(trial)
        fastest = min(fastest, time.perf_counter() - started)
    return max(1, round(micros / (fastest * 1e6 / trial)))


class ScalingTask(SourceTask):
    def version(self) -> str:
        return "bench"

    def start(self, props: Mapping[str, str]) -> None:
        config = CONFIG_DEF.parse(props)
        self.topic: str = config["topic"]
        index = config["task.index"]
        self.limit: int = config["task.records"]
        self.rounds: int = config["work.rounds"]
        self.values = string_values(100)
        self.partition = {"task": index}
        self.prefix = f"{index}-"
        offset = self.context.offset_storage_reader.offset(self.partition)
        self.seq: int = offset["seq"] if offset else 0
        self.stopped = False

    def poll(self) -> list[SourceRecord] | None:
        if self.stopped or self.seq >= self.limit:
            time.sleep(0.05)
            return None
        stop = min(self.seq + BATCH, self.limit)
        topic, partition, values, prefix, rounds = self.topic, self.partition, self.values, self.prefix, self.rounds
        records = []
        for seq in range(self.seq, stop):
            if rounds:
                _spin(rounds)
            records.append(SourceRecord(partition, {"seq": seq + 1}, topic, values[seq % VARIANTS], prefix + str(seq)))
        self.seq = stop
        return records

    def stop(self) -> None:
        self.stopped = True


class ScalingSource(OrdinarySource):
    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def task_class(self) -> type[SourceTask]:
        return ScalingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        total = int(self.props["records"])
        share, extra = divmod(total, max_tasks)
        return [
            {**self.props, "task.index": str(i), "task.records": str(share + (1 if i < extra else 0))}
            for i in range(max_tasks)
        ]
