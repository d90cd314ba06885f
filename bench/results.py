"""The benchmarks' results file, bench/results.md: each benchmark owns one section, replaced whole on
every run, so results of different benchmarks sit side by side with the date and machine they came from."""

from __future__ import annotations

import os
import platform
import re
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

RESULTS = Path(__file__).with_name("results.md")


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def write_section(name: str, body: str) -> Path:
    """Replace (or append) the section `name` of bench/results.md with `body`, and show it."""
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    section = f"<!-- {name} -->\n## {name}\n_{stamp}; {machine()}_\n\n{body.strip()}\n<!-- /{name} -->\n"
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\nWritten by `make bench`.\n\n"
    pattern = re.compile(rf"<!-- {re.escape(name)} -->.*?<!-- /{re.escape(name)} -->\n", re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text + "\n" + section
    RESULTS.write_text(text)
    print(body)
    print(f"written to {RESULTS}")
    return RESULTS


def verdict(value: float, target: float) -> str:
    """How a figure stands against a "at least" target, as the results file says it."""
    return "met" if value >= target else "NOT met"


def ratio_table(first_column: str, results: Mapping[str, Sequence[float]], base: str) -> tuple[str, float]:
    """A Markdown table of records/s per variant (median, every round, ratio to the `base` variant's
    median), and the ratio of the last variant to `base`."""
    base_median = statistics.median(results[base])
    rows = [f"| {first_column} | records/s (median) | rounds | x {base} |", "|---|---:|---|---:|"]
    ratio = 1.0
    for label, rates in results.items():
        ratio = statistics.median(rates) / base_median
        rows.append(
            f"| {label} | {statistics.median(rates):,.0f} | {', '.join(f'{r:,.0f}' for r in rates)} | {ratio:.2f} |"
        )
    return "\n".join(rows), ratio
