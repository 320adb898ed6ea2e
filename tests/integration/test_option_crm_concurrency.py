"""--crm-concurrency without a model: episodes run ahead in threads, and --co plays none of them."""

from __future__ import annotations

from tests.integration.helpers import CrmProject

LOGGED_AGENT = """
from pathlib import Path

from pytest_crmbench.run.agents import GoldAgent


class Logged(GoldAgent):
    def respond(self, conversation, tools):
        with Path(__file__).with_name("played.log").open("a") as log:
            log.write("played\\n")
        return super().respond(conversation, tools)


def pytest_crmbench_make_agent(name, context):
    if name == "logged":
        return Logged(context.task)
"""


def test_collect_only_plays_no_episode(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(LOGGED_AGENT)
    result = mini_project.run("--co", "-q", "--crm-agent=logged", "--crm-concurrency=4")
    result.stdout.fnmatch_lines(["*6 tests collected*"])
    assert not (mini_project.path / "played.log").exists()


def test_episodes_played_ahead_give_the_serial_results(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(LOGGED_AGENT)
    result = mini_project.run("--crm-agent=logged", "--crm-concurrency=4", "--crm-run-dir=out")
    result.assert_outcomes(passed=6)
    assert (mini_project.path / "played.log").read_text().count("played") == 6
