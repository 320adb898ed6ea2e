"""The marketing task file against the domain: graph exposure, information sufficiency, README figures."""

from __future__ import annotations

import yaml

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.release.inventory import README_BEGIN, README_END, readme_figures_text
from pytest_crmbench.release.manifest import load_manifest
from pytest_crmbench.release.replay import gold_problems
from pytest_crmbench.release.sufficiency import information_problems

from .helpers import ENV_DIR, GRAPH, ROOT, TASKS, MarketingEnvironment


def test_agent_graph_exposes_every_tool_the_tasks_name() -> None:
    graph = yaml.safe_load(GRAPH.read_text(encoding="utf-8"))
    assert graph["domain"] == "marketing"
    nodes = graph["nodes"]
    assert [n["name"] for n in nodes if not n["tools"]] == ["general"]
    placed = {t for n in nodes for t in n["tools"]}
    assert placed == set(MarketingEnvironment.tools)
    for record in load_task_file(TASKS):
        contract = record.task.contract
        named = {a.tool for a in contract.expected_actions} | {p.tool for p in contract.expected_params}
        named |= {t for order in contract.action_order for t in order.names()} | set(contract.forbidden.actions)
        named |= {p.tool for p in contract.forbidden.params} | {g.tool for g in record.task.gold.path}
        assert named <= placed, (record.task.id, named - placed)
        assert set(record.task.capabilities) <= {n["name"] for n in nodes}


def test_gold_arguments_are_known_to_the_user_or_returned_earlier() -> None:
    free_text = set(load_manifest(TASKS.parent).free_text_arguments["marketing"])
    problems = []
    for record in load_task_file(TASKS):
        evidence, _ = gold_problems(record, MarketingEnvironment)
        problems += [p.render() for p in information_problems(record, evidence, MarketingEnvironment, free_text)]
    assert problems == []


def test_the_readme_figures_are_the_generated_ones() -> None:
    readme = (ENV_DIR / "marketing" / "README.md").read_text(encoding="utf-8")
    generated = readme_figures_text(ROOT / "tasks", ROOT / "agents", "marketing")
    begin = README_BEGIN.format(domain="marketing")
    assert begin in readme, "the marketing README lost its generated figures block"
    written = readme[readme.index(begin) : readme.index(README_END) + len(README_END)]
    assert written == generated, (
        "stale figures: paste `crmbench inventory --readme marketing` into envs/marketing/README.md"
    )
