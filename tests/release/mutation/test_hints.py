"""``envs/<domain>/mutations.py``: found beside the environment, checked against its tools, never fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_crmbench.env.environment import ToolEnvironment, tool
from pytest_crmbench.env.registry import discover
from pytest_crmbench.release.mutation.hints import MutationHints, load_hints
from pytest_crmbench.release.mutation.sweep import audit_task_set
from tests.conftest import DATA

ENVIRONMENT = """
from pytest_crmbench import ToolEnvironment, tool

class {name}(ToolEnvironment):
    domain = "{domain}"

    def default_state(self):
        return {{"notes": []}}

    @tool(kind="read")
    def count(self) -> dict:
        \"\"\"How many notes.\"\"\"
        return {{"n": len(self.state["notes"])}}

    @tool(kind="write")
    def note(self, text: str) -> dict:
        \"\"\"Add a note.

        Args:
            text: The note.
        \"\"\"
        self.state["notes"].append(text)
        return {{"n": len(self.state["notes"])}}
"""


def domain_with_hints(root: Path, domain: str, hints: str) -> type[ToolEnvironment]:
    folder = root / "envs" / domain
    folder.mkdir(parents=True)
    (folder / "environment.py").write_text(ENVIRONMENT.format(name=domain.title(), domain=domain))
    (folder / "mutations.py").write_text(hints)
    return discover([root / "envs"])[domain]


def test_the_mini_domain_declares_its_hints(mini_env_class: type[ToolEnvironment]) -> None:
    loaded = load_hints(mini_env_class)
    assert loaded.source == DATA / "envs" / "mini" / "mutations.py"
    assert loaded.problems == []
    assert loaded.hints.requires_before == {"execute_transfer": ("validate_transfer",)}


def test_an_environment_registered_in_code_gets_the_generic_operators() -> None:
    class InCode(ToolEnvironment):
        domain = "in_code"

        @tool(kind="read")
        def look(self) -> dict[str, int]:
            """Look."""
            return {}

    assert load_hints(InCode).hints == MutationHints()
    assert load_hints(InCode).source is None


@pytest.mark.parametrize(
    ("domain", "source", "problems"),
    [
        ("hints_boom", "raise RuntimeError('boom')\n", ["cannot import: RuntimeError: boom"]),
        (
            "hints_wrong_type",
            "HINTS = 3\n",
            ["must define HINTS = MutationHints(...) (pytest_crmbench.release.mutation)"],
        ),
        (
            "hints_bad_tools",
            "from pytest_crmbench.release.mutation import MutationHints\n"
            "HINTS = MutationHints(identity_tool='note', requires_before={'note': ('countt',)}, harmless_repeats=frozenset({'count'}))\n",
            [
                "identity_tool: note is a write tool, expected a read",
                "requires_before[note]: unknown tool 'countt'",
                "harmless_repeats: count is a read tool, expected a write",
            ],
        ),
    ],
)
def test_broken_hints_are_reported_with_their_file(
    tmp_path: Path, domain: str, source: str, problems: list[str]
) -> None:
    loaded = load_hints(domain_with_hints(tmp_path, domain, source))
    assert [p.message for p in loaded.problems] == problems
    assert {p.file for p in loaded.problems} == {str(tmp_path / "envs" / domain / "mutations.py")}
    assert loaded.hints == MutationHints()  # broken hints are not half-used


def test_a_move_that_crashes_is_a_problem_of_its_task_not_a_crash(tmp_path: Path) -> None:
    domain_with_hints(
        tmp_path,
        "hints_crash",
        "from pytest_crmbench.release.mutation import ForbiddenMove, MutationHints\n"
        "def explode(situation):\n    raise KeyError('ACC-404')\n"
        "HINTS = MutationHints(forbidden_moves=(ForbiddenMove('explode', 'rule', explode),))\n",
    )
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "hints_crash.yaml").write_text(
        "domain: hints_crash\nprompt: p\nnodes:\n  - {name: notes, description: d, instruction: i, tools: [count, note]}\n"
        "  - {name: general, description: d, instruction: i, tools: []}\n"
    )
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "crash.yaml").write_text(
        "- id: hints_crash_01\n  domain: hints_crash\n  capabilities: [notes]\n  difficulty: easy\n"
        "  user: {persona: p, goal: Add the note hello., stop: s}\n  contract: {expected_actions: [note]}\n"
        "  gold: {path: [{tool: note, args: {text: hello}}], reply: r}\n"
    )
    run, skipped = audit_task_set(tmp_path / "tasks", tmp_path / "envs", tmp_path / "agents")
    assert skipped == [] and run.audit.tasks == []
    (problem,) = run.gate()
    assert problem.task_id == "hints_crash_01"
    assert problem.message == "the mutation audit failed on this task: mutations.py raised KeyError: 'ACC-404'"


def test_the_conduct_rules_are_the_hints_identity_tool_and_preconditions() -> None:
    from pytest_crmbench.core.conduct import ConductRules, Identity, Precondition
    from pytest_crmbench.release.mutation.hints import load_hints
    from tests.release.mutation.test_conduct_operators import Helpdesk

    class Checked(Helpdesk):
        domain = "checked"
        conduct = ConductRules(
            domain="checked",
            identity=Identity(tool="verify", subject="customer_id", passed="verified"),
            preconditions=(
                Precondition(tool="add_note", after="get_ticket", same=(), passed="found", reason="read it first"),
            ),
        )

    hints = load_hints(Checked).hints  # declared once, in the rules: no mutations.py repeats them
    assert hints.identity_tool == "verify"
    assert hints.requires_before == {"add_note": ("get_ticket",)}
