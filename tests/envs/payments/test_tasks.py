"""The payments task file against the domain: graph exposure and information sufficiency."""

from __future__ import annotations

import yaml

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.release.manifest import load_manifest
from pytest_crmbench.release.replay import gold_problems
from pytest_crmbench.release.sufficiency import information_problems

from .helpers import GRAPH, TASKS, PaymentsEnvironment


def test_agent_graph_exposes_every_tool_the_tasks_name() -> None:
    graph = yaml.safe_load(GRAPH.read_text(encoding="utf-8"))
    assert graph["domain"] == "payments"
    nodes = graph["nodes"]
    assert [n["name"] for n in nodes if not n["tools"]] == ["general"]
    placed = {t for n in nodes for t in n["tools"]}
    assert placed <= set(PaymentsEnvironment.tools)
    for record in load_task_file(TASKS):
        contract = record.task.contract
        named = {a.tool for a in contract.expected_actions} | {p.tool for p in contract.expected_params}
        named |= {t for order in contract.action_order for t in order.names()} | set(contract.forbidden.actions)
        named |= {p.tool for p in contract.forbidden.params} | {g.tool for g in record.task.gold.path}
        assert named <= placed, (record.task.id, named - placed)


def test_gold_arguments_are_known_to_the_user_or_returned_earlier() -> None:
    """Information sufficiency (the release audit of `crmbench validate --gold`): every literal the
    gold path sends is in the brief or an earlier result, except the manifest's free-text arguments."""
    free_text = set(load_manifest(TASKS.parent).free_text_arguments["payments"])
    problems = []
    for record in load_task_file(TASKS):
        evidence, _ = gold_problems(record, PaymentsEnvironment)
        problems += [p.render() for p in information_problems(record, evidence, PaymentsEnvironment, free_text)]
    assert problems == []
