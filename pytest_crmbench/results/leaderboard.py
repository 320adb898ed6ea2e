"""The spec's tables from result records (§A.3, §B, §C): pure aggregation, no pytest, no I/O.

Definitions (``docs/reports.md`` shows each table with an example):

* **Scored** results exclude ``infra`` and ``error`` (both always shown). ``not_judged`` is scored
  and is never a success: strict accuracy = successes / scored. A system with more unscored
  results than the budget (``max_unscored``, ``--crm-max-infra``) is marked wherever it is ranked.
* A **system** is a model (or, without one, an agent). Its **rounds** are its runs' trials in
  order (run start, then trial). Tables 6-8 and figures 5, 13, 14, 16 use each system's first
  round, the single-run snapshot of spec §A.3; table 9 uses every round.
* Every rate carries a **95 % interval**: Wilson's for one round (one result per task), a
  bootstrap over tasks for a mean over rounds (a task's trials are not independent).
* **Cost** is the cache-neutral agent-model cost only (spec §A.3); ``n/a`` when the price of
  some call is unknown or no model was used, never 0.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from typing import Any

from pytest_crmbench.core.families import GRADING_ORDER, LABEL_PRIORITY
from pytest_crmbench.core.spec import DIFFICULTIES
from pytest_crmbench.grading import JUDGE_FAILED
from pytest_crmbench.results import stats
from pytest_crmbench.results.records import ROLES, ResultRecord

COMPONENT_COLUMNS: tuple[str, ...] = tuple(family.label for family in GRADING_ORDER)
"""Figure 14's columns: every check family, by label, in grading order."""


@dataclass(frozen=True)
class Count:
    successes: int = 0
    total: int = 0

    @property
    def rate(self) -> Fraction | None:
        return stats.rate(self.successes, self.total)

    @property
    def interval(self) -> stats.Interval | None:
        """Wilson's 95 % interval: the results of one round are one result per task."""
        return stats.wilson(self.successes, self.total)

    def add(self, success: bool) -> Count:
        return Count(self.successes + success, self.total + 1)


@dataclass(frozen=True)
class RoleUsage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: Decimal | None = None
    """None: unknown (some call had no price) or no usage at all."""


@dataclass(frozen=True)
class RoundSummary:
    """Every figure of one round of one system."""

    results: int
    successes: int
    failures: int
    not_judged: int
    infra: int
    errors: int
    tampered: int
    """Failures whose episode the referee ended as ``tampered`` (counted in ``failures`` too)."""
    by_domain: dict[str, Count]
    by_difficulty: dict[str, Count]
    labels: dict[str, int]
    components: dict[str, Count]
    positive: Count
    constrained: Count
    compliance: Count
    usage: dict[str, RoleUsage]
    mean_latency_s: float | None
    unjudged_criteria: int
    tasks_with_unjudged_criteria: int
    spec_overall: Count
    """Strict success over the specification's six families alone (conduct failures forgiven)."""
    judge_failed_criteria: int = 0
    """Of ``unjudged_criteria``, those a configured judge failed on (the rest had no judge)."""

    @property
    def scored(self) -> int:
        return self.successes + self.failures + self.not_judged

    @property
    def unscored(self) -> int:
        return self.infra + self.errors

    @property
    def overall(self) -> Count:
        return Count(self.successes, self.scored)

    @property
    def accuracy(self) -> Fraction | None:
        return self.overall.rate

    @property
    def macro(self) -> Fraction | None:
        """Unweighted mean of the per-domain strict success rates (spec table 6)."""
        rates = [c.rate for c in self.by_domain.values() if c.rate is not None]
        return sum(rates, Fraction(0)) / len(rates) if rates else None

    @property
    def cost_per_success(self) -> Decimal | None:
        cost = self.usage["agent"].cost_usd
        return None if cost is None or not self.successes else cost / self.successes


