"""-k and -m select tasks by id, domain, difficulty, capability and custom marks, under strict markers."""

from __future__ import annotations

import pytest

from tests.integration.helpers import MINI_IDS, CrmProject

CASES = [
    # (selection args, selected task ids)
    (["-k", "retry"], ["mini_transfer_retry_01"]),
    (["-k", "mini"], MINI_IDS),
    (["-k", "checkout"], ["mini_checkout_chain_01"]),
    # 'loyalty' and 'account_admin' are capabilities that appear in no id: only the marker matches.
    (["-k", "loyalty"], ["mini_checkout_chain_01"]),
    (["-k", "account_admin"], ["mini_refusal_close_01"]),
    # 'balance' is in one id but is a capability of three tasks.
    (["-k", "balance"], ["mini_transfer_retry_01", "mini_balance_only_01", "mini_override_01"]),
    (["-m", "hard"], ["mini_checkout_chain_01"]),
    (["-m", "medium and transfer"], ["mini_transfer_retry_01"]),
    (["-m", "policy"], ["mini_transfer_frozen_01"]),
    (["-m", "mini and not easy"], ["mini_transfer_retry_01", "mini_checkout_chain_01"]),
    (["-m", "easy"], ["mini_balance_only_01", "mini_transfer_frozen_01", "mini_refusal_close_01", "mini_override_01"]),
]


@pytest.mark.parametrize("strict_flag", [[], ["--strict-markers"]], ids=["strict-config", "strict-config+cli"])
@pytest.mark.parametrize(("selection", "expected"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_collect_only_selection(
    mini_project: CrmProject, selection: list[str], expected: list[str], strict_flag: list[str]
) -> None:
    result = mini_project.run("--co", "-q", *strict_flag, *selection)
    assert result.ret == pytest.ExitCode.OK
    shown = [line for line in result.outlines if "::" in line]
    assert shown == [f"tasks/mini.yaml::{task_id}" for task_id in expected]
    deselected = 6 - len(expected)
    result.stdout.fnmatch_lines(
        [
            f"{len(expected)}/6 tests collected ({deselected} deselected) in *"
            if deselected
            else "6 tests collected in *"
        ]
    )
    assert "not found in `markers` configuration option" not in result.stdout.str() + result.stderr.str()


def test_marker_selection_runs_only_the_selected(mini_project: CrmProject) -> None:
    result = mini_project.run("--strict-markers", "-m", "medium and transfer")
    result.assert_outcomes(passed=1, deselected=5)
    assert result.ret == pytest.ExitCode.OK


def test_unknown_marker_in_a_plain_test_is_still_rejected(mini_project: CrmProject) -> None:
    # strict = true really is in force: task markers are registered, other names are not.
    mini_project.pytester.makepyfile(
        test_plain="import pytest\n\n@pytest.mark.not_a_task_marker\ndef test_x():\n    pass\n"
    )
    result = mini_project.run("test_plain.py")
    result.stdout.fnmatch_lines(["*'not_a_task_marker' not found in `markers` configuration option*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_difficulty_markers_are_registered_up_front(mini_project: CrmProject) -> None:
    # Difficulties are registered at configure time; the other task markers when their task is
    # collected (so `pytest --markers`, which does not collect, lists only these three).
    result = mini_project.run("--markers")
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.easy: crmbench task difficulty",
            "@pytest.mark.medium: crmbench task difficulty",
            "@pytest.mark.hard: crmbench task difficulty",
        ]
    )


def test_markers_lists_domains_tags_and_marks_of_the_task_files(mini_project: CrmProject) -> None:
    result = mini_project.run("--markers")
    assert result.ret == 0
    result.stdout.fnmatch_lines_random(
        [
            "@pytest.mark.mini: crmbench domain",
            "@pytest.mark.transfer: crmbench capability tag",
            "@pytest.mark.checkout: crmbench capability tag",
            "@pytest.mark.policy: crmbench task mark",
            "@pytest.mark.hard: crmbench task difficulty",
        ]
    )
