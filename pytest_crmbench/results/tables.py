"""Markdown and terminal lines for a :class:`~pytest_crmbench.results.leaderboard.Leaderboard` (no pytest)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from pytest_crmbench.results import stats
from pytest_crmbench.results.leaderboard import (
    COMPONENT_COLUMNS,
    Count,
    Leaderboard,
    RoundSummary,
    SystemResult,
    by_round_mean,
    label_columns,
)


def pct(value: Fraction | float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{float(value) * 100:.{digits}f}%"


def span(interval: stats.Interval | None) -> str:
    """A 95 % interval in percent, one decimal: ``[9.7-70.0]``."""
    return "" if interval is None else f"[{interval.low * 100:.1f}-{interval.high * 100:.1f}]"


def cell(count: Count) -> str:
    """Rate, counts and 95 % interval: ``33.33% (2/6) [9.7-70.0]``."""
    return f"{pct(count.rate)} ({count.successes}/{count.total}) {span(count.interval)}" if count.total else "n/a"


def usd(value: Decimal | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:.4f}" if abs(value) < 1 else f"${value:,.2f}"


def rank_label(rank: int | None, shared: bool) -> str:
    return "-" if rank is None else f"{rank}=" if shared else str(rank)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured markdown table (also readable as plain text in a terminal)."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=True)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(str(v).ljust(w) for v, w in zip(values, widths, strict=True)) + " |"

    return [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *(line(r) for r in rows)]


OVER_BUDGET, TAMPERED = "(!)", "(T)"


def headline(leaderboard: Leaderboard) -> list[str]:
    """Table 6: strict accuracy ranked, ties marked ``=``; infra and errors always shown.

    A system over the unscored budget is marked ``(!)`` and one with tampered results ``(T)``, each
    explained under the table: neither may rank quietly.
    """
    shared = stats.tied(leaderboard.ranks)
    rows = []
    for index, system in enumerate(leaderboard.systems):
        first = system.first
        marks = [OVER_BUDGET] * leaderboard.over_budget(system) + [TAMPERED] * bool(first.tampered)
        rows.append(
            [
                rank_label(leaderboard.ranks[index], shared[index]),
                " ".join([system.system, *marks]),
                pct(first.accuracy),
                span(first.overall.interval) or "n/a",
                f"{first.successes}/{first.scored}",
                pct(first.macro),
                pct(first.spec_overall.rate),
                str(first.not_judged),
                str(first.infra),
                str(first.errors),
                usd(first.usage["agent"].cost_usd),
                usd(first.cost_per_success),
            ]
        )
    header = ["Rank", "System", "Strict acc.", "95% CI", "Passes/N", "Domain macro", "Spec six", "Not judged", "Infra"]
    notes = [f"{SPEC_SIX_NOTE}", *headline_notes(leaderboard)]
    return table([*header, "Errors", "Agent cost", "Cost/success"], rows) + notes


SPEC_SIX_NOTE = (
    "Spec six: strict accuracy over the specification's six check families alone (our conduct rules"
    " not applied), comparable with the specification's protocol"
)


def headline_notes(leaderboard: Leaderboard) -> list[str]:
    notes = []
    for system in leaderboard.systems:
        first = system.first
        if leaderboard.over_budget(system):
            notes.append(
                f"{OVER_BUDGET} {system.system}: {first.unscored} of {first.results} result(s) unscored (infra or error),"
                f" over the budget of {leaderboard.max_unscored}; its accuracy leaves them out"
            )
        if first.tampered:
            notes.append(
                f"{TAMPERED} {system.system}: {first.tampered} result(s) ended as tampered (the agent changed the"
                " world or the trace outside a tool call); counted as failures"
            )
    return ["", *notes] if notes else []


def separations(leaderboard: Leaderboard) -> list[str]:
    """In words, for each pair of neighbours in table 6: do their 95 % intervals overlap?"""
    return [f"* {pair.sentence()}" for pair in leaderboard.separations()]


def _per_key(leaderboard: Leaderboard, keys: Sequence[str], pick: str) -> list[str]:
    rows = []
    for system in leaderboard.systems:
        counts = getattr(system.first, pick)
        rows.append([system.system, *(cell(counts[k]) if k in counts else "n/a" for k in keys)])
    return table(["System", *keys], rows)


def composition(leaderboard: Leaderboard) -> list[str]:
    columns = label_columns(leaderboard)
    rows = []
    for system in leaderboard.systems:
        first = system.first
        rows.append(
            [system.system, str(first.scored - first.successes), *(str(first.labels.get(c, 0)) for c in columns)]
        )
    return table(["System", "Non-successes", *columns], rows)


def components(leaderboard: Leaderboard) -> list[str]:
    families = [f for f in COMPONENT_COLUMNS if any(f in s.first.components for s in leaderboard.systems)]
    return _per_key(leaderboard, families, "components")


def policy_split(leaderboard: Leaderboard) -> list[str]:
    rows = []
    for system in leaderboard.systems:
        first = system.first
        gap = (
            "n/a"
            if first.positive.rate is None or first.constrained.rate is None
            else f"{float(first.positive.rate - first.constrained.rate) * 100:+.1f}"
        )
        rows.append([system.system, cell(first.positive), cell(first.constrained), gap, cell(first.compliance)])
    return table(["System", "Positive", "Policy-constrained", "Δ (pp)", "Negative-check compliance"], rows)


def metric_values(leaderboard: Leaderboard) -> list[str]:
    """Figure 15: every metric on its own scale (the values figure 16 ranks), plus cost per success."""
    values = leaderboard.metric_values()
    rows = [
        [system.system, *(pct(values[m][i]) for m in values), usd(system.first.cost_per_success)]
        for i, system in enumerate(leaderboard.systems)
    ]
    return table(["System", *values, "Cost/success"], rows)


def metric_ranks(leaderboard: Leaderboard) -> list[str]:
    ranks = leaderboard.metric_ranks()
    shared = {metric: stats.tied(values) for metric, values in ranks.items()}
    rows = [
        [system.system, *(rank_label(ranks[m][i], shared[m][i]) for m in ranks)]
        for i, system in enumerate(leaderboard.systems)
    ]
    return table(["System", *ranks], rows)


def usage(leaderboard: Leaderboard) -> list[str]:
    rows = []
    for system in leaderboard.systems:
        for role, used in system.first.usage.items():
            if used.calls:
                cost = usd(used.cost_usd)
                rows.append(
                    [system.system, role, str(used.calls), str(used.prompt_tokens), str(used.completion_tokens), cost]
                )
    if not rows:
        return ["No model usage recorded (gold, null or scripted agents)."]
    return table(["System", "Role", "Calls", "Prompt tokens", "Completion tokens", "Cost"], rows)


def rounds(leaderboard: Leaderboard) -> list[str]:
    """Table 9: per-round counts, mean, sample std (pp), pass^k; then Spearman between rounds."""
    width = leaderboard.max_rounds
    rows = []
    ordered = by_round_mean(leaderboard.systems)
    for system in ordered:
        cells = [cell(s.overall) for s in system.summaries] + [""] * (width - len(system.summaries))
        std = "n/a" if system.std is None else f"{system.std * 100:.2f}"
        k = len(system.rounds)
        mean = f"{pct(system.mean)} {span(system.mean_interval)}"
        rows.append([system.system, *cells, mean, std, f"{pct(system.pass_k)} (k={k})", pct(system.flip_rate)])
    header = ["System", *(f"Round {i + 1}" for i in range(width)), "Mean [95% CI]", "Std (pp)", "pass^k", "Flip rate"]
    lines = table(header, rows)
    sentences = spearman_sentences(leaderboard)
    if sentences:
        lines.append("")  # ends the markdown table
    return lines + sentences


def spearman_sentences(leaderboard: Leaderboard) -> list[str]:
    """Table 9's pairwise Spearman correlations of the systems' round rates, one sentence per pair of
    rounds that at least two systems have."""
    lines = []
    for a, b, rho, n in leaderboard.spearman():
        if n >= 2:
            shown = "n/a" if rho is None else f"{rho:.3f}"
            lines.append(
                f"Spearman rank correlation, rounds {a}-{b}: {shown} over {n} systems (average ranks for ties)"
            )
    return lines


def reliability(leaderboard: Leaderboard) -> list[str]:
    """Per domain: the round mean with its interval, pass^k and the flip rate."""
    rows = []
    for system in leaderboard.systems:
        for domain in leaderboard.domains:
            figures = system.reliability(domain)
            if figures.mean is None:
                continue
            rows.append(
                [
                    system.system,
                    domain,
                    f"{pct(figures.mean)} {span(figures.interval)}",
                    f"{pct(figures.pass_k)} (k={len(system.rounds)})",
                    pct(figures.flip_rate),
                ]
            )
    return table(["System", "Domain", "Mean [95% CI]", "pass^k", "Flip rate"], rows)


def trials_line(system: SystemResult) -> str:
    rates = ", ".join(f"t{i + 1} {pct(r)}" for i, r in enumerate(system.round_rates))
    std = "n/a" if system.std is None else f"{system.std * 100:.2f} pp"
    k = len(system.rounds)
    return (
        f"{k} trials: {rates}; mean {pct(system.mean)} {span(system.mean_interval)} (95% CI, bootstrap over tasks), "
        f"sample std {std}; pass^{k} {pct(system.pass_k)}; flip rate {pct(system.flip_rate)}"
    )


def outcome_line(summary: RoundSummary, unit: str = "task(s)") -> str:
    failures = f"{summary.failures} failure" + (f" ({summary.tampered} tampered)" if summary.tampered else "")
    counts = [
        f"{summary.successes} success",
        failures,
        f"{summary.not_judged} not judged",
        f"{summary.infra} infra",
    ]
    if summary.errors:
        counts.append(f"{summary.errors} error")
    return f"{summary.results} {unit}: " + ", ".join(counts)


def not_judged_line(summary: RoundSummary) -> str | None:
    if not summary.unjudged_criteria:
        return None
    # Say why: "no judge model configured" once read as the cause when a configured judge had
    # failed (invalid output after its retries) on tasks a programmatic check already failed.
    failed = summary.judge_failed_criteria
    unconfigured = summary.unjudged_criteria - failed
    reasons = []
    if failed:
        reasons.append(f"the judge model failed on {failed} after its retries; each task's detail says how")
    if unconfigured:
        reasons.append(f"no judge model configured for {unconfigured}" if failed else "no judge model configured")
    line = (
        f"{summary.unjudged_criteria} reply criteria in {summary.tasks_with_unjudged_criteria} task(s) were not"
        f" judged ({'; '.join(reasons)})"
    )
    if summary.not_judged:
        line += f"; {summary.not_judged} of those tasks passed every other check but are not counted as successes"
    return line + "."


SECTIONS = (
    # The descriptive title leads; the spec's number follows for readers of the paper (issue 12).
    ("Strict accuracy (spec table 6)", headline),
    ("Strict success by difficulty (spec table 7)", lambda lb: _per_key(lb, lb.difficulties, "by_difficulty")),
    ("Strict success by domain (spec figure 5)", lambda lb: _per_key(lb, lb.domains, "by_domain")),
    ("Why tasks failed: primary failure label (spec figure 13)", composition),
    ("Pass rate of each check family, over declared checks (spec figure 14)", components),
    ("Positive vs policy-constrained tasks (spec table 8)", policy_split),
    ("Every metric on its own scale (spec figure 15)", metric_values),
    ("Rank on each metric, competition ranking (spec figure 16)", metric_ranks),
    ("Usage by role", usage),
)
REPEATED_ROUNDS = "Repeated rounds: mean, spread and pass^k (spec table 9)"


def markdown(leaderboard: Leaderboard) -> str:
    lines = ["# crmbench leaderboard", ""]
    if not leaderboard.systems:
        return "\n".join([*lines, "No results.", ""])
    for title, render in SECTIONS:
        lines.extend([f"## {title}", "", *render(leaderboard), ""])
        if render is headline and len(leaderboard.systems) > 1:
            lines.extend([*separations(leaderboard), ""])
    if leaderboard.max_rounds > 1:
        lines.extend([f"## {REPEATED_ROUNDS}", "", *rounds(leaderboard), ""])
        lines.extend(["## Repeated rounds by domain", "", *reliability(leaderboard), ""])
    return "\n".join(lines)
