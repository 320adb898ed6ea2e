"""--crm-concurrency without a model: episodes run ahead in threads, and --co plays none of them."""

from __future__ import annotations

from tests.integration.helpers import BY_TASK, CrmProject

LOGGED_AGENT = (
    BY_TASK
    + """

class Logged(GoldAgent):
    def respond(self, conversation, tools):
        with Path(__file__).with_name("played.log").open("a") as log:
            log.write("played\\n")
        return super().respond(conversation, tools)


def pytest_crmbench_make_agent(name, context):
    if name == "logged":
        return ByTask(Logged)
"""
)


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


COUNTING_FACTORY = """
from pathlib import Path

from pytest_crmbench.run.baselines import NullAgent


def make(context):
    with Path(__file__).with_name("built.log").open("a") as log:
        log.write("built\\n")
    return NullAgent()
"""


def test_each_items_agent_is_built_once(mini_project: CrmProject) -> None:
    # Once built twice: in the pool thread (and used), then again by the crm_agent fixture (issue 9 §3).
    mini_project.pytester.syspathinsert()
    mini_project.pytester.makepyfile(factories=COUNTING_FACTORY)
    mini_project.run("--crm-agent=factories:make", "--crm-concurrency=2", "--crm-run-dir=out")
    assert (mini_project.path / "built.log").read_text().count("built") == 6


ORDER_CONFTEST = (
    BY_TASK
    + """
import pytest

LOG = Path(__file__).with_name("order.log")


class Logged(GoldAgent):
    def respond(self, conversation, tools):
        with LOG.open("a") as log:
            log.write("played\\n")
        return super().respond(conversation, tools)


def pytest_crmbench_make_agent(name, context):
    if name == "logged":
        return ByTask(Logged)


@pytest.fixture(autouse=True)
def prepared():
    with LOG.open("a") as log:
        log.write("prepared\\n")
"""
)


def test_autouse_fixtures_run_before_their_episode(mini_project: CrmProject) -> None:
    # Once the episode was played ahead, before the autouse fixture that should prepare it ran.
    mini_project.pytester.makeconftest(ORDER_CONFTEST)
    result = mini_project.run("--crm-agent=logged", "--crm-concurrency=4", "--crm-run-dir=out")
    result.assert_outcomes(passed=6)
    assert (mini_project.path / "order.log").read_text().split() == ["prepared", "played"] * 6
    result.stdout.fnmatch_lines(
        [
            "crmbench: 6 task item(s) play inline, not ahead (--crm-concurrency): they use fixtures crmbench"
            " cannot run ahead of them: prepared"
        ]
    )


def test_usefixtures_in_the_ini_is_honoured_too(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(ORDER_CONFTEST.replace("(autouse=True)", ""))
    mini_project.write_config('usefixtures = ["prepared"]\n')
    mini_project.run("--crm-agent=logged", "--crm-concurrency=4", "--crm-run-dir=out").assert_outcomes(passed=6)
    assert (mini_project.path / "order.log").read_text().split() == ["prepared", "played"] * 6


FIXTURES_AT_TEARDOWN = """
import json
from pathlib import Path

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    env = item.funcargs["crm_env"]
    line = {"id": item.task.id, "state": json.dumps(env.state, sort_keys=True, default=str),
            "user": type(item.funcargs["crm_user"]).__name__, "judge": type(item.funcargs["crm_judge"]).__name__}
    with Path(__file__).with_name("fixtures.jsonl").open("a") as log:
        log.write(json.dumps(line) + "\\n")
    return (yield)
"""


def test_an_item_played_ahead_holds_the_fixtures_that_played_it(mini_project: CrmProject) -> None:
    # Inline, crm_env is the environment the episode ran on; ahead, the same (never a second,
    # freshly reset one that nothing used): a teardown hook reads the same final states either way.
    mini_project.pytester.makeconftest(FIXTURES_AT_TEARDOWN)
    seen = {}
    for concurrency in ("1", "4"):
        log = mini_project.path / "fixtures.jsonl"
        log.unlink(missing_ok=True)
        mini_project.run("--crm-agent=gold", f"--crm-concurrency={concurrency}").assert_outcomes(passed=6)
        seen[concurrency] = sorted(log.read_text().splitlines())
    assert len(seen["4"]) == 6 and seen["1"] == seen["4"]
