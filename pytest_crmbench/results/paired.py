"""Paired comparison of two runs on the same tasks (issue 13): which tasks flipped, and is it noise?

Two runs of a benchmark are not independent samples: they share their tasks, and a task that is
hard for one system is usually hard for the other. Comparing their accuracies as if they were
independent wastes that pairing, so the test works on per-task outcomes:

* one scored result per task on each side: the exact McNemar test on the discordant tasks
  (passed before and fails now, or the opposite); concordant tasks say nothing about a change;
* several trials on either side: a paired bootstrap over tasks of the difference of pooled rates.

Tasks are paired by id; a task scored on one side only (say, ``infra`` in the other run) is left
out of both sides, so the comparison is always over the same tasks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pytest_crmbench.results import stats
from pytest_crmbench.results.records import ResultRecord

MCNEMAR = "exact McNemar"
BOOTSTRAP = "paired bootstrap"


@dataclass(frozen=True)
class TaskPair:
    """One task's scored results in both runs: successes and scored results, now and before."""

    task_id: str
    domain: str
    now: tuple[int, int]
    before: tuple[int, int]

    @property
    def change(self) -> Fraction:
        """Success rate now minus before (-1 for a task that always passed and now always fails)."""
        return Fraction(self.now[0], self.now[1]) - Fraction(self.before[0], self.before[1])

    def shown(self) -> str:
        return f"{self.task_id} ({self.before[0]}/{self.before[1]} -> {self.now[0]}/{self.now[1]})"


@dataclass(frozen=True)
class Comparison:
    """The paired comparison of a run (now) with a baseline (before) over the tasks both scored."""

    pairs: list[TaskPair]
    test: str
    p_value: float
    difference: float
    """Pooled rate now minus pooled rate before, over the paired tasks (negative: a drop)."""
    interval: stats.Interval
    """95 % paired-bootstrap interval of the difference."""

    @property
    def now(self) -> tuple[int, int]:
        return sum(p.now[0] for p in self.pairs), sum(p.now[1] for p in self.pairs)

    @property
    def before(self) -> tuple[int, int]:
        return sum(p.before[0] for p in self.pairs), sum(p.before[1] for p in self.pairs)

    @property
    def worse(self) -> list[TaskPair]:
        """Tasks that succeed less often now, the largest change first."""
        return sorted((p for p in self.pairs if p.change < 0), key=lambda p: (p.change, p.task_id))

    @property
    def better(self) -> list[TaskPair]:
        return sorted((p for p in self.pairs if p.change > 0), key=lambda p: (-p.change, p.task_id))

    def significant(self, alpha: float) -> bool:
        return self.p_value < alpha

    def summary(self) -> str:
        """``-2.10 pp [-4.0, -0.3] over 555 paired tasks; exact McNemar p = 0.031``."""
        low, high = self.interval.low * 100, self.interval.high * 100
        return (
            f"{self.difference * 100:+.2f} pp [{low:+.1f}, {high:+.1f}] over {len(self.pairs)} paired task(s); "
            f"{self.test} {p_phrase(self.p_value)}"
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "p_value": self.p_value,
            "difference": self.difference,
            "interval": self.interval.as_json(),
            "paired_tasks": len(self.pairs),
            "now": {"successes": self.now[0], "scored": self.now[1]},
            "before": {"successes": self.before[0], "scored": self.before[1]},
            "worse": [_pair_json(p) for p in self.worse],
            "better": [_pair_json(p) for p in self.better],
        }


def _pair_json(pair: TaskPair) -> dict[str, Any]:
    return {"task_id": pair.task_id, "domain": pair.domain, "now": list(pair.now), "before": list(pair.before)}


def format_p(p: float) -> str:
    """A p-value as a table cell shows it: ``0.031``, or ``< 0.001``."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def p_phrase(p: float) -> str:
    """A p-value in a sentence: ``p = 0.031``, or ``p < 0.001`` (never ``p = < 0.001``)."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _tally(records: Iterable[ResultRecord]) -> dict[str, tuple[str, int, int]]:
    """Task id -> (domain, successes, scored results)."""
    tally: dict[str, tuple[str, int, int]] = {}
    for record in records:
        if not record.scored:
            continue
        _, successes, scored = tally.get(record.task_id, ("", 0, 0))
        tally[record.task_id] = (record.domain or "?", successes + record.success, scored + 1)
    return tally


def pair_tasks(now: Iterable[ResultRecord], before: Iterable[ResultRecord]) -> list[TaskPair]:
    """Tasks scored in both runs, in id order."""
    current, baseline = _tally(now), _tally(before)
    return [
        TaskPair(task_id, current[task_id][0], current[task_id][1:], baseline[task_id][1:])
        for task_id in sorted(current.keys() & baseline.keys())
    ]


def compare_pairs(pairs: Sequence[TaskPair]) -> Comparison | None:
    """The paired test over ``pairs``; None when there is nothing to compare."""
    bootstrap = stats.paired_bootstrap([(*p.now, *p.before) for p in pairs])
    if bootstrap is None:
        return None
    if all(p.now[1] == 1 and p.before[1] == 1 for p in pairs):
        worse = sum(1 for p in pairs if p.before[0] and not p.now[0])
        better = sum(1 for p in pairs if p.now[0] and not p.before[0])
        return Comparison(
            list(pairs), MCNEMAR, stats.mcnemar_exact(worse, better), bootstrap.difference, bootstrap.interval
        )
    return Comparison(list(pairs), BOOTSTRAP, bootstrap.p_value, bootstrap.difference, bootstrap.interval)


def compare(now: Iterable[ResultRecord], before: Iterable[ResultRecord]) -> Comparison | None:
    return compare_pairs(pair_tasks(now, before))


def by_domain(comparison: Comparison) -> dict[str, Comparison]:
    """The same comparison restricted to each domain."""
    domains = sorted({p.domain for p in comparison.pairs})
    found = {d: compare_pairs([p for p in comparison.pairs if p.domain == d]) for d in domains}
    return {d: c for d, c in found.items() if c is not None}


def flip_lines(comparison: Comparison, limit: int = 10) -> list[str]:
    """The flipped tasks in each direction, at most ``limit`` named per direction."""
    lines = []
    for word, flipped in (("worse", comparison.worse), ("better", comparison.better)):
        if not flipped:
            lines.append(f"{word}: none")
            continue
        named = ", ".join(p.shown() for p in flipped[:limit])
        more = f", and {len(flipped) - limit} more" if len(flipped) > limit else ""
        lines.append(f"{word} ({len(flipped)}): {named}{more}")
    return lines
