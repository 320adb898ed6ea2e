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
from typing import Any

import pytest
import yaml

from pytest_crmbench import Violation
from pytest_crmbench.core.loader import TaskRecord, load_task_file
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from pytest_crmbench.env.state import Reference, collection, reference_values
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


# -- references: every Ref of a domain's data model is checked -----------------------------


MISSING = "NO-SUCH-ID-404"


def _with_dangling_id(state: dict[str, Any], path: str, is_key: bool) -> str:
    """Point the id at ``path`` (a value, or a dict key) to no record; the path of the violation."""
    *parents, last = path.split(".")
    node: Any = state
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if is_key:
        node[MISSING] = node.pop(last)
        return ".".join([*parents, MISSING])
    node[int(last) if isinstance(node, list) else last] = MISSING
    return path


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_reference_of_the_data_model_naming_no_record_is_a_violation(domain: str) -> None:
    cls = ENVIRONMENTS[domain]
    assert cls.state_model is not None
    seen: dict[Reference, str] = {}  # each reference -> the first place of the seed that holds it
    for path, value, reference in reference_values(cls.state_model, cls().state):
        if value is not None:
            seen.setdefault(reference, path)
    assert seen, f"{domain} declares no Ref that its seed uses"
    for reference, path in seen.items():
        env = cls()
        broken = _with_dangling_id(env.state, path, is_key=str(reference).endswith("{key}"))
        noun = collection(cls.state_model, reference.collection).record.noun
        assert Violation(broken, f"names no {noun}") in env.violations(), (str(reference), broken)


TASK_WORLDS_WITH_A_DANGLING_ID: list[tuple[str, dict[str, Any], list[Violation]]] = [
    (
        "sales",
        {"leads": {"LEAD-30012": {"owner_id": "REP-999"}}},
        [Violation("leads.LEAD-30012.owner_id", "names no rep")],
    ),
    ("retail", {"settings": {"exchange_store": "STR-XXX"}}, [Violation("settings.exchange_store", "names no store")]),
    (
        "retail",
        {"gift_cards": {"GC-5520": {"replaced_by": "GC-0000"}}},
        [Violation("gift_cards.GC-5520.replaced_by", "names no gift card")],
    ),
    (
        "field_service",
        {"technicians": {"SR-101": {"van_stock": {"P-NONE": 0}}}},
        [Violation("technicians.SR-101.van_stock.P-NONE", "names no part")],
    ),
    (
        "itsm",
        {"cis": {"CI-2001": {"depends_on": ["CI-3001", "CI-9999"]}}},
        [Violation("cis.CI-2001.depends_on.1", "names no config item")],
    ),
    (
        "travel",
        {"bookings": {"H4LM8P": {"rebooked_from": ["XX999-2026-05-01"]}}},
        [Violation("bookings.H4LM8P.rebooked_from.0", "names no flight")],
    ),
]


@pytest.mark.parametrize(
    ("domain", "override", "expected"),
    TASK_WORLDS_WITH_A_DANGLING_ID,
    ids=[f"{domain}-{violations[0].path}" for domain, _, violations in TASK_WORLDS_WITH_A_DANGLING_ID],
)
def test_a_task_world_with_a_dangling_id_is_reported(
    domain: str, override: dict[str, Any], expected: list[Violation]
) -> None:
    assert ENVIRONMENTS[domain](override).violations() == expected
    assert ENVIRONMENTS[domain]({key: {} for key in override}).violations() == []  # the seed itself is sound