def summarize(records: Iterable[ResultRecord]) -> RoundSummary:
    records = list(records)
    scored = [r for r in records if r.scored]
    outcomes = Counter(r.outcome for r in records)
    by_domain: dict[str, Count] = defaultdict(Count)
    by_difficulty: dict[str, Count] = defaultdict(Count)
    components: dict[str, Count] = defaultdict(Count)
    positive = constrained = compliance = spec_overall = Count()
    labels: Counter[str] = Counter()
    for record in scored:
        spec_overall = spec_overall.add(record.spec_success())
        by_domain[record.domain or "?"] = by_domain[record.domain or "?"].add(record.success)
        by_difficulty[record.difficulty or "?"] = by_difficulty[record.difficulty or "?"].add(record.success)
        if not record.success:
            labels[record.primary_label or record.outcome] += 1
        for family, passed in _component_verdicts(record).items():
            components[family] = components[family].add(passed)
        if record.policy_constrained():
            constrained = constrained.add(record.success)
            compliance = compliance.add(record.negative_compliant())
        else:
            positive = positive.add(record.success)
    unjudged = [sum(c.status == "not_judged" for c in r.checks) for r in scored]
    judge_failed = sum(c.status == "not_judged" and c.diff.startswith(JUDGE_FAILED) for r in scored for c in r.checks)
    latencies = [r.latency_s for r in records if r.latency_s is not None]
    return RoundSummary(
        results=len(records),
        successes=outcomes["success"],
        failures=outcomes["failure"],
        not_judged=outcomes["not_judged"],
        infra=outcomes["infra"],
        errors=outcomes["error"],
        tampered=sum(1 for r in records if r.termination == "tampered"),
        by_domain=dict(sorted(by_domain.items())),
        by_difficulty=_ordered_difficulties(by_difficulty),
        labels=dict(labels),
        components=dict(components),
        positive=positive,
        constrained=constrained,
        compliance=compliance,
        usage={role: _role_usage(records, role) for role in ROLES},
        mean_latency_s=sum(latencies) / len(latencies) if latencies else None,
        unjudged_criteria=sum(unjudged),
        tasks_with_unjudged_criteria=sum(1 for n in unjudged if n),
        spec_overall=spec_overall,
        judge_failed_criteria=judge_failed,
    )


def _component_verdicts(record: ResultRecord) -> dict[str, bool]:
    """Family -> whether all its recorded verdicts passed, per task (figure 14's unit).

    Only declared, recorded verdicts count: undeclared families and ``not_judged`` verdicts are
    left out of the denominator, as in the spec.
    """
    verdicts: dict[str, bool] = {}
    for check in record.checks:
        if check.status != "not_judged":
            verdicts[check.family] = verdicts.get(check.family, True) and check.status == "passed"
    return verdicts


def _ordered_difficulties(counts: dict[str, Count]) -> dict[str, Count]:
    order = [*DIFFICULTIES, *sorted(set(counts) - set(DIFFICULTIES))]
    return {d: counts[d] for d in order if d in counts}


def _role_usage(records: Sequence[ResultRecord], role: str) -> RoleUsage:
    used = [u for r in records if (u := r.usage.get(role)) is not None and u.calls]
    if not used:
        return RoleUsage()
    costs = [u.cost_usd for u in used]
    known = None if any(c is None for c in costs) else sum((Decimal(c) for c in costs if c is not None), Decimal(0))
    return RoleUsage(
        calls=sum(u.calls for u in used),
        prompt_tokens=sum(u.prompt_tokens for u in used),
        completion_tokens=sum(u.completion_tokens for u in used),
        cost_usd=known,
    )


@dataclass(frozen=True)
class Round:
    run: str
    trial: int
    records: list[ResultRecord]


