"""The multi-capability journey tasks (ids 80 and up, in whichever retail task file holds them):
their worlds keep the rules, their tags name real nodes, and every tool their gold path calls
sits on a node they are tagged with, so a journey's tags are never narrower than its path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from pytest_crmbench.core.loader import TaskRecord, load_task_file

from .helpers import GRAPH, ROOT, make

FIRST_JOURNEY = 80


def journeys() -> Iterator[TaskRecord]:
    for path in sorted(Path(ROOT / "tasks").glob("retail*.yaml")):
        for record in load_task_file(path):
            if int(record.task.id.rsplit("_", 1)[1]) >= FIRST_JOURNEY:
                yield record


def node_tools() -> dict[str, set[str]]:
    graph = yaml.safe_load(GRAPH.read_text(encoding="utf-8"))
    return {node["name"]: set(node["tools"]) for node in graph["nodes"]}


JOURNEYS = list(journeys())


def test_there_are_journeys_to_check() -> None:
    assert len(JOURNEYS) >= 20


@pytest.mark.parametrize("record", JOURNEYS, ids=lambda r: r.task.id)
def test_a_journey_starts_in_a_consistent_world(record: TaskRecord) -> None:
    assert make(record.task.initial_state).violations() == []


@pytest.mark.parametrize("record", JOURNEYS, ids=lambda r: r.task.id)
def test_a_journey_crosses_capabilities_and_its_path_stays_on_its_tags(record: TaskRecord) -> None:
    nodes = node_tools()
    tags = record.task.capabilities
    assert len(tags) >= 2
    assert set(tags) <= set(nodes) - {"general"}
    reachable = set().union(*(nodes[tag] for tag in tags))
    called = {step.tool for step in record.task.gold.path}
    assert called <= reachable, called - reachable
