"""Audit v2's operators on a small domain with conduct rules: each derived wrong path is killed by
the rule it breaks, and a read that discloses nobody new is equivalent, not a survivor."""

from __future__ import annotations

from typing import Any, ClassVar

from pytest_crmbench import tool
from pytest_crmbench.core.conduct import ConductRules, Divisible, Identity
from pytest_crmbench.core.spec import Task
from pytest_crmbench.release.mutation.conduct_operators import conduct_wrong_paths
from pytest_crmbench.release.mutation.hints import MutationHints
from tests.env.test_access import Desk
from tests.release.mutation.helpers import audited, prepared


class Helpdesk(Desk):
    domain = "helpdesk"
    conduct: ClassVar[ConductRules | None] = ConductRules(
        domain="helpdesk", identity=Identity(tool="verify", subject="customer_id", passed="verified")
    )

    @tool(kind="read")
    def verify(self, customer_id: str, name: str) -> dict[str, Any]:
        """Check a customer's name.

        Args:
            customer_id: The customer.
            name: The name they gave.
        """
        return {"verified": self.get("customers", customer_id)["name"] == name}

    @tool(kind="read")
    def get_ticket(self, ticket_id: str) -> dict[str, Any]:
        """One ticket.

        Args:
            ticket_id: The ticket.
        """
        return dict(self.get("tickets", ticket_id))


def task() -> Task:
    path = [
        {"tool": "verify", "args": {"customer_id": "C1", "name": "Ann"}},
        {"tool": "get_customer", "args": {"customer_id": "C1"}},
        {"tool": "get_ticket", "args": {"ticket_id": "T1"}},
        {"tool": "search_tickets", "args": {"text": "router"}},
        {"tool": "add_note", "args": {"customer_id": "C1", "text": "router checked"}},
    ]
    return Task.model_validate(
        {
            "id": "helpdesk_case_01",
            "domain": "helpdesk",
            "capabilities": ["triage"],
            "difficulty": "easy",
            "user": {"persona": "Ann, C1.", "goal": "Check the router ticket.", "stop": "When done."},
            "contract": {"expected_actions": ["get_ticket", "add_note"]},
            "gold": {"path": path, "reply": "Done."},
        }
    )


def test_every_v2_operator_is_derived_and_killed_by_conduct() -> None:
    gold, situation = prepared(task(), Helpdesk)
    operators = {m.operator for m in conduct_wrong_paths(Helpdesk, MutationHints(), gold, situation)}
    assert operators == {"fail_identity", "late_identity", "sibling", "misspoken", "unfiltered", "unrequested"}

    audit = audited(task(), Helpdesk)
    outcomes = {
        r.mutant.operator: (r.outcome, r.failed_checks) for r in audit.results if r.mutant.operator in operators
    }
    assert outcomes["misspoken"] == ("killed", ("conduct.ownership[0] records",))  # T2 is C2's
    assert outcomes["unfiltered"] == ("killed", ("conduct.ownership[0] records",))  # every ticket
    assert outcomes["sibling"] == ("killed", ("conduct.ownership[0] records",))  # C2's own record
    assert outcomes["late_identity"][0] == outcomes["fail_identity"][0] == "killed"
    assert not any(r.pending for r in audit.results)  # the domain declares its rules


class CreditDesk(Helpdesk):
    """Moving store credit may be done in parts (a made-up policy line): the split is a right path."""

    domain = "creditdesk"
    conduct: ClassVar[ConductRules | None] = ConductRules(
        domain="creditdesk",
        identity=Identity(tool="verify", subject="customer_id", passed="verified"),
        divisible={"move_credit": Divisible(quantity="amount", reason="credit may move in several parts")},
    )


