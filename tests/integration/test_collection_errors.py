"""Malformed task files fail collection with one clear line per problem, never a traceback."""

from __future__ import annotations

import pytest

from tests.integration.helpers import CrmProject

BAD = {
    "unknown_field.yaml": [
        "tasks/unknown_field.yaml:8: task 'mini_typo_01': field 'contract.expected_stat': unknown field (check the spelling; see `crmbench schema`)"
    ],
    "not_a_list.yaml": ["tasks/not_a_list.yaml:1: a task file must be a YAML list of task records"],
    # libyaml notices the unclosed flow sequence of line 3 when it reaches line 4.
    "invalid_yaml.yaml": [
        "tasks/invalid_yaml.yaml:3: invalid YAML: while parsing a flow sequence did not find expected ',' or ']' (at line 4)"
    ],
    "bad_operator.yaml": [
        "tasks/bad_operator.yaml:11: task 'mini_operator_01': field 'difficulty': Input should be 'easy', 'medium' or 'hard'",
        "tasks/bad_operator.yaml:17: task 'mini_operator_01': field 'contract.expected_params[[]0].args.account_id': unknown operator '$startswith'; known: *",
    ],
    "unknown_domain.yaml": [
        "tasks/unknown_domain.yaml:*: task 'telecom_plan_01': field 'domain': no environment for domain 'telecom' (known: mini)"
    ],
    "duplicate_id.yaml": [
        "tasks/duplicate_id.yaml:8: task 'mini_same_01': field 'id': duplicate task id (first defined at line 1)"
    ],
    "missing_field.yaml": ["tasks/missing_field.yaml:6: task 'mini_nostop_01': field 'user.stop': Field required"],
    "empty_contract.yaml": [
        "tasks/empty_contract.yaml:7: task 'mini_empty_01': field 'contract': a contract must declare at least one check*"
    ],
    "alias_bomb_state.yaml": ["tasks/alias_bomb_state.yaml:14: invalid YAML: aliases expand to 490,329,092 nodes*"],
    "nan_operand.yaml": ["tasks/nan_operand.yaml:8: task 'mini_nan_01': field '*': NaN is not a value*"],
    # What `crmbench validate` refuses, collection refuses too (the same structural validation).
    "inf_state.yaml": [
        "tasks/inf_state.yaml:8: task 'mini_inf_01': field 'contract.expected_state*': an infinite number is not a value*"
    ],
    "path_into_nothing.yaml": [
        "tasks/path_into_nothing.yaml:8: task 'mini_nopath_01': field 'contract.expected_state.*"
    ],
    "unknown_tool.yaml": [
        "tasks/unknown_tool.yaml:7: task 'mini_notool_01': field 'contract.expected_actions[[]0]': unknown tool 'get_balances'*"
    ],
    "empty_file.yaml": ["tasks/empty_file.yaml:1: a task file holds no tasks*"],
}


def assert_no_traceback(result: pytest.RunResult) -> None:
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out
    assert "pytest_crmbench/" not in out
    assert "raise " not in out


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_file_is_a_clear_collection_error(crm_project: CrmProject, name: str) -> None:
    crm_project.add_bad(name)
    result = crm_project.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            f"*ERROR collecting tasks/{name}*",
            *BAD[name],
            "*short test summary info*",
            f"ERROR tasks/{name}",
            "*Interrupted: 1 error during collection*",
        ]
    )
    assert_no_traceback(result)


def test_every_problem_of_a_file_is_reported_at_once(crm_project: CrmProject) -> None:
    crm_project.add_bad("bad_operator.yaml")
    result = crm_project.run("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    # Exactly the two problems of record 2; record 1 is fine and not reported.
    problems = [line for line in result.outlines if line.startswith("tasks/bad_operator.yaml:")]
    assert len(problems) == 2, problems
    assert "mini_ok_01" not in result.stdout.str()


def test_unknown_domain_lists_known_domains(crm_project: CrmProject) -> None:
    crm_project.add_bad("unknown_domain.yaml")
    result = crm_project.run()
    result.stdout.fnmatch_lines(["*field 'domain': no environment for domain 'telecom' (known: mini)"])


def test_unknown_domain_points_at_the_domain_line(crm_project: CrmProject) -> None:
    crm_project.add_bad("unknown_domain.yaml")
    result = crm_project.run()
    result.stdout.fnmatch_lines(["tasks/unknown_domain.yaml:2: task 'telecom_plan_01': field 'domain': *"])


def test_one_bad_file_does_not_hide_the_good_ones(crm_project: CrmProject) -> None:
    crm_project.add("mini.yaml")
    crm_project.add_bad("duplicate_id.yaml")
    result = crm_project.run("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["tasks/mini.yaml::mini_override_01", "*ERROR collecting tasks/duplicate_id.yaml*"])
    # --continue-on-collection-errors runs the good file anyway.
    result = crm_project.run("--continue-on-collection-errors")
    result.assert_outcomes(passed=6, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_task_marker_names_are_validated_as_identifiers(crm_project: CrmProject) -> None:
    crm_project.write(
        "marks.yaml",
        """\
- id: mini_marks_01
  domain: mini
  capabilities: [Balance-Check]
  difficulty: easy
  user: {persona: p, goal: g, stop: s}
  contract: {expected_actions: [get_balance]}
  gold: {reply: r}
""",
    )
    result = crm_project.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["tasks/marks.yaml:3: task 'mini_marks_01': field 'capabilities[[]0]': String should match pattern *"]
    )
    assert_no_traceback(result)


def test_a_task_id_defined_in_two_files_is_a_collection_error(crm_project: CrmProject) -> None:
    # Results are keyed by task id: a second copy would overwrite the first's result, and a failed
    # task could show up as a success (issue 11 item 3).
    mini = crm_project.add("mini.yaml")
    record = mini.read_text().split("\n- id: ")[3]
    assert record.startswith("mini_balance_only_01")
    crm_project.write("a_first.yaml", "- id: " + record)
    result = crm_project.run("--crm-agent=null", "--crm-fail-under=0")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting tasks/mini.yaml*",
            "tasks/mini.yaml:66: task 'mini_balance_only_01': field 'id': duplicate task id"
            " (first defined at tasks/a_first.yaml:1)",
            "*Interrupted: 1 error during collection*",
        ]
    )
    assert_no_traceback(result)


def test_an_overlong_id_is_refused_at_collection(crm_project: CrmProject) -> None:
    long_id = "mini_" + "x" * 100_000 + "_01"
    crm_project.write(
        "long_id.yaml",
        f"- id: {long_id}\n  domain: mini\n  capabilities: [balance]\n  difficulty: easy\n"
        "  user: {persona: p, goal: g, stop: s}\n  contract: {expected_actions: [get_balance]}\n  gold: {reply: r}\n",
    )
    result = crm_project.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*field 'id': String should have at most 100 characters*"])
    assert_no_traceback(result)


def test_a_split_prose_list_is_refused(crm_project: CrmProject) -> None:
    """`reactions: [When asked to confirm, say yes]` is two reactions to YAML: refused, with the fix."""
    crm_project.add_bad("split_prose.yaml")
    result = crm_project.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["tasks/split_prose.yaml:8: task 'mini_prose_01': field 'user.reactions': *unquoted*quote each entry*"]
    )
