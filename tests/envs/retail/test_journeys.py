"""The multi-capability journey tasks (those with two or more capability tags, in whichever retail
task file holds them): their worlds keep the rules and their tags name real nodes; and for every
retail task, every tool its gold path calls sits on a node it is tagged with, so a task's tags
are never narrower than its path (a single-capability task stays on its one node)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from pytest_crmbench.core.loader import TaskRecord, load_task_file

from .helpers import GRAPH, ROOT, make


def tasks() -> Iterator[TaskRecord]:
    for path in sorted(Path(ROOT / "tasks").glob("retail*.yaml")):
        yield from load_task_file(path)


def node_tools() -> dict[str, set[str]]:
    graph = yaml.safe_load(GRAPH.read_text(encoding="utf-8"))
    return {node["name"]: set(node["tools"]) for node in graph["nodes"]}


TASKS = list(tasks())
JOURNEYS = [record for record in TASKS if len(record.task.capabilities) >= 2]


def test_there_are_journeys_to_check() -> None:
    assert len(JOURNEYS) >= 20


@pytest.mark.parametrize("record", JOURNEYS, ids=lambda r: r.task.id)
def test_a_journey_starts_in_a_consistent_world(record: TaskRecord) -> None:
    assert make(record.task.initial_state).violations() == []


@pytest.mark.parametrize("record", TASKS, ids=lambda r: r.task.id)
def test_a_tasks_gold_path_stays_on_its_tags(record: TaskRecord) -> None:
    nodes = node_tools()
    tags = record.task.capabilities
    assert set(tags) <= set(nodes) - {"general"}
    reachable = set().union(*(nodes[tag] for tag in tags))
    called = {step.tool for step in record.task.gold.path}
    assert called <= reachable, called - reachable
