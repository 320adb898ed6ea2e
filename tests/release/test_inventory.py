"""``crmbench inventory`` on the mini fixture, against hand-counted numbers."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.spec import Task
from pytest_crmbench.release.inventory import (
    README_BEGIN,
    README_END,
    build_inventory,
    domain_figures_markdown,
    readme_figures_text,
)
from pytest_crmbench.release.manifest import load_manifest
from pytest_crmbench.release.taskset import load_task_set
from tests.release.conftest import AGENTS, MakeTasks

# Hand count of tests/data/tasks/mini.yaml (6 tasks):
#   retry (medium)  caps transfer,balance  actions 3  params 2  order 1  reply 1  state 3  forbidden params 1
#   checkout (hard) caps checkout,loyalty  actions 3  params 2  order 1  reply 1  state 3  forbidden actions 1,
#                                          forbidden state 1, protected 2
#   balance_only    caps balance           actions 1  params 1           reply 1           forbidden actions 2
#   frozen          caps transfer          actions 1  params 1                             forbidden actions 1, protected 2
#   refusal         caps account_admin                                   reply 1           forbidden actions 1, protected 1
#   override        caps balance           actions 1 (count 1)                     state 2
# (easy: balance_only, frozen, refusal, override).
EXPECTED_TASKS_WITH = {
    "expected_actions": 5,  # all but refusal
    "expected_params": 4,  # retry, checkout, balance_only, frozen
    "action_order": 2,  # retry, checkout
    "reply_criteria": 4,  # retry, checkout, balance_only, refusal
    "expected_state": 3,  # retry, checkout, override
    "forbidden_actions": 4,  # checkout, balance_only, frozen, refusal
    "forbidden_params": 1,  # retry
    "forbidden_state": 1,  # checkout
    "protected_state": 3,  # checkout, frozen, refusal
    "conduct_terms": 0,  # no task relaxes a conduct rule
    "forbidden_actions_or_params": 5,  # the four with forbidden actions + retry
    "expected_or_forbidden_state": 3,  # checkout's forbidden state is in a task that also expects state
    "any_negative_assertion": 5,  # same five: every protected task also forbids an action
    "two_or_more_expected_actions": 2,  # retry and checkout (3 each); the others expect one
}
EXPECTED_DECLARATIONS = {
    "expected_actions": 9,  # 3 + 3 + 1 + 1 + 1
    "expected_params": 6,  # 2 + 2 + 1 + 1
    "action_order": 2,
    "reply_criteria": 4,
    "expected_state": 8,  # 3 + 3 + 2
    "forbidden_actions": 5,  # 1 + 2 + 1 + 1
    "forbidden_params": 1,
    "forbidden_state": 1,
    "protected_state": 5,  # 2 + 2 + 1
    "conduct_terms": 0,
}
EXPECTED_TAGS = {
    "assignments": 8,  # 2 + 2 + 1 + 1 + 1 + 1
    "single_tag_tasks": 4,
    "multi_tag_tasks": 2,
    "two_tags": 2,
    "three_tags": 0,
    "four_tags": 0,
    "unique_tags": 5,  # transfer, balance, checkout, loyalty, account_admin
    "domain_capability_pairs": 5,  # one domain
}
# tests/data/agents/mini.yaml: balance [get_balance], transfer [get_balance, validate_transfer,
# execute_transfer], checkout [pay_order, award_points, log_note], admin [close_account], general [].
EXPECTED_GRAPHS = {
    "fallback_nodes_per_domain": 1,
    "nodes": {"mini": 5},
    "specialists": {"mini": 4},
    "placements": {"mini": 8},  # 1 + 3 + 3 + 1 + 0
    "tools": {"mini": 7},  # get_balance is placed twice
    "tasks_with_forbidden_actions": {"mini": 4},
    "forbidden_action_declarations": {"mini": 5},
}
# Figure 11, by first capability: account_admin = refusal; balance = balance_only + override;
# checkout = checkout; transfer = retry (medium) + frozen (easy). N counts negative assertions.
EXPECTED_COMPOSITION = [
    {"domain": "mini", "capability": "account_admin", "total": 1, "easy": 1, "medium": 0, "hard": 0, "negative": 1},
    {"domain": "mini", "capability": "balance", "total": 2, "easy": 2, "medium": 0, "hard": 0, "negative": 1},
    {"domain": "mini", "capability": "checkout", "total": 1, "easy": 0, "medium": 0, "hard": 1, "negative": 1},
    {"domain": "mini", "capability": "transfer", "total": 2, "easy": 1, "medium": 1, "hard": 0, "negative": 2},
]


def test_mini_figures_match_the_hand_count(make_tasks: MakeTasks) -> None:
    inventory = build_inventory(make_tasks(mini=True), AGENTS)
    figures = inventory["figures"]
    assert figures["tasks"] == 6
    assert figures["domains"] == {"mini": 6, "other": 0}  # target domains are listed even when empty
    assert figures["difficulty"] == {"easy": 4, "medium": 1, "hard": 1}
    assert figures["tasks_with"] == EXPECTED_TASKS_WITH
    assert figures["declarations"] == EXPECTED_DECLARATIONS
    assert figures["capability_tags"] == EXPECTED_TAGS
    assert figures["graphs"] == EXPECTED_GRAPHS
    assert inventory["composition"] == EXPECTED_COMPOSITION


def test_rows_compare_with_the_manifest_targets(make_tasks: MakeTasks) -> None:
    rows = {row["figure"]: row for row in build_inventory(make_tasks(mini=True), AGENTS)["rows"]}
    assert rows["tasks"] == {"figure": "tasks", "current": 6, "target": 10, "gap": 4}
    assert rows["domains.other"] == {"figure": "domains.other", "current": 0, "target": 4, "gap": 4}
    assert rows["difficulty.easy"]["gap"] == 1
    assert rows["declarations.forbidden_actions"]["gap"] == 1
    assert rows["graphs.fallback_nodes_per_domain"]["gap"] == 0
    assert rows["tasks_with.forbidden_params"]["target"] is None  # no target: reported, not compared


def test_markdown_and_json_output(make_tasks: MakeTasks, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = make_tasks(mini=True)
    assert main(["inventory", "--tasks", str(tasks), "--agents", str(AGENTS)]) == 0
    markdown = capsys.readouterr().out
    assert "| tasks | 6 | 10 | 4 |" in markdown
    assert "| mini | transfer | 2 | 1 | 1 | 0 | 2 |" in markdown
    out = tmp_path / "inventory.json"
    assert main(["inventory", "--json", "--tasks", str(tasks), "--agents", str(AGENTS), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["figures"]["tasks"] == 6


def test_inventory_reports_without_gating_on_a_broken_set(make_tasks: MakeTasks) -> None:
    tasks = make_tasks("duplicate_id_a.yaml", "duplicate_id_b.yaml")
    (tasks / "manifest.yaml").unlink()
    inventory = build_inventory(tasks, AGENTS)
    assert inventory["figures"]["tasks"] == 1
    assert any("duplicate task id" in problem for problem in inventory["problems"])


def test_a_domain_readme_block_is_generated_from_the_tasks(
    make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inventory", "--tasks", str(make_tasks(mini=True)), "--agents", str(AGENTS), "--readme", "mini"]) == 0
    block = capsys.readouterr().out.splitlines()
    assert block[0] == README_BEGIN.format(domain="mini") and block[-1] == README_END
    # Hand count of tests/data/tasks/mini.yaml (see the figures above); the fixture targets name 10 tasks.
    assert block[1] == "6 tasks: 4 easy, 1 medium, 1 hard. 4 tasks have one capability tag, 2 two."
    assert "| balance | 2 | 0 | 0 | 2 | 3 |" in block
    assert "| action order | 2 | 0 / 1 / 1 | 33 % |  |" in block
    assert (
        "| any negative assertion | 5 | 3 / 1 / 1 | 83 % |  |" in block
    )  # balance_only, frozen, refusal / retry / checkout
    assert "| pure refusals (negative checks + reply only) | 1 | | | |" in block


ROOT = Path(__file__).parents[2]
DOMAINS = sorted(p.parent.name for p in (ROOT / "envs").glob("*/README.md"))


@functools.cache
def shipped_figures(domain: str) -> str:
    """``crmbench inventory --readme DOMAIN`` for the shipped set, the task set loaded once for all domains."""
    return domain_figures_markdown(_shipped_tasks(), domain, load_manifest(ROOT / "tasks").targets)


@functools.cache
def _shipped_tasks() -> list[Task]:
    return [record.task for record in load_task_set(ROOT / "tasks", None, ROOT / "agents").records]


def test_the_cached_figures_are_the_commands() -> None:
    assert shipped_figures("payments") == readme_figures_text(ROOT / "tasks", ROOT / "agents", "payments")


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_domain_readme_figures_are_the_generated_ones(domain: str) -> None:
    readme = (ROOT / "envs" / domain / "README.md").read_text(encoding="utf-8")
    generated = shipped_figures(domain)
    begin = README_BEGIN.format(domain=domain)
    assert begin in readme, f"the {domain} README lost its generated figures block"
    written = readme[readme.index(begin) : readme.index(README_END) + len(README_END)]
    assert written == generated, (
        f"stale figures: paste `crmbench inventory --readme {domain}` into envs/{domain}/README.md"
    )


def test_rows_count_in_the_specifications_units() -> None:
    """Table 2: a parameter declaration is one task-tool specification; "two or more expected
    actions" counts entries (§C: "235 tasks declare at least two expected-action entries")."""
    from pytest_crmbench.core.families import Contract, declarations
    from pytest_crmbench.release.tablerows import present_rows

    def task(**contract: object) -> Task:
        base = Task.model_validate(
            {
                "id": "units_case_01",
                "domain": "payments",
                "capabilities": ["transfer"],
                "difficulty": "easy",
                "user": {"persona": "p", "goal": "g", "opening": "o", "stop": "s"},
                "contract": {"expected_actions": ["x"]},
                "gold": {"path": [], "reply": "r"},
            }
        )
        return base.model_copy(update={"contract": Contract.model_validate(contract)})

    twice = task(
        expected_actions=[{"tool": "pay", "count": 2}],
        expected_params=[{"tool": "pay", "args": {"a": 1}}, {"tool": "pay", "args": {"a": 2}, "match": "first"}],
    )
    assert declarations(twice.contract)["expected_params"] == 1  # one tool, however many entries
    assert "two_or_more_expected_actions" not in present_rows(twice)  # one entry, count 2
    two = task(
        expected_actions=["pay", "log"],
        expected_params=[{"tool": "pay", "args": {"a": 1}}, {"tool": "log", "args": {"b": 1}}],
    )
    assert declarations(two.contract)["expected_params"] == 2
    assert "two_or_more_expected_actions" in present_rows(two)
