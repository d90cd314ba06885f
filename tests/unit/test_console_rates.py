"""The console's numbers: records per second from the tasks' counters (a restarted task counting from 0
again), the slices a sparkline is drawn from, and the sparkline's points."""

from __future__ import annotations

from dataclasses import dataclass, field

from connectworker.rest.console import Activity
from connectworker.rest.sparkline import HEIGHT, MARGIN, WIDTH, sparkline
from connectworker.runtime.observability.rates import RateHistory
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.status import Status


@dataclass
class Counting:
    connector: str
    task_id: int
    produced: int = 0
    status: Status = field(default_factory=Status)

    def stats(self) -> TaskStats:
        return TaskStats(produced=self.produced)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def history(tasks: list[Counting], clock: Clock) -> RateHistory:
    return RateHistory(
        lambda: [(f"task {t.connector}-{t.task_id}", t.status, t) for t in tasks],  # type: ignore[misc]
        interval_s=1.0,
        keep_s=60.0,
        clock=clock,
    )


def test_rates_of_tasks_and_their_connector_from_the_counters() -> None:
    clock, a, b = Clock(), Counting("c", 0), Counting("c", 1)
    rates = history([a, b], clock)
    rates.sample()
    assert rates.rate("c") is None  # one sample: no rate yet
    for _ in range(10):
        clock.now += 1
        a.produced += 100
        b.produced += 50
        rates.maybe_sample()
    assert rates.rate("c", 0) == 100.0 and rates.rate("c", 1) == 50.0 and rates.rate("c") == 150.0
    assert rates.rate("other") == 0.0
    a.produced = 30  # restarted: its counter began again from 0
    clock.now += 1
    rates.sample()
    assert rates.rate("c", 0, window_s=1) == 30.0
    clock.now += 0.5
    rates.maybe_sample()  # too soon: no sample
    assert rates.rate("c", 0, window_s=1) == 30.0


def test_the_series_covers_the_kept_minutes_and_forgets_older_samples() -> None:
    clock, task = Clock(), Counting("c", 0)
    rates = history([task], clock)
    rates.sample()
    for second in range(1, 121):
        clock.now = second
        task.produced += 10 if second <= 90 else 0  # stops after 90 s
        rates.sample()
    series = rates.series("c", 0, points=6)  # 10 s slices of the last 60 s
    assert series == [10.0, 10.0, 10.0, 0.0, 0.0, 0.0]
    early = history([Counting("c", 0)], Clock())
    assert early.series("c", 0, points=4) == [None, None, None, None]


def test_the_sparkline_scales_to_its_peak_and_skips_missing_slices() -> None:
    line = sparkline([None, 0.0, 5.0, 10.0], 300)
    xs_ys = [tuple(map(float, point.split(","))) for point in line.points.split()]
    step = WIDTH / 3
    assert xs_ys == [(round(step, 1), HEIGHT - MARGIN), (round(2 * step, 1), HEIGHT / 2), (WIDTH, MARGIN)]
    assert line.label == "records per second over the last 5 minutes, peak 10.0/s"
    assert sparkline([None, None, 3.0], 300).points == ""  # one point is no line
    flat = sparkline([0.0, 0.0], 60)
    assert flat.points == f"0.0,{HEIGHT - MARGIN:.1f} {WIDTH:.1f},{HEIGHT - MARGIN:.1f}"


def test_rates_and_commit_ages_as_the_page_shows_them() -> None:
    line = sparkline([], 300)
    assert Activity(None, line, None).rate_text == "—"
    assert Activity(12.345, line, None).rate_text == "12.3/s"
    assert Activity(12345.6, line, None).rate_text == "12,346/s"
    assert Activity(None, line, None).commit_age(100) == "no commit yet"
    assert Activity(None, line, 90.0).commit_age(100) == "10 s ago"
    assert Activity(None, line, 0.0).commit_age(125) == "2 min 5 s ago"
    assert Activity(None, line, 0.0).commit_age(7300) == "2 h 1 min ago"
