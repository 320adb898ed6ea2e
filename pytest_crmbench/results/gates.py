"""CI gates on a run's results: ``--crm-fail-under``, ``--crm-compare``/``--crm-max-drop``, ``--crm-max-infra``.

One implementation shared by the pytest plugin (which sets the exit status) and ``crmbench gate``,
as coverage.py shares ``should_fail_under`` between its CLI and pytest-cov. Gates read every
result of the run (all trials pooled). ``not_judged`` results are scored non-successes, so a run
without a judge model cannot pass a threshold on the strength of unjudged replies.

``infra`` and ``error`` results are unscored in reports, but a gate counts them as failures unless
``--crm-max-infra=N`` allows them (at most N): a run must not pass a gate by losing the tasks it
would fail (issue 11 item 1). A run in which nothing was scored never passes a gate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from pytest_crmbench.results import paired, stats
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
    significance: float | None = None
    """With a baseline: a drop beyond ``max_drop`` fails only when the paired test's p-value is
    below this level (per-domain tests at this level divided by the number of domains)."""

    @property
    def active(self) -> bool:
        return self.fail_under is not None or self.compare is not None or self.max_infra is not None


@dataclass(frozen=True)
class GateVerdict:
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    comparison: paired.Comparison | None = None
    """The paired comparison with the baseline, when there is one (flipped tasks, test)."""

    @property
    def passed(self) -> bool:
        return not self.failures


def not_gate_worthy(manifest: Mapping[str, Any]) -> str | None:
    """Why a saved run may not be gated (None: it may): its agent ran in pytest's process."""
    if manifest.get("gate_worthy") is False:
        return (
            f"{manifest.get('agent')} ran in pytest's process (--crm-agent-inprocess), where it could reach"
            " everything: the run is not gate-worthy; run it again without --crm-agent-inprocess"
        )
    return None


def check_fraction(value: float, name: str = "fail-under") -> float:
    """A fail-under threshold must be a fraction; ``80`` is almost certainly a percent in disguise."""
    if not 0 <= value <= 1:
        raise ValueError(f"{name} takes a fraction between 0 and 1 (0.80 means 80 %), got {value:g}")
    return value


def check_significance(value: float) -> float:
    """A significance level is a probability strictly between 0 and 1 (0.05, not 5)."""
    if not 0 < value < 1:
        raise ValueError(f"significance takes a level between 0 and 1 exclusive (0.05 means 5 %), got {value:g}")
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


def _accuracy(records: Sequence[ResultRecord]) -> str:
    """Pooled strict accuracy with its 95 % interval (Wilson, or a bootstrap over tasks for trials)."""
    successes, scored = _tally(records)
    outcomes: dict[str, dict[int, bool]] = {}
    for record in records:
        if record.scored:
            outcomes.setdefault(record.task_id, {})[record.trial] = record.success
    trials = 1 + max((r.trial for r in records), default=0)
    interval = stats.rate_interval([[task.get(t) for t in range(trials)] for task in outcomes.values()])
    shown = "" if interval is None else f" [{interval.low * 100:.1f}-{interval.high * 100:.1f}]"
    return _pct(successes, scored) + shown


def _as_failure(record: ResultRecord) -> ResultRecord:
    return record if record.scored else record.model_copy(update={"outcome": "failure"})


def evaluate(gates: Gates, records: Sequence[ResultRecord], baseline: Sequence[ResultRecord] | None) -> GateVerdict:
    failures: list[str] = []
    notes: list[str] = []
    unscored = sum(1 for r in records if not r.scored)
    excused = gates.max_infra is not None and unscored <= gates.max_infra
    if not any(r.scored for r in records):
        failures.append("no task was scored (empty selection, or every result was infra/error)")
    gated = list(records) if excused else [_as_failure(r) for r in records]
    successes, scored = _tally(gated)
    if gates.fail_under is not None and scored and not failures:
        shown = f"strict accuracy {_accuracy(gated)}"
        if fails_under(successes, scored, gates.fail_under):
            failures.append(f"{shown} is below --crm-fail-under={gates.fail_under:g}")
        else:
            notes.append(f"{shown} >= fail-under {gates.fail_under:g}")
    if gates.max_infra is not None:
        if unscored > gates.max_infra:
            failures.append(f"{unscored} infra/error result(s) exceed --crm-max-infra={gates.max_infra}")
        else:
            notes.append(f"{unscored} infra/error result(s) <= max-infra {gates.max_infra}, left out of the gate")
    elif unscored:
        # Not scored in reports, but a gate must not pass on the tasks a run lost: they count as
        # failures here unless --crm-max-infra allows them.
        notes.append(f"{unscored} infra/error result(s) counted as failures (allow them with --crm-max-infra)")
    comparison = None
    if baseline is not None:
        # This run's unscored results count as failures too (unless allowed); the baseline's never do.
        comparison = paired.compare(gated, baseline)
        failures.extend(compare(comparison, gates.max_drop or 0.0, gates.significance, notes))
    return GateVerdict(failures, notes, comparison)


def compare(
    comparison: paired.Comparison | None, max_drop: float, significance: float | None, notes: list[str]
) -> list[str]:
    """Drops against the baseline, overall and per domain, over the tasks both runs scored.

    Without ``significance`` any drop beyond ``max_drop`` fails. With it, the drop must also be
    significant in the paired test; each domain is tested at ``significance`` divided by the
    number of domains (Bonferroni), so nine domains do not give nine chances of a false alarm.
    """
    if comparison is None:
        return ["no task was scored in both this run and the baseline"]
    domains = paired.by_domain(comparison)
    level = None if significance is None else significance / max(1, len(domains))
    groups = [("overall", comparison, significance)]
    groups += [(f"domain {d}", c, level) for d, c in domains.items()]
    failures = []
    for name, group, alpha in groups:
        (s1, n1), (s0, n0) = group.now, group.before
        drop = (Fraction(s0, n0) - Fraction(s1, n1)) * 100
        line = f"{name}: {_pct(s1, n1)} vs baseline {_pct(s0, n0)}"
        test = f"{group.test} {paired.p_phrase(group.p_value)}"
        if drop > Fraction(str(max_drop)):
            exceeds = f"{line}: drop of {float(drop):.2f} pp exceeds --crm-max-drop={max_drop:g}"
            if alpha is None:
                failures.append(f"{exceeds} ({test})")
            elif group.significant(alpha):
                failures.append(f"{exceeds} and is significant ({test} < {alpha:.3g})")
            else:
                notes.append(f"{exceeds} but is not significant ({test} >= {alpha:.3g}): treated as noise")
        elif name == "overall":
            notes.append(f"{line} (max drop {max_drop:g} pp; {test})")
    return failures
