"""``crmbench validate`` checks the world each task starts in: the seed and every override pass
the domain's state model and keep its invariants, reported with file, line, task and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_crmbench.release import validate
from tests.release.conftest import AGENTS, ENVS, MakeTasks, run_validate


def test_an_override_the_model_refuses_or_that_breaks_an_invariant_is_reported(
    make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = make_tasks("broken_world.yaml")
    assert run_validate(tasks) == 1
    out = capsys.readouterr().out
    assert (
        "broken_world.yaml:12: task 'mini_refused_override_01': field 'initial_state.accounts.ACC-1.balance': "
        "Amount cannot have more than two decimal places." in out
    ), out
    assert (
        "broken_world.yaml:30: task 'mini_inconsistent_override_02': field 'initial_state.orders.ORD-1.account_id': "
        "breaks a world invariant: no account 'ACC-404'" in out
    ), out


def test_a_broken_seed_is_reported_once_for_the_domain(make_tasks: MakeTasks, tmp_path: Path) -> None:
    envs = tmp_path / "envs"
    shutil.copytree(ENVS / "mini", envs / "mini")
    source = envs / "mini" / "environment.py"
    source.write_text(source.read_text().replace('"balance": "180.00"', '"balance": "-180.00"'))
    report = validate(make_tasks(mini=True), envs, AGENTS, gold=True)  # no replay starts in a broken world
    seed = [p.render() for p in report.problems if p.field and p.field.startswith("seed")]
    assert seed == [f"{envs / 'mini'}: field 'seed.accounts.ACC-1.balance': Input should be greater than or equal to 0"]
    assert not [p for p in report.problems if p.task_id], "a broken seed is not blamed on every task"


def test_a_seed_that_breaks_an_invariant_is_reported(make_tasks: MakeTasks, tmp_path: Path) -> None:
    envs = tmp_path / "envs"
    shutil.copytree(ENVS / "mini", envs / "mini")
    source = envs / "mini" / "environment.py"
    source.write_text(
        source.read_text().replace(
            '"account_id": "ACC-1", "status": "pending"', '"account_id": "ACC-0", "status": "pending"'
        )
    )
    report = validate(make_tasks(mini=True), envs, AGENTS)
    assert [p.render() for p in report.problems if "lock" not in p.message] == [
        f"{envs / 'mini'}: field 'seed.orders.ORD-1.account_id': no account 'ACC-0'"
    ]
