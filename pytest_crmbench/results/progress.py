"""A progress line for long runs: tasks done / total, running success rate, infra, spend so far.

pytest's own progress is one character per item and silent about cost; a model run of 555 tasks
takes an hour. :class:`Progress` turns the records finished so far into at most one line per
interval (never two for the same count), so a CI log gets a readable pulse, not a flood.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from decimal import Decimal

from pytest_crmbench.results.records import ResultRecord


def spend(records: Iterable[ResultRecord]) -> tuple[Decimal, bool]:
    """Cost of every role's calls so far, and whether some call had no known price."""
    total, unknown = Decimal(0), False
    for record in records:
        for usage in record.usage.values():
            if usage is None or not usage.calls:
                continue
            if usage.cost_usd is None:
                unknown = True
            else:
                total += Decimal(usage.cost_usd)
    return total, unknown


def progress_line(records: list[ResultRecord], total: int, elapsed_s: float) -> str:
    done = len(records)
    scored = [r for r in records if r.scored]
    successes = sum(r.success for r in scored)
    rate = (
        f"{successes / len(scored) * 100:.1f}% success ({successes}/{len(scored)} scored)" if scored else "none scored"
    )
    infra = sum(r.outcome == "infra" for r in records)
    errors = sum(r.outcome == "error" for r in records)
    cost, unknown = spend(records)
    parts = [f"{done}/{total} task results", rate, f"{infra} infra"]
    if errors:
        parts.append(f"{errors} error")
    parts.append(f"${cost:.2f}{'+ (some prices unknown)' if unknown else ''} spent")
    minutes, seconds = divmod(int(elapsed_s), 60)
    parts.append(f"{minutes}m{seconds:02d}s")
    return "crmbench progress: " + ", ".join(parts)


class Progress:
    """Emits :func:`progress_line` at most every ``interval_s`` seconds (0: never)."""

    def __init__(self, total: int, interval_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.interval_s = interval_s
        self.clock = clock
        self.started: float | None = None
        """When the first result came in: unit tests collected with the tasks may run for minutes first."""
        self.last_shown = 0.0
        self.last_count = 0

    def update(self, records: list[ResultRecord]) -> str | None:
        """The line to show now, or None (too soon, nothing new, or disabled)."""
        if not self.interval_s or len(records) == self.last_count:
            return None
        now = self.clock()
        if self.started is None:
            self.started = self.last_shown = now
        if now - self.last_shown < self.interval_s:
            return None
        self.last_shown, self.last_count = now, len(records)
        return progress_line(records, self.total, now - self.started)
