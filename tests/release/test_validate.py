"""``crmbench validate``: each deliberately broken fixture gives its message and a non-zero exit."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_crmbench.release.validate import Selection, validate
from tests.release.conftest import AGENTS, ENVS, MakeTasks, run_validate


def test_the_mini_task_set_passes_and_can_be_locked(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = make_tasks(mini=True)
    assert run_validate(tasks, "--gold", "--write-lock") == 0
    assert (tasks / "lock.json").is_file()
    assert run_validate(tasks, "--gold") == 0
    out = capsys.readouterr().out
    assert "crmbench validate: 6 task(s), 0 problem(s)" in out


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            ["duplicate_id_a.yaml", "duplicate_id_b.yaml"],
            "duplicate_id_b.yaml:2: task 'mini_dup_01': field 'id': duplicate task id (first defined at ",
            id="duplicate-id-across-files",
        ),
        pytest.param(
            ["unknown_tool.yaml"],
            "unknown_tool.yaml:13: task 'mini_unknown_tool_01': field 'contract.forbidden.actions[0]': "
            "unknown tool 'delete_everything' in domain 'mini'",
            id="unknown-tool",
        ),
        pytest.param(
            ["mistyped_gold.yaml"],
            "mistyped_gold.yaml:14: task 'mini_mistyped_gold_01': field 'gold.path[0].args.amount': "
            "'fifty' is not a valid execute_transfer.amount: Input should be a valid decimal",
            id="mistyped-gold-argument",
        ),
        pytest.param(
            ["bad_state_path.yaml"],
            "bad_state_path.yaml:13: task 'mini_bad_state_path_01': field 'contract.expected_state.accounts.ACC-1.balanse': "
            "state path 'accounts.ACC-1.balanse' does not exist in the reset state ('accounts.ACC-1' has no 'balanse')",
            id="bad-state-path",
        ),
        pytest.param(
            ["gold_fails_contract.yaml"],
            "gold_fails_contract.yaml:15: task 'mini_gold_fails_01': field 'gold': gold path fails its own contract: "
            "state[0] accounts.ACC-1.balance",
            id="gold-fails-its-contract",
        ),
        pytest.param(
            ["null_passes.yaml"],
            "null_passes.yaml:12: task 'mini_null_passes_01': field 'contract': the null agent (no tool calls) "
            "passes every programmatic check: the task tests nothing",
            id="null-agent-passes",
        ),
        pytest.param(
            ["unknowable_argument.yaml"],
            "unknowable_argument.yaml:18: task 'mini_unknowable_01': field 'gold.path[0].args.to_account': "
            "execute_transfer.to_account = 'ACC-2' appears neither in the user instruction nor in an earlier gold result",
            id="argument-the-user-cannot-know",
        ),
        pytest.param(
            ["forbids_unexposed.yaml"],
            "forbids_unexposed.yaml:14: task 'mini_forbids_unexposed_01': field 'contract.forbidden.actions[0]': "
            "broken_tool is not exposed by any node of the mini graph",
            id="tool-not-on-the-graph",
        ),
    ],
)
def test_broken_fixture_is_reported_with_file_line_task_and_field(
    files: list[str], expected: str, make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = make_tasks(*files)
    assert run_validate(tasks, "--gold") == 1
    out = capsys.readouterr().out
    assert expected in out, out


def test_all_problems_are_reported_together(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = make_tasks("unknown_tool.yaml", "mistyped_gold.yaml", "null_passes.yaml")
    assert run_validate(tasks, "--gold") == 1
    out = capsys.readouterr().out
    for task_id in ("mini_unknown_tool_01", "mini_mistyped_gold_01", "mini_null_passes_01"):
        assert f"task '{task_id}'" in out


def test_gold_audits_run_only_with_gold(make_tasks: MakeTasks) -> None:
    tasks = make_tasks("null_passes.yaml", "unknowable_argument.yaml", "gold_fails_contract.yaml")
    structural = validate(tasks, ENVS, AGENTS)
    assert [p.task_id for p in structural.problems if p.task_id] == []
    replayed = validate(tasks, ENVS, AGENTS, gold=True, fuzz_examples=0)
    assert {p.task_id for p in replayed.problems} >= {"mini_null_passes_01", "mini_unknowable_01", "mini_gold_fails_01"}


def test_a_broken_task_set_is_never_locked(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = make_tasks("gold_fails_contract.yaml")
    assert run_validate(tasks, "--write-lock") == 1  # --write-lock implies --gold
    assert "lock not written: fix the problems above first" in capsys.readouterr().out
    assert not (tasks / "lock.json").exists()


def test_manifest_invariants_must_match_the_task_files(make_tasks: MakeTasks) -> None:
    tasks = make_tasks(mini=True)
    manifest = tasks / "manifest.yaml"
    manifest.write_text(manifest.read_text() + "invariants:\n  tasks_per_domain: {mini: 7}\n")
    report = validate(tasks, ENVS, AGENTS, lock=True, fuzz_examples=0)
    assert [(p.field, p.message.split(" (")[0]) for p in report.problems[:1]] == [
        ("invariants.tasks_per_domain.mini", "the manifest declares 7 task(s), the task files have 6")
    ]


def test_tag_counts_and_forbidden_declarations_are_release_invariants(make_tasks: MakeTasks) -> None:
    """The mini set: 4 one-tag and 2 two-tag tasks, 5 forbidden-action declarations (hand count in
    tests/release/test_inventory.py). True promises pass; a wrong one names its field."""
    tasks = make_tasks(mini=True)
    manifest = tasks / "manifest.yaml"
    base = manifest.read_text()
    manifest.write_text(
        base + "invariants:\n  tasks_per_tag_count: {one: 4, two: 2}\n  forbidden_action_declarations: 5\n"
    )
    assert validate(tasks, ENVS, AGENTS, lock=True, fuzz_examples=0).problems == []
    manifest.write_text(
        base + "invariants:\n  tasks_per_tag_count: {one: 3, two: 2, three: 1}\n  forbidden_action_declarations: 6\n"
    )
    problems = validate(tasks, ENVS, AGENTS, lock=True, fuzz_examples=0).problems
    assert [(p.field, p.message.split(" (")[0]) for p in problems[:3]] == [
        ("invariants.tasks_per_tag_count.one", "the manifest declares 3 task(s), the task files have 4"),
        ("invariants.tasks_per_tag_count.three", "the manifest declares 1 task(s), the task files have 0"),
        ("invariants.forbidden_action_declarations", "the manifest declares 6 declaration(s), the task files have 5"),
    ]
    manifest.write_text(base + "invariants:\n  tasks_per_tag_count: {five: 1}\n")
    (problem,) = validate(tasks, ENVS, AGENTS, fuzz_examples=0).problems
    assert problem.field == "invariants.tasks_per_tag_count.five"


def test_table_2_rows_are_release_invariants(make_tasks: MakeTasks) -> None:
    """The mini set's rows (hand count in tests/release/test_inventory.py): true promises pass, a
    row the task files do not have names its field and both counts, a made-up row lists the real ones."""
    tasks = make_tasks(mini=True)
    manifest = tasks / "manifest.yaml"
    base = manifest.read_text()
    true_rows = "{expected_state: 3, forbidden_actions_or_params: 5, any_negative_assertion: 5}"
    manifest.write_text(base + f"invariants:\n  tasks_with: {true_rows}\n")
    assert validate(tasks, ENVS, AGENTS, lock=True, fuzz_examples=0).problems == []
    manifest.write_text(base + "invariants:\n  tasks_with: {expected_state: 4, protected: 3}\n")
    problems = validate(tasks, ENVS, AGENTS, lock=True, fuzz_examples=0).problems
    assert [(p.field, p.message.split(" (")[0].split(";")[0]) for p in problems[:2]] == [
        ("invariants.tasks_with.expected_state", "the manifest declares 4 task(s), the task files have 3"),
        ("invariants.tasks_with.protected", "no table-2 row 'protected'"),
    ]
    assert "protected_state" in problems[1].message


def test_missing_manifest(make_tasks: MakeTasks) -> None:
    tasks = make_tasks(mini=True)
    manifest = tasks / "manifest.yaml"
    manifest.unlink()
    rendered = [p.render() for p in validate(tasks, ENVS, AGENTS).problems]
    assert any("manifest.yaml: no release manifest" in line for line in rendered), rendered


def test_missing_tasks_directory_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    report = validate(tmp_path / "nope", ENVS, AGENTS)
    assert not report.ok
    assert "no such tasks directory" in report.lines()[0]


def test_a_selection_reports_only_its_own_problems(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> None:
    # One broken task in the set, and a manifest whose counts the selection cannot meet: an author
    # working on another task sees neither; the whole set still sees both.
    tasks = make_tasks("unknown_tool.yaml", mini=True)
    manifest = tasks / "manifest.yaml"
    manifest.write_text(manifest.read_text() + "invariants:\n  tasks_per_domain: {mini: 99}\n")
    whole = validate(tasks, ENVS, AGENTS, gold=True, fuzz_examples=0)
    assert {p.task_id for p in whole.problems} >= {"mini_unknown_tool_01", None}
    one = validate(tasks, ENVS, AGENTS, gold=True, fuzz_examples=0, selection=Selection(tasks=("mini_balance_*",)))
    assert one.ok, [p.render() for p in one.problems]
    assert 0 < one.tasks < whole.tasks
    assert "selected by task mini_balance_*" in one.lines()[-1]
    broken = validate(tasks, ENVS, AGENTS, selection=Selection(tasks=("mini_unknown_tool_01",)))
    assert [p.task_id for p in broken.problems] == ["mini_unknown_tool_01"]
    assert run_validate(tasks, "--domain", "mini", "--write-lock") == 1
    assert "a lock covers the whole task set: not written from a selection" in capsys.readouterr().out
    assert not (tasks / "lock.json").exists()
    assert run_validate(tasks, "--domain", "nope") == 1
    assert "no task matches domain nope" in capsys.readouterr().out


def test_the_gate_says_what_it_is_doing(make_tasks: MakeTasks) -> None:
    tasks = make_tasks(mini=True)
    said: list[str] = []
    validate(tasks, ENVS, AGENTS, gold=True, fuzz_examples=1, progress=said.append)
    assert said[0] == "crmbench validate: mini: 6 task(s), structure"
    assert (
        said[1]
        == "crmbench validate: gold replay and audits of 6 task(s) in 1 process(es), 0 unchanged since they passed"
    )
    assert said[-1] == "crmbench validate: tool fuzz of 1 domain(s), 1 example(s) per tool"
