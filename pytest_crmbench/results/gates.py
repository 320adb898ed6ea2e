"""CI gates on a run's results: ``--crm-fail-under``, ``--crm-compare``/``--crm-max-drop``, ``--crm-max-infra``.

One implementation shared by the pytest plugin (which sets the exit status) and ``crmbench gate``,
as coverage.py shares ``should_fail_under`` between its CLI and pytest-cov. Gates read every
result of the run (all trials pooled). ``not_judged`` results are scored non-successes, so a run
without a judge model cannot pass a threshold on the strength of unjudged replies; ``infra`` and
``error`` results are not scored but count against ``--crm-max-infra``. A run in which nothing
was scored never passes a gate.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from pytest_crmbench.results.records import ResultRecord


@dataclass(frozen=True)
class Gates:
    fail_under: float | None = None
    """Minimum strict accuracy as a fraction (0.80 = 80 %), as DESIGN's ``--crm-fail-under=0.80``."""
    compare: Path | None = None
    """Baseline run directory."""
    max_drop: float | None = None
    """Largest allowed drop against the baseline, in percentage points (default 0 with a baseline)."""
    max_infra: int | None = None
    """Largest allowed number of infra and error results."""

    @property
    def active(self) -> bool:
        return self.fail_under is not None or self.compare is not None or self.max_infra is not None


@dataclass(frozen=True)
class GateVerdict:
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def check_fraction(value: float) -> float:
    """A fail-under threshold must be a fraction; ``80`` is almost certainly a percent in disguise."""
    if not 0 <= value <= 1:
        raise ValueError(f"fail-under takes a fraction between 0 and 1 (0.80 means 80 %), got {value:g}")
    return value


def fails_under(successes: int, scored: int, threshold: float) -> bool:
    """Whether strict accuracy is below the ``threshold`` fraction, exactly (0.3333 passes 1/3 only if it is >=).

    Nothing scored always fails: an empty selection is never a pass.
    """
    return scored == 0 or Fraction(successes, scored) < Fraction(str(threshold))


def _tally(records: Iterable[ResultRecord]) -> tuple[int, int]:
    scored = [r for r in records if r.scored]
    return sum(r.success for r in scored), len(scored)


def _pct(successes: int, scored: int) -> str:
    return f"{successes / scored * 100:.2f}% ({successes}/{scored})" if scored else "n/a (nothing scored)"


def evaluate(gates: Gates, records: Sequence[ResultRecord], baseline: Sequence[ResultRecord] | None) -> GateVerdict:
    failures: list[str] = []
    notes: list[str] = []
    successes, scored = _tally(records)
    if scored == 0:
        failures.append("no task was scored (empty selection, or every result was infra/error)")
    if gates.fail_under is not None and scored:
        shown = f"strict accuracy {_pct(successes, scored)}"
        if fails_under(successes, scored, gates.fail_under):
            failures.append(f"{shown} is below --crm-fail-under={gates.fail_under:g}")
        else:
            notes.append(f"{shown} >= fail-under {gates.fail_under:g}")
    unscored = sum(1 for r in records if not r.scored)
    if gates.max_infra is not None:
        if unscored > gates.max_infra:
            failures.append(f"{unscored} infra/error result(s) exceed --crm-max-infra={gates.max_infra}")
        else:
            notes.append(f"{unscored} infra/error result(s) <= max-infra {gates.max_infra}")
    elif unscored:
        # Excluded from the score, so a passing gate must not hide them (bound them: --crm-max-infra).
        notes.append(f"{unscored} infra/error result(s) excluded from the score")
    if baseline is not None:
        failures.extend(compare(records, baseline, gates.max_drop or 0.0, notes))
    return GateVerdict(failures, notes)


def compare(
    records: Sequence[ResultRecord], baseline: Sequence[ResultRecord], max_drop: float, notes: list[str]
) -> list[str]:
    """Drops against the baseline, overall and per domain, over the tasks both runs have."""
    tasks = {r.task_id for r in records}
    baseline = [r for r in baseline if r.task_id in tasks]
    base_tasks = {r.task_id for r in baseline}
    current = [r for r in records if r.task_id in base_tasks]
    failures = []
    groups = [("overall", current, baseline)]
    for domain in sorted({r.domain or "?" for r in current}):
        groups.append(
            (
                f"domain {domain}",
                [r for r in current if (r.domain or "?") == domain],
                [r for r in baseline if (r.domain or "?") == domain],
            )
        )
    if not _tally(baseline)[1]:
        failures.append("the baseline has no scored result for the selected tasks")
        return failures
    for name, now, before in groups:
        (s1, n1), (s0, n0) = _tally(now), _tally(before)
        if not n1 or not n0:
            continue
        drop = (Fraction(s0, n0) - Fraction(s1, n1)) * 100
        line = f"{name}: {_pct(s1, n1)} vs baseline {_pct(s0, n0)}"
        if drop > Fraction(str(max_drop)):
            failures.append(f"{line}: drop of {float(drop):.2f} pp exceeds --crm-max-drop={max_drop:g}")
        elif name == "overall":
            notes.append(f"{line} (max drop {max_drop:g} pp)")
    return failures
