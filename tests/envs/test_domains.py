"""Every shipped domain against its tasks, its graph and its README, one parametrised suite.

Nothing here names a domain or a count: domains are the registered ones, counts come from the
task files and the manifest, so adding a task or a domain breaks no test (issue 25). The gold
replay and the audits of each task (information sufficiency included) run in `crmbench validate
--gold` (.ci/run), and each README's generated figures are checked in tests/release/test_inventory.py.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import pytest
import yaml

from pytest_crmbench.core.loader import TaskRecord, load_task_file
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from pytest_crmbench.reference.graph import FALLBACK_NODE
from pytest_crmbench.release.manifest import load_manifest
from pytest_crmbench.release.structure import named_tools

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENTS: dict[str, type[ToolEnvironment]] = discover([ROOT / "envs"])
DOMAINS = sorted(ENVIRONMENTS)


@functools.cache
def records(domain: str) -> list[TaskRecord]:
    return load_task_file(ROOT / "tasks" / f"{domain}.yaml")


@functools.cache
def graph(domain: str) -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load((ROOT / "agents" / f"{domain}.yaml").read_text(encoding="utf-8"))
    return loaded


def test_every_domain_has_tasks_and_the_manifest_counts_them() -> None:
    declared = load_manifest(ROOT / "tasks").invariants.tasks_per_domain or {}
    assert sorted(declared) == DOMAINS
    assert {domain: len(records(domain)) for domain in DOMAINS} == declared


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_graph_exposes_every_tool_the_tasks_name(domain: str) -> None:
    nodes = graph(domain)["nodes"]
    assert isinstance(nodes, list)
    assert graph(domain)["domain"] == domain
    assert [n["name"] for n in nodes if not n["tools"]] == [FALLBACK_NODE]
    placed = {tool for node in nodes for tool in node["tools"]}
    assert placed <= set(ENVIRONMENTS[domain].tools), placed - set(ENVIRONMENTS[domain].tools)
    for record in records(domain):
        named = {tool for _, tool in named_tools(record.task)}
        assert named <= placed, (record.task.id, named - placed)


@pytest.mark.parametrize("domain", DOMAINS)
def test_task_ids_and_tags_follow_the_graph(domain: str) -> None:
    nodes = graph(domain)["nodes"]
    assert isinstance(nodes, list)
    tags = {node["name"] for node in nodes if node["tools"]}
    for record in records(domain):
        task = record.task
        assert task.domain == domain, task.id
        assert set(task.capabilities) <= tags, task.id
        # <domain>_<capability>_<variant>_NN: the capability part is one of the task's tags
        assert any(task.id.startswith(f"{domain}_{tag}_") for tag in task.capabilities), task.id
    assert Counter(record.task.id for record in records(domain)).most_common(1)[0][1] == 1
