"""The task files behind a report: each check verdict points at the YAML line that declares it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import grade
from pytest_crmbench.results.sources import check_location, load_sources, task_files_in
from pytest_crmbench.run.baselines import GoldAgent
from pytest_crmbench.run.episode import run_episode
from tests.conftest import DATA

MINI = DATA / "tasks" / "mini.yaml"


def line_containing(text: str, after: int = 0) -> int:
    """1-based line of the first line at or after ``after`` holding ``text``, found in the file itself."""
    lines = MINI.read_text(encoding="utf-8").splitlines()
    return next(i + 1 for i, line in enumerate(lines) if i + 1 >= after and text in line)


def test_every_check_a_grade_produces_maps_to_its_declaration(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    sources = load_sources([MINI], DATA)
    assert sources.problems == []
    for task_id, task in mini_tasks.items():
        evidence = run_episode(
            task, mini_env_class(task.initial_state, seed=1), GoldAgent(task), ScriptedUser(task), agent_name="gold"
        )
        source = sources.tasks[task_id]
        assert source.file == "tasks/mini.yaml"
        for verdict in grade(task, evidence).checks:
            assert check_location(verdict.name, task.contract) is not None, verdict.name
            assert source.check_line(verdict.name) >= source.line


def test_lines_point_at_the_declaring_entry() -> None:
    source = load_sources([MINI]).tasks["mini_checkout_chain_01"]
    start = source.line
    assert start == line_containing("id: mini_checkout_chain_01")
    assert source.check_line("state[0] accounts.ACC-1.loyalty_points") == line_containing("loyalty_points: 155", start)
    assert source.check_line("state[2] log") == line_containing("log: {$non_empty", start)
    assert source.check_line("param[1] log_note (any)") == line_containing("{tool: log_note, args", start)
    assert source.check_line("forbidden.action[0] close_account") == line_containing("actions: [close_account]", start)
    assert source.check_line("forbidden.state[0] accounts.ACC-1.status") == line_containing("state: {accounts", start)
    assert source.check_line("collateral[1] accounts.ACC-3") == line_containing("protected:", start)
    assert source.check_line("reply[0]") == line_containing("reply_criteria:", start)
    assert source.check_line("something else") == start


def test_check_location_of_each_family(mini_tasks: dict[str, Task]) -> None:
    contract = mini_tasks["mini_transfer_retry_01"].contract
    assert check_location("action[1] execute_transfer x1", contract) == ("contract", "expected_actions", 2)
    assert check_location("order[0] validate_transfer -> execute_transfer (subsequence)", contract) == (
        "contract",
        "action_order",
        0,
    )
    assert check_location("forbidden.param[0] execute_transfer", contract) == ("contract", "forbidden", "params", 0)
    assert check_location("reply[contradiction]", contract) == ("contract", "reply_criteria")
    assert check_location("action[0] no_such_tool x1", contract) is None


def test_a_broken_task_file_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(MINI.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "bad.yaml").write_text("- id: [unclosed\n", encoding="utf-8")
    (tmp_path / "manifest.yaml").write_text("version: 1\n", encoding="utf-8")
    files = task_files_in(tmp_path)
    assert [f.name for f in files] == ["bad.yaml", "good.yaml"]
    sources = load_sources(files, tmp_path)
    assert len(sources.tasks) == 6
    (problem,) = sources.problems
    assert problem.startswith("bad.yaml: not read (")


@pytest.mark.parametrize("name", ["", "reply", "state[x] a.b", "param[] x"])
def test_unknown_names_have_no_location(name: str, mini_tasks: dict[str, Task]) -> None:
    assert check_location(name, mini_tasks["mini_transfer_retry_01"].contract) is None


def test_the_report_reuses_what_collection_parsed_and_reads_an_edited_file_anew(tmp_path: Path) -> None:
    # A run's report and every live rewrite read the task files again: the same text is the same
    # records (no second parse of a 96-task file), an edited file is read as it now is.
    path = tmp_path / "mini.yaml"
    path.write_text(MINI.read_text(encoding="utf-8"), encoding="utf-8")
    first = load_sources([path], tmp_path).tasks["mini_balance_only_01"]
    again = load_sources([path], tmp_path).tasks["mini_balance_only_01"]
    assert again.task is first.task
    path.write_text(path.read_text(encoding="utf-8").replace("id: mini_balance_only_01", "id: mini_balance_renamed"))
    edited = load_sources([path], tmp_path).tasks
    assert "mini_balance_only_01" not in edited and edited["mini_balance_renamed"].file == "mini.yaml"
    assert edited["mini_balance_renamed"].line == first.line
