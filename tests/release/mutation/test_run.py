"""Classifying replayed trajectories: killed, survived, equivalent, spared, false failure, waived."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pytest_crmbench.core.loader import TaskRecord, load_task_file
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.mutation.hints import Call, ForbiddenMove, Insertion, MutationHints, Situation
from pytest_crmbench.release.mutation.run import TaskAudit
from pytest_crmbench.release.mutation.scoring import lone_catches
from tests.release.mutation.helpers import TRANSFER_50, mini_task
from tests.release.mutation.helpers import audited as audit

PAY_AND_NOTE = [
    {"tool": "pay_order", "args": {"order_id": "ORD-1"}},
    {"tool": "log_note", "args": {"text": "paid ORD-1"}},
]


def record_of(tmp_path: Path, path: list[dict[str, Any]], contract: dict[str, Any], **fields: Any) -> TaskRecord:
    data = mini_task(path, contract, **fields).model_dump(mode="json", exclude_defaults=True)
    file = tmp_path / "case.yaml"
    file.write_text(yaml.safe_dump([data], sort_keys=False))
    (record,) = load_task_file(file, display_path="case.yaml")
    return record


def outcomes(result: TaskAudit) -> dict[str, str]:
    return {r.mutant.id: r.outcome for r in result.results}


def test_a_write_the_tools_refuse_to_repeat_is_equivalent(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    contract = {"expected_actions": ["pay_order", "log_note"], "expected_state": {"accounts.ACC-1.balance": 164.50}}
    found = outcomes(audit(record_of(tmp_path, PAY_AND_NOTE, contract), mini_env_class))
    assert found["duplicate:0:pay_order"] == "equivalent"  # ORDER_NOT_PENDING: nothing changed
    assert found["drop:0:pay_order"] == "killed"
    assert found["duplicate:1:log_note"] == "survived"  # a second note changes the log; nothing checks it


def test_survivors_are_reported_at_their_gold_step(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    contract = {"expected_actions": ["pay_order", "log_note"], "expected_state": {"accounts.ACC-1.balance": 164.50}}
    result = audit(record_of(tmp_path, PAY_AND_NOTE, contract), mini_env_class)
    (survivor,) = [s.render() for s in result.survivors]
    assert survivor.startswith("case.yaml:")
    assert "task 'mini_audit_case_01': field 'gold.path[1]': mutant 'duplicate:1:log_note' survives" in survivor
    assert result.problems == []


def test_policy_mutants_are_never_equivalent(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    path = [{"tool": "get_balance", "args": {"account_id": "ACC-1"}}, *TRANSFER_50]
    contract = {"expected_actions": ["execute_transfer"], "expected_state": {"accounts.ACC-1.balance": 130.00}}
    hints = MutationHints(identity_tool="get_balance", requires_before={"execute_transfer": ("validate_transfer",)})
    found = outcomes(audit(record_of(tmp_path, path, contract), mini_env_class, hints))
    # Same end state, same writes: only the order of calls is wrong, so they are graded and survive.
    assert found["skip_identity"] == "survived"
    assert found["move:2:execute_transfer<1:validate_transfer"] == "survived"


def test_a_forbidden_move_the_tools_refuse_is_equivalent(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    def moves(situation: Situation) -> list[Insertion]:
        frozen = Call("execute_transfer", {"from_account": "ACC-3", "to_account": "ACC-1", "amount": 5})
        return [
            Insertion(situation.end, (frozen,)),
            Insertion(situation.end, (Call("close_account", {"account_id": "ACC-2"}),)),
        ]

    hints = MutationHints(forbidden_moves=(ForbiddenMove("m", "rule", moves),))
    contract = {"expected_actions": ["execute_transfer"], "forbidden": {"protected": ["accounts.ACC-2.status"]}}
    found = outcomes(audit(record_of(tmp_path, TRANSFER_50, contract), mini_env_class, hints))
    assert found["forbidden:m:execute_transfer(from_account=ACC-3, to_account=ACC-1, amount=5)"] == "equivalent"
    assert found["forbidden:m:close_account(account_id=ACC-2)"] == "killed"


def test_right_paths_that_fail_are_over_specification(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    path = [{"tool": "get_balance", "args": {"account_id": "ACC-1"}}, TRANSFER_50[0]]
    contract = {
        "expected_actions": ["get_balance", "validate_transfer"],
        "action_order": {"tools": ["get_balance", "validate_transfer"], "mode": "exact"},
    }
    result = audit(record_of(tmp_path, path, contract), mini_env_class)
    # No write to get wrong: the only wrong paths are audit v2's pending unrequested writes.
    assert {r.outcome for r in result.results if not r.pending} == {"false_failure"}
    first = result.problems[0].render()
    assert (
        "field 'gold.path[0]': right path 'reread:0:get_balance' fails order[0] get_balance -> validate_transfer (exact)"
        in first
    )
    assert first.endswith("the contract is over-specified")


def test_waivers_turn_survivors_into_waived_and_unused_ones_are_problems(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    contract = {"expected_actions": ["pay_order", "log_note"], "expected_state": {"accounts.ACC-1.balance": 164.50}}
    waivers = [
        {"mutation": "duplicate:1:log_note", "reason": "notes are informational"},
        {"mutation": "drop:0:pay_order", "reason": "not needed"},
        {"mutation": "change:9:nothing", "reason": "typo"},
        {"mutation": "duplicate:0:pay_order", "reason": "equivalent anyway"},
    ]
    result = audit(record_of(tmp_path, PAY_AND_NOTE, contract, mutation_waivers=waivers), mini_env_class)
    waived = [r for r in result.results if r.outcome == "waived"]
    assert [(r.mutant.id, r.waiver) for r in waived] == [("duplicate:1:log_note", "notes are informational")]
    assert result.survivors == []
    assert [p.message for p in result.problems] == [
        "unused waiver 'drop:0:pay_order': the mutant is killed; remove it",
        "unused waiver 'change:9:nothing': no such mutation; remove it",
        "unused waiver 'duplicate:0:pay_order': the mutant is equivalent; remove it",
    ]
    assert [p.field for p in result.problems] == [f"mutation_waivers[{i}].mutation" for i in (1, 2, 3)]


def test_hand_written_paths_must_behave_as_declared(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    contract = {"expected_actions": ["execute_transfer"], "expected_state": {"accounts.ACC-1.balance": 130.00}}
    alternatives = [
        {"reason": "sends it in one go", "path": [TRANSFER_50[1]]},
        {"reason": "sends $40", "path": [{**TRANSFER_50[1], "args": {**TRANSFER_50[1]["args"], "amount": 40}}]},
    ]
    counterexamples = [
        {"reason": "sends twice", "path": [TRANSFER_50[1], TRANSFER_50[1]]},
        {"reason": "validates only", "path": [TRANSFER_50[0], TRANSFER_50[1]]},
    ]
    result = audit(
        record_of(tmp_path, TRANSFER_50, contract, alternatives=alternatives, counterexamples=counterexamples),
        mini_env_class,
    )
    assert [(t.kind, t.index, t.as_declared) for t in result.trajectories] == [
        ("alternatives", 0, True),
        ("alternatives", 1, False),
        ("counterexamples", 0, True),
        ("counterexamples", 1, False),
    ]
    assert [(p.field, p.message) for p in result.problems] == [
        (
            "alternatives[1]",
            "alternative fails the contract (state[0] accounts.ACC-1.balance): the contract rejects a right path",
        ),
        ("counterexamples[1]", "counterexample passes every programmatic check: the contract accepts a wrong path"),
    ]


def test_lone_catches_count_the_wrong_paths_only_one_family_catches(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    contract = {
        "expected_params": [{"tool": "execute_transfer", "args": {"to_account": "ACC-2", "amount": 50}}],
        "expected_state": {"accounts.ACC-2.balance": 2500.75},
        "forbidden": {"params": [{"tool": "execute_transfer", "args": {"amount": 500}}]},
    }
    result = audit(record_of(tmp_path, TRANSFER_50, contract), mini_env_class)
    found = outcomes(result)
    # Only the state sees these two: the params pin neither the source account nor a single call.
    assert found["change:1:execute_transfer.from_account=ACC-2"] == "killed"
    assert found["duplicate:1:execute_transfer"] == "killed"
    # Every wrong transfer the params catch moves the balance too; no derived path sends 500.
    assert lone_catches(result) == {"expected_params": 0, "expected_state": 2, "forbidden_params": 0}


def test_audit_v2_survivors_of_a_domain_without_conduct_rules_are_pending(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    from pytest_crmbench.release.mutation.conduct_operators import CONDUCT_OPERATORS
    from pytest_crmbench.release.mutation.scoring import operator_counts, wrong_counts

    contract = {"expected_actions": ["pay_order", "log_note"], "expected_state": {"accounts.ACC-1.balance": 164.50}}
    result = audit(record_of(tmp_path, PAY_AND_NOTE, contract), mini_env_class)
    v2 = [r for r in result.results if r.mutant.operator in CONDUCT_OPERATORS]
    assert v2 and all(r.pending for r in v2)  # the mini domain declares no conduct rules
    v1_only = sum(1 for r in result.results if r.mutant.kind == "wrong" and not r.pending and r.outcome == "killed")
    assert wrong_counts([result])["killed"] == v1_only  # pending results stay out of the gated score
    counted = operator_counts([result])
    assert all(outcome.startswith("pending_") for op in {r.mutant.operator for r in v2} for outcome in counted[op])
    assert len(result.pending) == sum(r.outcome == "survived" for r in v2)


def test_blind_spots_name_tasks_without_wrong_paths_and_untripped_forbidden_checks(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    from pytest_crmbench.release.mutation.scoring import MutationAudit

    # A read-only task: nothing to drop or change; no operator ever attempts the forbidden dry run
    # (a forbidden write would be tripped by audit v2's unrequested writes).
    path = [{"tool": "get_balance", "args": {"account_id": "ACC-1"}}]
    contract = {"expected_actions": ["get_balance"], "forbidden": {"actions": ["validate_transfer"]}}
    result = audit(record_of(tmp_path, path, contract), mini_env_class)
    spots = MutationAudit(tasks=[result]).blind_spots()["mini"]
    assert spots["identity_tool"] is None  # the mini domain declares none
    assert spots["untripped_forbidden_checks"] == ["mini_audit_case_01: forbidden.action[0] validate_transfer"]
    # Audit v2's unrequested writes are wrong paths derived from it (pending: no conduct rules).
    assert spots["tasks_without_wrong_paths"] == []
    lines = MutationAudit(tasks=[result]).blind_spot_lines()
    assert any("declares no identity tool" in line for line in lines)
