"""A sparkline of records per second, drawn on the server as inline SVG.

A polyline of at most a few dozen points needs no chart library: the page stays free of third-party
code (its Content-Security-Policy allows only its own script), and the chart is there without any
script at all. The template draws `Sparkline.points` in a `viewBox` of `WIDTH` x `HEIGHT`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 120
HEIGHT = 24
MARGIN = 2  # keeps the line's stroke inside the box at the top and bottom


@dataclass(frozen=True)
class Sparkline:
    points: str  # "x,y x,y ...", empty when there is nothing to draw
    peak: float  # the highest rate drawn (the top of the box), records/s
    minutes: float  # the time the box spans

    @property
    def label(self) -> str:
        """What a screen reader says, and a tooltip shows."""
        if not self.points:
            return "no rate history yet"
        return f"records per second over the last {self.minutes:g} minutes, peak {self.peak:.1f}/s"


def sparkline(rates: Sequence[float | None], seconds: float) -> Sparkline:
    """The line of `rates` (oldest first, equally spaced over `seconds`; None: no sample, not drawn)."""
    drawn = [(i, rate) for i, rate in enumerate(rates) if rate is not None]
    peak = max((rate for _, rate in drawn), default=0.0)
    step = WIDTH / max(1, len(rates) - 1)
    usable = HEIGHT - 2 * MARGIN

    def y(rate: float) -> float:
        return HEIGHT - MARGIN - (rate / peak * usable if peak > 0 else 0.0)

    points = " ".join(f"{i * step:.1f},{y(rate):.1f}" for i, rate in drawn)
    return Sparkline(points if len(drawn) > 1 else "", peak, seconds / 60)
