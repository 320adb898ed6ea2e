"""The tool fuzz of ``crmbench validate --gold``: schema-valid arguments never crash a tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_crmbench.env.environment import ToolEnvironment, tool
from pytest_crmbench.release.fuzz import fuzz_problems
from tests.release.conftest import MakeTasks, run_validate

REPO = Path(__file__).parents[2]


def test_a_crashing_tool_fails_the_release_gate(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = make_tasks(mini=True)
    assert run_validate(tasks, "--gold", "--write-lock", fuzz=True) == 1
    out = capsys.readouterr().out
    assert "tests/data/envs/mini/environment.py: field 'broken_tool': tool broken_tool crashes on schema-valid" in out
    assert "arguments {}: RuntimeError: boom" in out
    assert not (tasks / "lock.json").exists()


def test_the_fuzz_finds_a_crash_that_needs_a_particular_argument() -> None:
    class Fragile(ToolEnvironment):
        domain = "fragile"

        def default_state(self) -> dict[str, object]:
            return {"accounts": {"ACC-7": {"limit": 10}}}

        @tool(kind="read")
        def limit_of(self, account_id: str, share: float) -> dict[str, object]:
            """Return a share of an account's limit.

            Args:
                account_id: Account id.
                share: The share, as a fraction.
            """
            account = self.state["accounts"].get(account_id)
            if account is None:
                return {"found": False}
            return {"limit": account["limit"] / share}  # a zero share crashes

    (problem,) = fuzz_problems({"fragile": Fragile}, examples=80)
    assert problem.field == "limit_of"
    assert '{"account_id": "ACC-7", "share": 0}: ZeroDivisionError' in problem.message


def test_the_payments_tools_do_not_crash_on_schema_valid_arguments() -> None:
    # A smoke test on one real domain: every domain's full fuzz (50 examples a tool) is the gate's,
    # which CI runs once (`crmbench validate --gold`), not again inside the tests (issue 33 §2).
    from pytest_crmbench.env.registry import discover

    environments = {"payments": discover([REPO / "envs"])["payments"]}
    assert [p.render() for p in fuzz_problems(environments, examples=15)] == []
