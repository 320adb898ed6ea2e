"""Leaderboard aggregation and tables from hand-built records (definitions of spec §B, §C)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from pytest_crmbench.results import leaderboard, tables
from pytest_crmbench.results.leaderboard import Count, RunInput, build, summarize
from pytest_crmbench.results.records import CheckRecord, ResultRecord, UsageRecord


def check(family: str, status: str = "passed") -> CheckRecord:
    kind = "forbidden.action" if family == "forbidden" else family  # a forbidden family's check names its kind
    return CheckRecord(family=family, name=f"{kind}[0]", status=status)  # type: ignore[arg-type]


def rec(
    task: str,
    outcome: str = "success",
    *,
    domain: str = "d1",
    difficulty: str = "easy",
    trial: int = 0,
    checks: list[CheckRecord] | None = None,
    label: str | None = None,
    cost: str | None = "0.10",
    calls: int = 0,
) -> ResultRecord:
    usage: dict[str, Any] = {
        "agent": UsageRecord(calls=calls, prompt_tokens=10 * calls, cost_usd=cost) if calls else None
    }
    return ResultRecord(
        task_id=task,
        trial=trial,
        domain=domain,
        difficulty=difficulty,
        outcome=outcome,  # type: ignore[arg-type]
        primary_label=label,
        checks=checks if checks is not None else [check("action", "passed" if outcome == "success" else "failed")],
        usage=usage,
    )


def test_strict_accuracy_excludes_infra_and_errors_but_counts_not_judged() -> None:
    summary = summarize(
        [
            rec("a"),
            rec("b", "failure", label="action"),
            rec("c", "not_judged", checks=[check("reply", "not_judged"), check("action")]),
            rec("d", "infra", checks=[]),
            rec("e", "error", checks=[]),
        ]
    )
    assert (summary.results, summary.scored, summary.successes) == (5, 3, 1)
    assert summary.accuracy == Fraction(1, 3)
    assert (summary.infra, summary.errors, summary.not_judged) == (1, 1, 1)
    # Figure 13: every scored non-success, by primary label; not_judged is its own sector.
    assert summary.labels == {"action": 1, "not_judged": 1}
    assert (summary.unjudged_criteria, summary.tasks_with_unjudged_criteria) == (1, 1)


def test_domain_macro_is_the_unweighted_mean_of_domain_rates() -> None:
    records = [rec("a1"), rec("a2"), rec("a3", "failure"), rec("b1", domain="d2")]
    summary = summarize(records)
    assert summary.accuracy == Fraction(3, 4)
    assert summary.by_domain == {"d1": Count(2, 3), "d2": Count(1, 1)}
    assert summary.macro == (Fraction(2, 3) + 1) / 2


def test_components_count_tasks_with_recorded_verdicts_only() -> None:
    records = [
        rec("a", checks=[check("action"), check("action"), check("reply", "not_judged")]),
        rec("b", "failure", checks=[check("action"), check("action", "failed"), check("reply", "failed")]),
        rec("c", checks=[check("state")]),
    ]
    components = summarize(records).components
    # Per task: a passes action, b fails it; c declares no action check (absent, not a pass).
    assert components["action"] == Count(1, 2)
    # a's reply was not judged: left out of the denominator.
    assert components["reply"] == Count(0, 1)
    assert components["state"] == Count(1, 1)
    assert "order" not in components


def test_policy_split_and_negative_check_compliance() -> None:
    records = [
        rec("p1"),
        rec("p2", "failure"),
        # Constrained: fails on its positive check but every negative check holds.
        rec("s1", "failure", checks=[check("action", "failed"), check("forbidden"), check("collateral")]),
        rec("s2", "failure", checks=[check("action"), check("forbidden", "failed")], label="forbidden"),
        rec("s3", checks=[check("action"), check("collateral")]),
    ]
    summary = summarize(records)
    assert summary.positive == Count(1, 2)
    assert summary.constrained == Count(1, 3)
    assert summary.compliance == Count(2, 3)


def test_cost_is_agent_only_and_unknown_prices_are_not_zero() -> None:
    priced = summarize([rec("a", calls=2, cost="0.25"), rec("b", "failure", calls=1, cost="0.05")])
    assert priced.usage["agent"].cost_usd == Decimal("0.30")
    assert priced.cost_per_success == Decimal("0.30")
    unknown = summarize([rec("a", calls=2, cost="0.25"), rec("b", calls=1, cost=None)])
    assert unknown.usage["agent"].cost_usd is None
    assert unknown.cost_per_success is None
    assert summarize([rec("a")]).usage["agent"].cost_usd is None  # no model at all: n/a


def run(name: str, system: str, records: list[ResultRecord], created: str = "2026-01-01") -> RunInput:
    return RunInput(name=name, system=system, created_at=created, records=records)


def test_ranking_ties_and_markdown() -> None:
    board = build(
        [
            run("r1", "alpha", [rec("a"), rec("b", "failure")]),
            run("r2", "beta", [rec("a"), rec("b")]),
            run("r3", "gamma", [rec("a", "failure"), rec("b")]),
        ]
    )
    assert [s.system for s in board.systems] == ["beta", "alpha", "gamma"]
    assert board.ranks == [1, 2, 2]
    headline = tables.headline(board)
    assert headline[2].startswith("| 1    | beta ")
    assert headline[3].startswith("| 2=   | alpha")
    assert headline[4].startswith("| 2=   | gamma")
    text = tables.markdown(board)
    headings = [line.removeprefix("## ") for line in text.splitlines() if line.startswith("## ")]
    assert headings == [title for title, _ in tables.SECTIONS]
    # A descriptive title leads every heading (issue 12); the spec's number may follow in parentheses.
    for heading in headings:
        assert heading[0].isupper() and not heading.startswith(("Table", "Figure")), heading
    for number in ("table 6", "table 7", "figure 5", "figure 13", "figure 14", "table 8", "figure 16"):
        assert f"(spec {number})" in text
    assert "table 9" not in text  # one round each


def test_rounds_from_trials_and_runs_give_table_9() -> None:
    # System "m": one run with two trials plus a later run (round 3); "n": three single runs.
    m = [
        run("m1", "m", [rec("a", trial=0), rec("b", trial=0), rec("a", trial=1), rec("b", "failure", trial=1)]),
        run("m2", "m", [rec("a"), rec("b", "failure")], created="2026-02-01"),
    ]
    n = [
        run(f"n{i}", "n", [rec("a", "failure"), rec("b", "failure" if i else "success")], f"2026-0{i + 1}-01")
        for i in range(3)
    ]
    board = build([*m, *n])
    system = next(s for s in board.systems if s.system == "m")
    assert [r.run for r in system.rounds] == ["m1", "m1", "m2"]
    assert system.round_rates == [1, Fraction(1, 2), Fraction(1, 2)]
    assert system.pass_k == Fraction(1, 2)  # task a passed all three rounds, b did not
    assert f"{system.std * 100:.2f}" == "28.87"  # type: ignore[operator]
    spearman = board.spearman()
    assert [(a, b, n) for a, b, _, n in spearman] == [(1, 2, 2), (1, 3, 2), (2, 3, 2)]
    text = tables.markdown(board)
    assert "## Repeated rounds: mean, spread and pass^k (spec table 9)" in text
    assert "Spearman rank correlation, rounds 1-2: 1.000 over 2 systems" in text


def test_metric_ranks_use_competition_ranking_per_metric() -> None:
    board = build(
        [
            run("r1", "alpha", [rec("a"), rec("b", "failure", difficulty="hard")]),
            run("r2", "beta", [rec("a", "failure"), rec("b", difficulty="hard")]),
        ]
    )
    ranks = board.metric_ranks()
    assert ranks["accuracy"] == [1, 1]
    assert ranks["easy"] == [1, 2]
    assert ranks["hard"] == [2, 1]
    # Figure 15 shows the values those ranks come from, each on its own scale, and cost per success.
    assert tables.metric_values(board) == [
        "| System | accuracy | macro  | easy    | hard    | d1     | Cost/success |",
        "|--------|----------|--------|---------|---------|--------|--------------|",
        "| alpha  | 50.00%   | 50.00% | 100.00% | 0.00%   | 50.00% | n/a          |",
        "| beta   | 50.00%   | 50.00% | 0.00%   | 100.00% | 50.00% | n/a          |",
    ]


def test_json_has_every_table_with_counts() -> None:
    board = build([run("r1", "alpha", [rec("a"), rec("b", "infra", checks=[])])])
    data = leaderboard.as_json(board)
    (system,) = data["systems"]
    assert system["accuracy"] == 1.0 and system["infra"] == 1 and system["scored"] == 1
    wilson_1_of_1 = {"low": pytest.approx(0.2065, abs=1e-4), "high": 1.0, "method": "wilson", "confidence": 0.95}
    assert system["by_domain"] == {"d1": {"successes": 1, "total": 1, "rate": 1.0, "interval": wilson_1_of_1}}
    assert system["accuracy_interval"] == wilson_1_of_1
    assert system["rounds"] == [
        {
            "run": "r1",
            "trial": 0,
            "successes": 1,
            "total": 1,
            "rate": 1.0,
            "interval": wilson_1_of_1,
            "infra": 1,
            "errors": 0,
        }
    ]
    assert system["metric_ranks"]["accuracy"] == 1
    assert system["flip_rate"] is None  # one round: nothing can flip


def test_every_rate_in_markdown_carries_its_interval_and_overlaps_are_said_in_words() -> None:
    wide = [rec(f"t{i}", "success" if i < 4 else "failure") for i in range(6)]
    narrow = [rec(f"t{i}", "success" if i < 55 else "failure") for i in range(60)]
    none = [rec(f"t{i}", "failure") for i in range(60)]
    board = build([run("r1", "wide", wide), run("r2", "narrow", narrow), run("r3", "none", none)])
    headline = tables.headline(board)
    assert headline[0].split("|")[3:5] == [" Strict acc. ", " 95% CI      "]
    assert "| 91.67%      | [81.9-96.4] | 55/60" in headline[2]
    assert "| 66.67%      | [30.0-90.3] | 4/6" in headline[3]
    assert [p.overlap for p in board.separations()] == [True, False]
    text = tables.markdown(board)
    assert (
        "* narrow and wide: the 95 % intervals overlap (81.9-96.4 % vs 30.0-90.3 %), "
        "so these tasks do not establish which is better." in text
    )
    assert "* wide is ahead of none beyond the 95 % intervals (30.0-90.3 % vs 0.0-6.0 %)." in text
    assert "| wide   | 66.67% (4/6) [30.0-90.3] " in text  # figure 5, per domain
    data = leaderboard.as_json(board)
    assert [p["overlap"] for p in data["separations"]] == [True, False]


def test_repeated_rounds_report_flip_rate_and_pass_k_per_domain() -> None:
    records = [
        rec("a", trial=0),
        rec("a", trial=1),
        rec("b", trial=0),
        rec("b", "failure", trial=1),
        rec("c", domain="d2", trial=0),
        rec("c", domain="d2", trial=1),
    ]
    board = build([run("r1", "m", records)])
    (system,) = board.systems
    assert system.flip_rate == Fraction(1, 3)
    d1, d2 = system.reliability("d1"), system.reliability("d2")
    assert (d1.pass_k, d1.flip_rate, d1.mean) == (Fraction(1, 2), Fraction(1, 2), 0.75)
    assert (d2.pass_k, d2.flip_rate) == (1, 0)
    assert d1.interval is not None and d1.interval.method == "cluster bootstrap"
    text = tables.markdown(board)
    assert "| System | Round 1 " in text and "| Mean [95% CI] " in text and "| Flip rate |" in text
    assert "## Repeated rounds by domain" in text
    data = leaderboard.as_json(board)["systems"][0]
    assert data["flip_rate"] == pytest.approx(1 / 3)
    assert data["reliability_by_domain"]["d1"]["pass_hat_k"] == 0.5
    assert data["round_mean_interval"]["method"] == "cluster bootstrap"
    assert "flip rate 33.33%" in tables.trials_line(system)


def test_a_forbidden_end_state_alone_does_not_make_a_task_policy_constrained() -> None:
    # Spec §B.8: the 165 policy-constrained tasks declare a forbidden action, a forbidden parameter
    # or protected state; forbidden end states count with the state checks.
    state_only = CheckRecord(family="forbidden", name="forbidden.state[0] accounts.A.status", status="failed")
    records = [
        rec("t1", "failure", checks=[check("action"), state_only], label="forbidden"),
        rec(
            "t2",
            checks=[check("action"), CheckRecord(family="forbidden", name="forbidden.param[0] pay", status="passed")],
        ),
    ]
    assert [r.policy_constrained() for r in records] == [False, True]
    summary = summarize(records)
    assert summary.positive == Count(0, 1)
    assert (summary.constrained, summary.compliance) == (Count(1, 1), Count(1, 1))


def test_a_system_over_the_unscored_budget_never_ranks_unmarked() -> None:
    # Crashing out of the tasks it would fail once ranked an agent first, unmarked (issue 11 item 1).
    lucky = [rec("a"), rec("b", "error"), rec("c", "infra"), rec("d", "error")]
    honest = [rec("a"), rec("b", "failure"), rec("c"), rec("d", "failure")]
    runs = [RunInput("r1", "lucky", "1", lucky), RunInput("r2", "honest", "2", honest)]
    board = build(runs, max_unscored=1)
    lines = tables.headline(board)
    assert lines[2].startswith("| 1    | lucky (!) | 100.00%")
    assert lines[3].startswith("| 2    | honest    | 50.00%")
    assert lines[-1] == (
        "(!) lucky: 3 of 4 result(s) unscored (infra or error), over the budget of 1; its accuracy leaves them out"
    )
    data = leaderboard.as_json(board)
    assert [(s["system"], s["unscored_over_budget"]) for s in data["systems"]] == [("lucky", True), ("honest", False)]
    assert "(!)" not in "\n".join(tables.headline(build(runs, max_unscored=3)))


def test_tampered_results_are_flagged_in_the_table_and_the_summary() -> None:
    tampered = rec("b", "failure", label="execution").model_copy(update={"termination": "tampered"})
    board = build([RunInput("r", "sly", "1", [rec("a"), tampered])])
    lines = tables.headline(board)
    assert "| sly (T) |" in lines[2]
    assert lines[-1].startswith("(T) sly: 1 result(s) ended as tampered")
    assert (
        tables.outcome_line(board.systems[0].first)
        == "2 task(s): 1 success, 1 failure (1 tampered), 0 not judged, 0 infra"
    )
    assert leaderboard.as_json(board)["systems"][0]["tampered"] == 1
