"""plugin/runmanifest.py: a run's system name tells the agent and the model apart."""

from __future__ import annotations

from pytest_crmbench.models.llm import ModelSettings
from pytest_crmbench.plugin.runmanifest import system_name
from pytest_crmbench.run.settings import RunSettings


def test_two_agents_on_one_model_are_two_systems() -> None:
    model = ModelSettings(agent="openai/gpt-5")
    graph, flat = RunSettings(agent="graph", models=model), RunSettings(agent="flat", models=model)
    assert (system_name(graph), system_name(flat)) == ("graph/openai/gpt-5", "flat/openai/gpt-5")


def test_an_agent_without_a_model_is_named_by_the_agent_alone() -> None:
    assert system_name(RunSettings(agent="null")) == "null"
