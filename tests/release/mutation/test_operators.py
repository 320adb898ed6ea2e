"""Each mutation operator on hand-built mini tasks: which trajectories it derives, with which ids."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from pytest_crmbench.env.environment import ToolEnvironment, tool
from pytest_crmbench.release.mutation.hints import Call, ForbiddenMove, Insertion, MutationHints, Situation
from pytest_crmbench.release.mutation.operators import derive
from pytest_crmbench.release.mutation.trajectory import Step, replay
from tests.release.mutation.helpers import TRANSFER_50, mini_task, mutants, prepared, tools_of

VALIDATE_FIRST = MutationHints(requires_before={"execute_transfer": ("validate_transfer",)})


def test_a_transfer_gets_every_operator_in_a_stable_order(mini_env_class: type[ToolEnvironment]) -> None:
    assert list(mutants(mini_task(TRANSFER_50), mini_env_class, VALIDATE_FIRST)) == [
        "drop:1:execute_transfer",
        "change:1:execute_transfer.from_account=ACC-2",  # ids the task mentions come first
        "change:1:execute_transfer.from_account=ACC-3",
        "change:1:execute_transfer.to_account=ACC-1",
        "change:1:execute_transfer.to_account=ACC-3",
        "change:1:execute_transfer.amount=49.99",
        "change:1:execute_transfer.amount=50.01",
        "change:1:execute_transfer.amount=60",
        "duplicate:1:execute_transfer",
        "move:1:execute_transfer<0:validate_transfer",
        "reread:0:validate_transfer",
        # No domain hint for execute_transfer: the earlier read about the same accounts is re-run.
        "reread_after:1:execute_transfer->validate_transfer(from_account=ACC-1, to_account=ACC-2, amount=50)",
    ]


def test_kinds_and_what_each_trajectory_does(mini_env_class: type[ToolEnvironment]) -> None:
    found = mutants(mini_task(TRANSFER_50), mini_env_class, VALIDATE_FIRST)
    assert {m.kind for i, m in found.items() if i.startswith(("reread", "swap"))} == {"right"}
    assert tools_of(found["drop:1:execute_transfer"]) == ["validate_transfer"]
    assert tools_of(found["duplicate:1:execute_transfer"]) == [
        "validate_transfer",
        "execute_transfer",
        "execute_transfer",
    ]
    assert tools_of(found["move:1:execute_transfer<0:validate_transfer"]) == ["execute_transfer", "validate_transfer"]
    assert found["change:1:execute_transfer.amount=60"].steps[1].args["amount"] == 60
    assert found["move:1:execute_transfer<0:validate_transfer"].policy  # never skipped as equivalent
    assert not found["duplicate:1:execute_transfer"].policy


def test_dropping_a_write_drops_the_calls_that_quote_its_result(mini_env_class: type[ToolEnvironment]) -> None:
    path = [
        {"tool": "pay_order", "args": {"order_id": "ORD-1"}},
        {"tool": "log_note", "args": {"text": {"$from": "0.transaction_id"}}},
    ]
    found = mutants(mini_task(path), mini_env_class)
    dropped = found["drop:0:pay_order"]
    assert dropped.steps == () and dropped.description == "drop pay_order (and step(s) 1 that use its result)"
    # A duplicate is a new call: later steps still quote the first payment's result.
    task = mini_task(path)
    played = replay(task, mini_env_class, found["duplicate:0:pay_order"].steps)
    first, second, note = played.evidence.tool_calls
    assert (first.status, second.status) == ("ok", "rejected")
    assert note.arguments == {"text": first.result["transaction_id"]}


def test_a_quoted_step_that_did_not_run_gives_a_visibly_wrong_value(mini_env_class: type[ToolEnvironment]) -> None:
    task = mini_task([{"tool": "pay_order", "args": {"order_id": "ORD-1"}}])
    steps = (Step("log_note", {"text": {"$from": "0.transaction_id"}}), Step("pay_order", {"order_id": "ORD-1"}, 0))
    note, _ = replay(task, mini_env_class, steps).evidence.tool_calls
    assert note.arguments == {"text": "<unknown: step 0 did not run>"}


def test_move_targets_the_read_about_the_same_write(mini_env_class: type[ToolEnvironment]) -> None:
    path = [
        TRANSFER_50[0],
        {"tool": "validate_transfer", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 1000}},
        TRANSFER_50[1],
    ]
    found = mutants(mini_task(path), mini_env_class, VALIDATE_FIRST)
    (move,) = [m for i, m in found.items() if i.startswith("move:")]
    assert move.id == "move:2:execute_transfer<0:validate_transfer"  # the $50 validation, not the latest one
    assert [s.args.get("amount") for s in move.steps] == [50, 50, 1000]


def test_skip_identity_only_where_something_private_follows(mini_env_class: type[ToolEnvironment]) -> None:
    hints = MutationHints(identity_tool="get_balance")
    alone = mutants(mini_task([{"tool": "get_balance", "args": {"account_id": "ACC-1"}}]), mini_env_class, hints)
    assert "skip_identity" not in alone and "reverify" in alone
    path = [{"tool": "get_balance", "args": {"account_id": "ACC-1"}}, *TRANSFER_50]
    found = mutants(mini_task(path), mini_env_class, hints)
    assert tools_of(found["skip_identity"]) == ["validate_transfer", "execute_transfer"]
    assert found["skip_identity"].policy
    # Verifying again goes just before the first write; the identity read is not "re-read" or swapped.
    assert tools_of(found["reverify"]) == ["get_balance", "validate_transfer", "get_balance", "execute_transfer"]
    assert not any(i.startswith(("reread:0", "swap:0")) for i in found)


def test_swap_only_adjacent_reads_of_different_tools(mini_env_class: type[ToolEnvironment]) -> None:
    balance = {"tool": "get_balance", "args": {"account_id": "ACC-1"}}
    found = mutants(mini_task([balance, TRANSFER_50[0]]), mini_env_class)
    assert tools_of(found["swap:0:get_balance<>1:validate_transfer"]) == ["validate_transfer", "get_balance"]
    again = {"tool": "validate_transfer", "args": {**TRANSFER_50[0]["args"], "amount": 20}}
    # Two validations usually follow the conversation (the user corrects the amount): not swapped.
    assert not any(i.startswith("swap") for i in mutants(mini_task([TRANSFER_50[0], again]), mini_env_class))


def test_a_write_the_policy_allows_again_is_a_right_path(mini_env_class: type[ToolEnvironment]) -> None:
    path = [{"tool": "pay_order", "args": {"order_id": "ORD-1"}}, {"tool": "log_note", "args": {"text": "paid"}}]
    found = mutants(mini_task(path), mini_env_class, MutationHints(harmless_repeats=frozenset({"log_note"})))
    assert found["repeat:1:log_note"].kind == "right"
    assert "duplicate:1:log_note" not in found and "duplicate:0:pay_order" in found


def test_forbidden_moves_are_inserted_where_the_domain_says(mini_env_class: type[ToolEnvironment]) -> None:
    def close_everything(situation: Situation) -> list[Insertion]:
        return [
            Insertion(99, (Call("close_account", {"account_id": account}),))  # clamped to the end
            for account in situation.mentioned("accounts")
        ]

    hints = MutationHints(forbidden_moves=(ForbiddenMove("close", "never close unasked", close_everything),))
    found = mutants(mini_task(TRANSFER_50), mini_env_class, hints)
    move = found["forbidden:close:close_account(account_id=ACC-1)"]
    assert tools_of(move) == ["validate_transfer", "execute_transfer", "close_account"]
    assert move.inserted == (2,) and move.operator == "forbidden:close" and move.policy
    assert "forbidden:close:close_account(account_id=ACC-2)" in found


def test_free_text_arguments_are_not_changed(mini_env_class: type[ToolEnvironment]) -> None:

    task = mini_task([{"tool": "log_note", "args": {"text": "Paid", "account_id": "ACC-1"}}])
    gold, situation = prepared(task, mini_env_class)
    prose = Situation(
        task, situation.calls, situation.initial_state, situation.final_state, {"log_note": frozenset({"text"})}
    )
    ids = [m.id for m in derive(mini_env_class, MutationHints(), gold, prose)]
    assert [i for i in ids if i.startswith("change")] == [
        "change:0:log_note.account_id=ACC-2",
        "change:0:log_note.account_id=ACC-3",
    ]


class Ledger(ToolEnvironment):
    domain = "ledger"

    def default_state(self) -> dict[str, Any]:
        return {"accounts": {"A": {"balance": 1}, "B": {"balance": 2}}}

    @tool(kind="read")
    def get_balances(self, account_ids: list[str]) -> dict[str, Any]:
        """Balances of several accounts.

        Args:
            account_ids: Account ids.
        """
        return {a: self.state["accounts"][a]["balance"] for a in account_ids}


def test_a_read_with_a_list_argument_is_split_across_two_calls() -> None:
    task = mini_task([{"tool": "get_balances", "args": {"account_ids": ["A", "B"]}}], domain="ledger")
    split = mutants(task, Ledger)["split:0:get_balances.account_ids"]
    assert [s.args["account_ids"] for s in split.steps] == [["A"], ["B"]]
    assert split.kind == "right"


@pytest.mark.parametrize("seed", ["1", "2"])
def test_ids_do_not_depend_on_the_hash_seed(seed: str, mini_env_class: type[ToolEnvironment]) -> None:
    code = (
        "from tests.release.mutation.helpers import TRANSFER_50, mini_task, mutants\n"
        "from pytest_crmbench.env.registry import discover\n"
        "from tests.conftest import DATA\n"
        "print(list(mutants(mini_task(TRANSFER_50), discover([DATA / 'envs'])['mini'])))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONHASHSEED": seed, "PATH": ""},
        check=True,
    )
    assert done.stdout.strip() == str(list(mutants(mini_task(TRANSFER_50), mini_env_class)))
