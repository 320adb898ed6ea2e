"""The customer-support task file against the domain: graph exposure, information sufficiency,
README figures."""

from __future__ import annotations

import yaml

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.release.inventory import README_BEGIN, README_END, readme_figures_text
from pytest_crmbench.release.manifest import load_manifest
from pytest_crmbench.release.replay import gold_problems
from pytest_crmbench.release.sufficiency import information_problems

from .helpers import GRAPH, ROOT, TASKS, SupportEnvironment

DOMAIN = "customer_support"


def test_agent_graph_exposes_every_tool_the_tasks_name() -> None:
    graph = yaml.safe_load(GRAPH.read_text(encoding="utf-8"))
    assert graph["domain"] == DOMAIN
    nodes = graph["nodes"]
    assert [n["name"] for n in nodes if not n["tools"]] == ["general"]
    placed = {t for n in nodes for t in n["tools"]}
    assert placed == set(SupportEnvironment.tools)
    tags = {n["name"] for n in nodes if n["tools"]}
    assert len(tags) == 6
    for record in load_task_file(TASKS):
        contract = record.task.contract
        named = {a.tool for a in contract.expected_actions} | {p.tool for p in contract.expected_params}
        named |= {t for order in contract.action_order for t in order.names()} | set(contract.forbidden.actions)
        named |= {p.tool for p in contract.forbidden.params} | {g.tool for g in record.task.gold.path}
        assert named <= placed, (record.task.id, named - placed)
        assert set(record.task.capabilities) <= tags, record.task.id
        assert record.task.id.startswith(f"{DOMAIN}_{record.task.capabilities[0]}_"), record.task.id


def test_gold_arguments_are_known_to_the_user_or_returned_earlier() -> None:
    free_text = set(load_manifest(TASKS.parent).free_text_arguments[DOMAIN])
    problems = []
    for record in load_task_file(TASKS):
        evidence, _ = gold_problems(record, SupportEnvironment)
        problems += [p.render() for p in information_problems(record, evidence, SupportEnvironment, free_text)]
    assert problems == []


def test_the_readme_figures_are_the_generated_ones() -> None:
    readme = (ROOT / "envs" / DOMAIN / "README.md").read_text(encoding="utf-8")
    generated = readme_figures_text(ROOT / "tasks", ROOT / "agents", DOMAIN)
    begin = README_BEGIN.format(domain=DOMAIN)
    assert begin in readme, "the customer_support README lost its generated figures block"
    written = readme[readme.index(begin) : readme.index(README_END) + len(README_END)]
    assert written == generated, (
        f"stale figures: paste `crmbench inventory --readme {DOMAIN}` into envs/{DOMAIN}/README.md"
    )