@dataclass(frozen=True)
class SystemResult:
    """A system's rounds. The bootstrap figures are computed once (cached): a report asks for
    them in several tables, and each costs thousands of resamples."""

    system: str
    runs: list[str]
    rounds: list[Round]
    summaries: list[RoundSummary]
    _by_domain: dict[str, Reliability] = field(default_factory=dict, compare=False, repr=False)

    @property
    def first(self) -> RoundSummary:
        return self.summaries[0]

    @property
    def round_rates(self) -> list[Fraction | None]:
        return [s.accuracy for s in self.summaries]

    @property
    def mean(self) -> float | None:
        rates = [r for r in self.round_rates if r is not None]
        return stats.mean(rates) if rates else None

    @property
    def std(self) -> float | None:
        return stats.sample_std([r for r in self.round_rates if r is not None])

    @cached_property
    def pass_k(self) -> Fraction | None:
        """pass^k with k = the number of rounds, over tasks scored in every round."""
        return _pass_k(self.task_outcomes().values(), len(self.rounds))

    def task_outcomes(self, domain: str | None = None) -> dict[str, list[bool | None]]:
        """Task id -> its outcome in each round (None: not scored there), optionally for one domain."""
        outcomes: dict[str, list[bool | None]] = {}
        for index, round_ in enumerate(self.rounds):
            for record in round_.records:
                if domain is not None and (record.domain or "?") != domain:
                    continue
                row = outcomes.setdefault(record.task_id, [None] * len(self.rounds))
                row[index] = record.success if record.scored else None
        return outcomes

    @cached_property
    def mean_interval(self) -> stats.Interval | None:
        """The 95 % interval of the round mean: Wilson for one round, else a cluster bootstrap over tasks."""
        return stats.rate_interval(list(self.task_outcomes().values()))

    @cached_property
    def flip_rate(self) -> Fraction | None:
        return stats.flip_rate(list(self.task_outcomes().values()))

    def reliability(self, domain: str) -> Reliability:
        if domain not in self._by_domain:
            self._by_domain[domain] = self._reliability(domain)
        return self._by_domain[domain]

    def _reliability(self, domain: str) -> Reliability:
        outcomes = list(self.task_outcomes(domain).values())
        return Reliability(
            mean=stats.rounds_rate(outcomes),
            interval=stats.rate_interval(outcomes),
            pass_k=_pass_k(outcomes, len(self.rounds)),
            flip_rate=stats.flip_rate(outcomes),
        )


@dataclass(frozen=True)
class Reliability:
    """A system's repeated-round figures in one domain."""

    mean: float | None
    interval: stats.Interval | None
    pass_k: Fraction | None
    flip_rate: Fraction | None


def _pass_k(tasks: Iterable[list[bool | None]], k: int) -> Fraction | None:
    scored = ([o for o in task if o is not None] for task in tasks)
    return stats.pass_hat_k(((len(v), sum(v)) for v in scored), k)


@dataclass(frozen=True)
class RunInput:
    """One run as the report sees it: a name, a system, a start time and its records."""

    name: str
    system: str
    created_at: str
    records: list[ResultRecord]


@dataclass(frozen=True)
class Leaderboard:
    systems: list[SystemResult]
    domains: list[str]
    difficulties: list[str]
    ranks: list[int | None] = field(default_factory=list)
    max_unscored: int = 0
    """The unscored budget (``--crm-max-infra``): a system with more infra/error results in its
    first round is marked wherever it is ranked, since its accuracy leaves them out."""

    def over_budget(self, system: SystemResult) -> bool:
        return system.first.unscored > self.max_unscored

    @property
    def max_rounds(self) -> int:
        return max((len(s.rounds) for s in self.systems), default=0)

    def metric_values(self) -> dict[str, list[Fraction | None]]:
        """Figure 16's higher-is-better metrics, one value per system."""
        metrics: dict[str, list[Fraction | None]] = {
            "accuracy": [s.first.accuracy for s in self.systems],
            "macro": [s.first.macro for s in self.systems],
        }
        for difficulty in self.difficulties:
            metrics[difficulty] = [_rate(s.first.by_difficulty, difficulty) for s in self.systems]
        for domain in self.domains:
            metrics[domain] = [_rate(s.first.by_domain, domain) for s in self.systems]
        return metrics

    def separations(self) -> list[Separation]:
        """Neighbours in table 6's order: do their first-round 95 % intervals overlap?"""
        pairs = []
        for ahead, behind in zip(self.systems, self.systems[1:], strict=False):
            a, b = ahead.first.overall.interval, behind.first.overall.interval
            if a is not None and b is not None:
                pairs.append(Separation(ahead.system, behind.system, a, b, a.overlaps(b)))
        return pairs

    def metric_ranks(self) -> dict[str, list[int | None]]:
        return {metric: stats.competition_ranks(values) for metric, values in self.metric_values().items()}

    def spearman(self) -> list[tuple[int, int, float | None, int]]:
        """(round a, round b, rho, systems compared) for every pair of rounds (table 9)."""
        pairs = []
        for a in range(self.max_rounds):
            for b in range(a + 1, self.max_rounds):
                both = [s for s in self.systems if len(s.rounds) > b]
                x = [s.round_rates[a] for s in both]
                y = [s.round_rates[b] for s in both]
                kept = [(u, v) for u, v in zip(x, y, strict=True) if u is not None and v is not None]
                rho = stats.spearman([u for u, _ in kept], [v for _, v in kept])
                pairs.append((a + 1, b + 1, rho, len(kept)))
        return pairs


