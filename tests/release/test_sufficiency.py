"""The information-sufficiency audit: values the user or earlier results must have revealed."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.replay import gold_problems
from pytest_crmbench.release.sufficiency import Knowledge, information_problems, numbers_in


def test_numbers_are_read_as_people_write_them() -> None:
    text = "Send $1,000.00 (or 1000, or 50) from ACC-1001 on 2026-03-02, ticket 77-B; 3.5 points."
    # Digits glued to a hyphen are ids and dates, not numbers (the date is matched as text).
    assert numbers_in(text) == {Decimal("1000"), Decimal("50"), Decimal("3.5")}


def test_knowledge_matches_whole_tokens_and_exact_numbers() -> None:
    knowledge = Knowledge()
    knowledge.learn_text("My account is ACC-1001, send $1,000.")
    knowledge.learn({"balance": Decimal("180.00"), "ids": ["TXN-7"], "error": "ACC-2 holds 15.50."})
    assert knowledge.knows("ACC-1001") and knowledge.knows("acc-1001")
    assert not knowledge.knows("ACC-100")
    assert knowledge.knows(1000) and knowledge.knows(Decimal("1000.00")) and knowledge.knows(180)
    assert knowledge.knows("TXN-7") and knowledge.knows(Decimal("15.5")) and knowledge.knows("balance")
    assert not knowledge.knows(1001) and not knowledge.knows(Decimal("180.01"))
    assert knowledge.knows(None) and knowledge.knows(True)


BASE: dict[str, Any] = {
    "id": "mini_case_01",
    "domain": "mini",
    "capabilities": ["transfer"],
    "difficulty": "easy",
    "user": {"persona": "Ada", "goal": "Send $50 from ACC-1 to my landlord.", "stop": "When done."},
    "contract": {"expected_actions": ["execute_transfer"]},
    "gold": {
        "path": [{"tool": "execute_transfer", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 50}}],
        "reply": "Done.",
    },
}


def audit(
    tmp_path: Path, env: type[ToolEnvironment], free_text: frozenset[str] = frozenset(), **changes: Any
) -> list[str]:
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump([{**BASE, **changes}], sort_keys=False))
    (record,) = load_task_file(path)
    evidence, _ = gold_problems(record, env)
    return [f"{p.field}: {p.message}" for p in information_problems(record, evidence, env, free_text)]


def test_a_value_nobody_gave_is_reported(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    (found,) = audit(tmp_path, mini_env_class)
    assert found.startswith("gold.path[0].args.to_account: execute_transfer.to_account = 'ACC-2' appears neither")


def test_an_earlier_result_reveals_a_value(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    # "My whole balance": the amount comes from the balance read, not from the user.
    user = {"persona": "Alan", "goal": "Move my whole balance from ACC-2 to ACC-1.", "stop": "When done."}
    transfer = {"tool": "execute_transfer", "args": {"from_account": "ACC-2", "to_account": "ACC-1", "amount": 2450.75}}
    read = {"tool": "get_balance", "args": {"account_id": "ACC-2"}}
    found = audit(tmp_path, mini_env_class, user=user, gold={"path": [transfer], "reply": "Done."})
    assert [line.split(" appears")[0] for line in found] == [
        "gold.path[0].args.amount: execute_transfer.amount = Decimal('2450.75')"
    ]
    assert audit(tmp_path, mini_env_class, user=user, gold={"path": [read, transfer], "reply": "Done."}) == []
    # Order matters: a value read only after the call that needs it does not count.
    assert len(audit(tmp_path, mini_env_class, user=user, gold={"path": [transfer, read], "reply": "Done."})) == 1


def test_free_text_and_exemptions(tmp_path: Path, mini_env_class: type[ToolEnvironment]) -> None:
    gold = {"path": [{"tool": "log_note", "args": {"text": "Ada paid rent", "account_id": "ACC-1"}}], "reply": "ok"}
    contract = {"expected_actions": ["log_note"]}
    assert len(audit(tmp_path, mini_env_class, gold=gold, contract=contract)) == 1
    assert audit(tmp_path, mini_env_class, frozenset({"log_note.text"}), gold=gold, contract=contract) == []
    exemption = {"check": "information_sufficiency", "value": "Ada paid rent", "reason": "The agent writes the note."}
    assert audit(tmp_path, mini_env_class, gold=gold, contract=contract, exemptions=[exemption]) == []
    stale = {**exemption, "value": "something else"}
    assert audit(
        tmp_path, mini_env_class, frozenset({"log_note.text"}), gold=gold, contract=contract, exemptions=[stale]
    ) == ["exemptions[0]: unused exemption: no gold argument needs 'something else'"]


@pytest.mark.parametrize("reason", ["", "   "])
def test_an_exemption_needs_a_reason(tmp_path: Path, reason: str) -> None:
    from pytest_crmbench.core.errors import SpecErrors

    path = tmp_path / "case.yaml"
    exemption = {"check": "information_sufficiency", "value": "ACC-2", "reason": reason}
    path.write_text(yaml.safe_dump([{**BASE, "exemptions": [exemption]}], sort_keys=False))
    with pytest.raises(SpecErrors, match=r"field 'exemptions\[0\]\.reason'"):
        load_task_file(path)


def test_numeric_strings_and_hyphenated_ids() -> None:
    knowledge = Knowledge()
    knowledge.learn_text("Send $1,000 to the owner of ACC-1-OLD on 2026-03-02.")
    assert knowledge.knows("1000.00")  # a money string in YAML is the same number
    assert knowledge.knows("2026-03-02")
    assert not knowledge.knows("ACC-1")  # only a prefix of ACC-1-OLD
    assert knowledge.knows("ACC-1-OLD")