def credit_task(contract: dict[str, Any]) -> Task:
    path = [
        {"tool": "verify", "args": {"customer_id": "C1", "name": "Ann"}},
        {"tool": "move_credit", "args": {"from_customer": "C1", "to_customer": "C2", "amount": 17}},
    ]
    return Task.model_validate(
        {
            "id": "creditdesk_move_01",
            "domain": "creditdesk",
            "capabilities": ["credit"],
            "difficulty": "easy",
            "user": {"persona": "Ann, C1.", "goal": "Give Bob 17 credits.", "stop": "When done."},
            "contract": contract,
            "gold": {"path": path, "reply": "Done."},
        }
    )


def split_outcomes(contract: dict[str, Any]) -> dict[str, tuple[str, tuple[str, ...]]]:
    audit = audited(credit_task(contract), CreditDesk)
    return {r.mutant.id: (r.outcome, r.failed_checks) for r in audit.results if r.mutant.operator == "split_write"}


def test_a_divisible_write_in_two_parts_is_a_right_path_the_state_judges() -> None:
    by_state = {"expected_actions": ["move_credit"], "expected_state": {"customers.C2.credit": 17}}
    assert split_outcomes(by_state) == {"split_write:1:move_credit.amount=8+9": ("spared", ())}


def test_a_contract_that_pins_the_one_calls_quantity_fails_the_split() -> None:
    pinned = {"expected_params": [{"tool": "move_credit", "args": {"amount": 17}}]}
    ((outcome, failed),) = split_outcomes(pinned).values()
    assert outcome == "false_failure" and failed[0].startswith("param[0]")


def test_no_split_is_derived_where_the_domain_declares_no_divisible_write() -> None:
    audit = audited(credit_task({"expected_state": {"customers.C2.credit": 17}}), Helpdesk)
    assert not [r for r in audit.results if r.mutant.operator == "split_write"]


def test_what_adds_up_with_a_divided_quantity_is_divided_in_proportion() -> None:
    from decimal import Decimal

    from pytest_crmbench.release.mutation.operators import _share

    assert _share(Decimal("90.00"), Decimal(2) / Decimal(4)) == (Decimal("45.00"), Decimal("45.00"))
    assert _share(Decimal("45.00"), Decimal(1) / Decimal(3)) == (Decimal("15.00"), Decimal("30.00"))
    assert _share(7, Decimal(1) / Decimal(2)) == (4, 3)  # to the unit, the parts still add up
    assert _share("a charge", Decimal(1) / Decimal(2)) is None


class ClosingDesk(Helpdesk):
    domain = "closingdesk"

    @tool(kind="write")
    def clear_notes(self, customer_id: str) -> dict[str, Any]:
        """Remove a customer's notes.

        Args:
            customer_id: The customer.
        """
        self.get("customers", customer_id)
        self.state["notes"] = [n for n in self.state["notes"] if n["customer_id"] != customer_id]
        return {"cleared": customer_id}


def test_a_write_done_through_another_tool_on_the_same_record_is_derived_and_killed() -> None:
    audit = audited(task(), ClosingDesk)
    substitutes = {
        r.mutant.id: (r.outcome, r.failed_checks) for r in audit.results if r.mutant.operator == "substitute"
    }
    # add_note(C1) -> clear_notes(C1): the note the contract expects is never added.
    assert list(substitutes) == ["substitute:4:add_note->clear_notes"]
    outcome, failed = substitutes["substitute:4:add_note->clear_notes"]
    assert outcome == "killed" and any(name.startswith("action[") for name in failed), failed


def test_a_failed_verification_keeps_each_detail_s_form() -> None:
    from pytest_crmbench.release.mutation.conduct_operators import mismatched

    # A wrong date of birth is still a date, so the tool answers "no match" rather than refusing it.
    assert mismatched("1992-07-28") == "1992-07-29"
    assert mismatched("maria.delgado@example.com") == "maria.delgado.x@example.com"
    assert mismatched("Maria Delgado") == "not Maria Delgado"
    assert mismatched("2026-13-45") == "not 2026-13-45"