@dataclass(frozen=True)
class Separation:
    ahead: str
    behind: str
    ahead_interval: stats.Interval
    behind_interval: stats.Interval
    overlap: bool

    def sentence(self) -> str:
        shown = f"{_span(self.ahead_interval)} vs {_span(self.behind_interval)}"
        if self.overlap:
            return (
                f"{self.ahead} and {self.behind}: the 95 % intervals overlap ({shown}), "
                "so these tasks do not establish which is better."
            )
        return f"{self.ahead} is ahead of {self.behind} beyond the 95 % intervals ({shown})."


def _span(interval: stats.Interval) -> str:
    return f"{interval.low * 100:.1f}-{interval.high * 100:.1f} %"


def _rate(counts: dict[str, Count], key: str) -> Fraction | None:
    return counts[key].rate if key in counts else None


def rounds_of(runs: Sequence[RunInput]) -> list[Round]:
    """A system's rounds: each run's trials, runs in start order."""
    rounds: list[Round] = []
    for run in sorted(runs, key=lambda r: (r.created_at, r.name)):
        by_trial: dict[int, list[ResultRecord]] = defaultdict(list)
        for record in run.records:
            by_trial[record.trial].append(record)
        rounds.extend(Round(run.name, trial, by_trial[trial]) for trial in sorted(by_trial))
    return rounds


def build(runs: Sequence[RunInput], *, max_unscored: int = 0) -> Leaderboard:
    grouped: dict[str, list[RunInput]] = defaultdict(list)
    for run in runs:
        grouped[run.system].append(run)
    systems = []
    for system, members in grouped.items():
        rounds = rounds_of(members) or [Round(members[0].name, 0, [])]
        systems.append(
            SystemResult(
                system=system,
                runs=[m.name for m in members],
                rounds=rounds,
                summaries=[summarize(r.records) for r in rounds],
            )
        )
    systems.sort(key=lambda s: (-(s.first.accuracy or Fraction(-1)), s.system))
    domains = sorted({d for s in systems for d in s.first.by_domain})
    present = {d for s in systems for d in s.first.by_difficulty}
    difficulties = [d for d in (*DIFFICULTIES, *sorted(present - set(DIFFICULTIES))) if d in present]
    ranks = stats.competition_ranks([s.first.accuracy for s in systems])
    return Leaderboard(
        systems=systems, domains=domains, difficulties=difficulties, ranks=ranks, max_unscored=max_unscored
    )


def by_round_mean(systems: Iterable[SystemResult]) -> list[SystemResult]:
    """Table 9's order, as the spec defines it: by the equal-weight mean of the round rates, best
    first (a system with nothing scored last), ties by name. The markdown, the HTML and the JSON
    share it: the HTML once ordered table 9 by the first round (issue 32)."""
    return sorted(systems, key=lambda s: (s.mean is None, -(s.mean or 0.0), s.system))


