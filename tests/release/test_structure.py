"""Structural checks of one task against the mini domain (no replay)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_crmbench import Timestamp, tool
from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.reference.graph import load_graph
from pytest_crmbench.release.structure import check_record
from tests.release.conftest import AGENTS

BASE: dict[str, Any] = {
    "id": "mini_case_01",
    "domain": "mini",
    "capabilities": ["transfer"],
    "difficulty": "easy",
    "user": {"persona": "Ada", "goal": "Send $50 from ACC-1 to ACC-2.", "stop": "When done."},
    "contract": {"expected_actions": ["execute_transfer"]},
    "gold": {
        "path": [{"tool": "execute_transfer", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 50}}],
        "reply": "Done.",
    },
}


def problems(tmp_path: Path, mini_env_class: type[ToolEnvironment], **changes: Any) -> list[str]:
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump([{**BASE, **changes}], sort_keys=False))
    (record,) = load_task_file(path)
    graph = load_graph(AGENTS / "mini.yaml")
    return [f"{p.field}: {p.message}" for p in check_record(record, mini_env_class, graph)]


def test_a_sound_task_has_no_problem(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    assert problems(tmp_path, mini_env_class) == []


@pytest.mark.parametrize(
    ("contract", "expected"),
    [
        (
            {"expected_params": [{"tool": "execute_transfer", "args": {"amount": {"$eq": "ten"}}}]},
            "contract.expected_params[0].args.amount: 'ten' is not a valid execute_transfer.amount",
        ),
        (
            {"expected_params": [{"tool": "get_balance", "args": {"account_id": {"$one_of": ["ACC-1", 7]}}}]},
            "contract.expected_params[0].args.account_id: 7 is not a valid get_balance.account_id",
        ),
        (
            {"forbidden": {"params": [{"tool": "execute_transfer", "args": {"amout": 5}}]}},
            "contract.forbidden.params[0].args.amout: execute_transfer has no argument 'amout'",
        ),
        (
            {"expected_actions": ["execute_transfer"], "forbidden": {"actions": ["execute_transfer"]}},
            "contract.forbidden.actions[0]: execute_transfer is both expected and forbidden",
        ),
        (
            {
                "expected_actions": ["execute_transfer"],
                "action_order": {"tools": ["validate_transfer", "execute_transfer"]},
            },
            "contract.action_order[0].tools[0]: validate_transfer is ordered but not in expected_actions",
        ),
        (
            {"forbidden": {"protected": ["accounts.ACC-9.balance"]}},
            "contract.forbidden.protected[0]: state path 'accounts.ACC-9.balance' does not exist in the reset state "
            "('accounts' has no 'ACC-9')",
        ),
        (
            {
                "expected_actions": ["validate_transfer", "execute_transfer"],
                "action_order": {
                    "tools": [{"tool": "validate_transfer", "args": {"amount": "fifty"}}, "execute_transfer"]
                },
            },
            "contract.action_order[0].tools[0].args.amount: 'fifty' is not a valid validate_transfer.amount",
        ),
        (
            {
                "expected_actions": ["execute_transfer"],
                "expected_params": [
                    {"tool": "execute_transfer", "args": {"to_account": {"$result": "open_account.id"}}}
                ],
            },
            "contract.expected_params[0].args.to_account: unknown tool 'open_account' in domain 'mini'",
        ),
        (
            {"expected_actions": ["execute_transfer"], "expected_state": {"ledger.0": 1}},
            "contract.expected_state.ledger.0: state path 'ledger.0' does not exist in the reset state (no root 'ledger')",
        ),
    ],
)
def test_contract_problems(
    contract: dict[str, Any], expected: str, tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    found = problems(tmp_path, mini_env_class, contract=contract)
    assert any(line.startswith(expected) for line in found), found


def test_state_that_the_episode_creates_is_allowed_but_not_when_protected(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    # transfers is an empty list at reset: transfers.0.amount can exist at the end, not at the start.
    contract = {"expected_actions": ["execute_transfer"], "expected_state": {"transfers.0.amount": 50}}
    assert problems(tmp_path, mini_env_class, contract=contract) == []
    contract["forbidden"] = {"protected": ["transfers.0.amount"]}
    assert problems(tmp_path, mini_env_class, contract=contract) == [
        "contract.forbidden.protected[0]: state path 'transfers.0.amount' does not exist in the reset state "
        "('transfers' has no '0')"
    ]


def test_the_override_is_part_of_the_reset_state(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    contract = {"expected_actions": ["execute_transfer"], "forbidden": {"protected": ["accounts.ACC-9.balance"]}}
    override = {"accounts": {"ACC-9": {"owner": "X", "status": "active", "balance": 1, "loyalty_points": 0}}}
    assert problems(tmp_path, mini_env_class, contract=contract, initial_state=override) == []


def test_gold_arguments(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    gold = {
        "path": [
            {"tool": "pay_order", "args": {"order_id": "ORD-1"}},
            {"tool": "award_points", "args": {"account_id": {"$from": "0.order_id"}}},
            {"tool": "log_note", "args": {"text": 5}},
        ],
        "reply": "ok",
    }
    found = problems(tmp_path, mini_env_class, contract={"expected_actions": ["pay_order"]}, gold=gold)
    assert found == [
        "gold.path[1].args: award_points needs argument(s) amount",
        "gold.path[2].args.text: 5 is not a valid log_note.text: Input should be a valid string",
    ]


def test_hand_written_paths_are_checked_like_the_gold_path(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    alternatives = [{"reason": "r", "path": [{"tool": "get_balanse", "args": {"account_id": "ACC-1"}}]}]
    counterexamples = [
        {"reason": "r", "path": [{"tool": "execute_transfer", "args": {"from_account": "ACC-1", "amount": "x"}}]}
    ]
    assert problems(tmp_path, mini_env_class, alternatives=alternatives, counterexamples=counterexamples) == [
        "alternatives[0].path[0].tool: unknown tool 'get_balanse' in domain 'mini'",
        "counterexamples[0].path[0].args.amount: 'x' is not a valid execute_transfer.amount: Input should be a valid decimal",
        "counterexamples[0].path[0].args: execute_transfer needs argument(s) to_account",
    ]


def _diary(base: type[ToolEnvironment]) -> type[ToolEnvironment]:
    class Diary(base):  # type: ignore[misc, valid-type]
        @tool(kind="read")
        def notes_between(self, start: Timestamp, end: Timestamp | None = None) -> dict[str, Any]:
            """Notes logged in a window.

            Args:
                start: From, ISO 8601 with offset.
                end: Until, ISO 8601 with offset.
            """
            return {"notes": []}

    return Diary


@pytest.mark.parametrize(
    ("constraint", "refused"),
    [
        ("2026-03-05T10:00:00-07:00", True),
        ({"$eq": "2026-03-05T10:00:00-07:00"}, True),
        ({"$one_of": ["2026-03-05T10:00:00-07:00", "2026-03-05T17:00:00Z"]}, True),
        ({"$instant": "2026-03-05T10:00:00-07:00"}, False),
        ({"$non_empty": True}, False),
    ],
)
@pytest.mark.parametrize("argument", ["start", "end"])
def test_a_timestamp_argument_is_compared_as_an_instant(
    constraint: Any, refused: bool, argument: str, tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    # Exact text would fail an agent that wrote the same moment as '…T17:00:00Z', and let a
    # forbidden window through in another spelling: validate refuses it at the field.
    env = _diary(mini_env_class)
    for place in ("expected_params", "forbidden"):
        params = [{"tool": "notes_between", "args": {argument: constraint}}]
        contract = {"expected_params": params} if place == "expected_params" else {"forbidden": {"params": params}}
        found = [
            line
            for line in problems(tmp_path, env, contract={**contract, "expected_actions": ["execute_transfer"]})
            if "timestamp" in line
        ]
        assert bool(found) is refused, found
        if refused:
            assert "{$instant: ...}" in found[0] and f".args.{argument}:" in found[0]


def test_an_instant_operand_must_be_a_timestamp(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    params = [{"tool": "notes_between", "args": {"start": {"$instant": "2026-03-05T10:00:00"}}}]
    with pytest.raises(CrmbenchError, match=r"\$instant needs an ISO 8601 timestamp with its UTC offset"):
        problems(tmp_path, _diary(mini_env_class), contract={"expected_params": params})


def test_an_expected_state_leaf_already_true_at_reset_is_reported(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    from pytest_crmbench.release.structure import inspect_record

    contract = {
        "expected_actions": ["execute_transfer"],
        # ACC-3 stays frozen whatever happens (a protection); ACC-1 must end with $130 (a requirement).
        "expected_state": {"accounts.ACC-3.status": "frozen", "accounts.ACC-1.balance": 130},
    }
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump([{**BASE, "contract": contract}], sort_keys=False))
    (record,) = load_task_file(path)
    found = inspect_record(record, mini_env_class).notes
    assert [p.field for p in found] == ["contract.expected_state.accounts.ACC-3.status"]
    assert "already holds on the untouched world" in found[0].message
    assert check_record(record, mini_env_class, load_graph(AGENTS / "mini.yaml")) == []  # reported, not refused
