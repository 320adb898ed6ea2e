"""The leaderboard's figures: one SVG each, stable bytes, unique ids across a page, edge cases drawn."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest

from pytest_crmbench.results import figures
from pytest_crmbench.results.leaderboard import Leaderboard, RunInput, build
from pytest_crmbench.results.records import CheckRecord, ResultRecord, UsageRecord


def rec(task: str, outcome: str, *, system_cost: str | None = None, trial: int = 0, domain: str = "d1") -> ResultRecord:
    usage = {"agent": UsageRecord(calls=1, prompt_tokens=10, cost_usd=system_cost)} if system_cost else {}
    family = "action" if outcome != "success" else "state"
    checks = [CheckRecord(family=family, name=f"{family}[0] x", status="passed" if outcome == "success" else "failed")]
    return ResultRecord(
        task_id=task,
        trial=trial,
        domain=domain,
        difficulty="easy",
        outcome=outcome,  # type: ignore[arg-type]
        primary_label=None if outcome == "success" else family,
        checks=checks,
        usage=usage,  # type: ignore[arg-type]
    )


def board(runs: Iterable[tuple[str, list[ResultRecord]]]) -> Leaderboard:
    return build([RunInput(name, name, "2026-11-30", records) for name, records in runs])


@pytest.fixture(scope="module")
def drawn() -> list[figures.Figure]:
    priced = [
        rec(f"t{i}", "success" if i % 3 else "failure", system_cost="0.02", trial=t) for i in range(9) for t in (0, 1)
    ]
    unpriced = [rec(f"t{i}", "failure" if i % 2 else "success", domain=f"d{i % 2}") for i in range(9)]
    return figures.draw(board([("model-a", priced), ("agent-b", unpriced)]))


def test_every_figure_is_inline_svg_with_its_text_kept_as_text(drawn: list[figures.Figure]) -> None:
    assert [f.key for f in drawn] == [key for key, *_ in figures.FIGURES]
    for figure in drawn:
        assert figure.svg.startswith("<svg") and figure.svg.rstrip().endswith("</svg>")
        assert "<?xml" not in figure.svg and "<!DOCTYPE" not in figure.svg
        assert figure.title and figure.caption
    by_key = {f.key: f.svg for f in drawn}
    assert ">model-a<" in by_key["accuracy"] and ">agent-b<" in by_key["domains"]  # selectable, searchable
    assert "not shown, no price: agent-b" in by_key["cost"]
    assert ">round 2<" in by_key["ranks"]  # model-a has two rounds: the bump chart


def test_ids_are_unique_across_the_page(drawn: list[figures.Figure]) -> None:
    ids = [i for f in drawn for i in re.findall(r'\bid="([^"]+)"', f.svg)]
    assert ids and len(ids) == len(set(ids))


def test_same_leaderboard_same_bytes(drawn: list[figures.Figure]) -> None:
    priced = [
        rec(f"t{i}", "success" if i % 3 else "failure", system_cost="0.02", trial=t) for i in range(9) for t in (0, 1)
    ]
    unpriced = [rec(f"t{i}", "failure" if i % 2 else "success", domain=f"d{i % 2}") for i in range(9)]
    again = figures.draw(board([("model-a", priced), ("agent-b", unpriced)]))
    assert [f.svg for f in again] == [f.svg for f in drawn]


def test_degenerate_leaderboards_still_draw() -> None:
    nothing_scored = [ResultRecord(task_id="t", outcome="infra")]
    all_pass = [rec("t", "success")]
    for runs in ([("only-infra", nothing_scored)], [("perfect", all_pass)]):
        assert len(figures.draw(board(runs))) == len(figures.FIGURES)


def test_missing_matplotlib_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: object, **kwargs: object) -> object:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(figures.MatplotlibMissing, match=r"pip install 'crmbench\[report\]'"):
        figures.draw(board([("a", [rec("t", "success")])]))


def test_long_system_names_wrap_after_a_slash() -> None:
    assert figures.wrap("graph/openrouter/meta-llama/llama-3.3-70b-instruct") == (
        "graph/openrouter/\nmeta-llama/\nllama-3.3-70b-instruct"
    )
    assert figures.wrap("graph/openai/gpt-5-mini") == "graph/openai/gpt-5-mini"
    assert figures.wrap("a-name-longer-than-the-width-without-slashes", 10) == (
        "a-name-longer-than-the-width-without-slashes"
    )


def test_one_system_gets_its_measures_not_a_flat_line_of_ranks() -> None:
    """One system ranks first on everything: the rank figure says why it shows values instead."""
    drawn = {f.key: f for f in figures.draw(board([("solo", [rec("t1", "success"), rec("t2", "failure")])]))}
    ranks = drawn["ranks"]
    assert ranks.title == "How one system does on each measure" and "no order to hold" in ranks.caption
    assert ">strict success<" in ranks.svg and ">rank (1 = best)<" not in ranks.svg
    two = {f.key: f for f in figures.draw(board([("a", [rec("t1", "success")]), ("b", [rec("t1", "failure")])]))}
    assert two["ranks"].title == "Does the order hold?" and ">rank (1 = best)<" in two["ranks"].svg


def test_a_segment_too_narrow_for_its_count_is_not_labelled() -> None:
    """Figure 13: one failure of 200 gets no label over its neighbour's (they collided)."""
    many = [rec(f"t{i}", "failure") for i in range(200)]
    one_state = [
        ResultRecord(task_id="s", domain="d1", difficulty="easy", outcome="failure", primary_label="state"),
        *(rec(f"u{i}", "success") for i in range(199)),
    ]
    svg = next(f.svg for f in figures.draw(board([("a", many), ("b", one_state)])) if f.key == "failures")
    assert ">200<" in svg and ">1<" not in svg