def label_columns(leaderboard: Leaderboard) -> list[str]:
    """Figure 13's sectors: primary labels in priority order, then other outcomes seen."""
    seen = {label for s in leaderboard.systems for label in s.first.labels}
    return [*(label for label in LABEL_PRIORITY if label in seen), *sorted(seen - set(LABEL_PRIORITY))]


def as_json(leaderboard: Leaderboard) -> dict[str, Any]:
    """The same tables as data: rates in [0, 1] (floats) next to their exact counts."""
    ranks = leaderboard.metric_ranks()
    systems = []
    for index, system in enumerate(leaderboard.systems):
        first = system.first
        systems.append(
            {
                "system": system.system,
                "runs": system.runs,
                "rank": leaderboard.ranks[index],
                "results": first.results,
                "scored": first.scored,
                "successes": first.successes,
                "failures": first.failures,
                "not_judged": first.not_judged,
                "infra": first.infra,
                "errors": first.errors,
                "tampered": first.tampered,
                "unscored_over_budget": leaderboard.over_budget(system),
                "accuracy": _float(first.accuracy),
                "accuracy_interval": _interval(first.overall.interval),
                "domain_macro": _float(first.macro),
                "spec_accuracy": _float(first.spec_overall.rate),
                "agent_cost_usd": _decimal(first.usage["agent"].cost_usd),
                "cost_per_success_usd": _decimal(first.cost_per_success),
                "mean_latency_s": first.mean_latency_s,
                "by_difficulty": _counts(first.by_difficulty),
                "by_domain": _counts(first.by_domain),
                "failure_labels": first.labels,
                "components": _counts(first.components),
                "positive": _count(first.positive),
                "policy_constrained": _count(first.constrained),
                "negative_compliance": _count(first.compliance),
                "usage": {
                    role: {
                        "calls": u.calls,
                        "prompt_tokens": u.prompt_tokens,
                        "completion_tokens": u.completion_tokens,
                        "cost_usd": _decimal(u.cost_usd),
                    }
                    for role, u in first.usage.items()
                },
                "metric_ranks": {metric: values[index] for metric, values in ranks.items()},
                "rounds": [
                    {"run": r.run, "trial": r.trial, **_count(s.overall), "infra": s.infra, "errors": s.errors}
                    for r, s in zip(system.rounds, system.summaries, strict=True)
                ],
                "round_mean": system.mean,
                "round_mean_interval": _interval(system.mean_interval),
                "round_std": system.std,
                "pass_hat_k": _float(system.pass_k),
                "flip_rate": _float(system.flip_rate),
                "k": len(system.rounds),
                "reliability_by_domain": {
                    domain: _reliability(system.reliability(domain)) for domain in leaderboard.domains
                },
            }
        )
    return {
        "format": "crmbench-leaderboard/1",
        "systems": systems,
        "domains": leaderboard.domains,
        "difficulties": leaderboard.difficulties,
        "max_unscored": leaderboard.max_unscored,
        "spearman": [{"rounds": [a, b], "rho": rho, "systems": n} for a, b, rho, n in leaderboard.spearman()],
        "separations": [
            {"ahead": p.ahead, "behind": p.behind, "overlap": p.overlap, "sentence": p.sentence()}
            for p in leaderboard.separations()
        ],
    }


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def _decimal(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def _interval(interval: stats.Interval | None) -> dict[str, Any] | None:
    return None if interval is None else interval.as_json()


def _reliability(reliability: Reliability) -> dict[str, Any]:
    return {
        "mean": reliability.mean,
        "interval": _interval(reliability.interval),
        "pass_hat_k": _float(reliability.pass_k),
        "flip_rate": _float(reliability.flip_rate),
    }


def _count(count: Count) -> dict[str, Any]:
    return {
        "successes": count.successes,
        "total": count.total,
        "rate": _float(count.rate),
        "interval": _interval(count.interval),
    }


def _counts(counts: dict[str, Count]) -> dict[str, dict[str, Any]]:
    return {key: _count(count) for key, count in counts.items()}
