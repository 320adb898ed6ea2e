"""Each check family's semantics, edge cases included, on hand-built traces."""

from typing import Any, ClassVar

import pytest

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.core.families import trace as trace_reading
from pytest_crmbench.core.spec import Contract
from tests.core.families import helpers as checks


def trace(*calls: tuple[str, dict[str, Any] | str, str]) -> list[ToolCall]:
    return [
        ToolCall(index=i, turn=0, node=None, name=name, arguments=args, status=status)
        for i, (name, args, status) in enumerate(calls)
    ]  # type: ignore[arg-type]


def contract(**fields: Any) -> Contract:
    return Contract.model_validate(fields)


def statuses(verdicts: list) -> list[str]:
    return [v.status for v in verdicts]


class TestExpectedActions:
    def test_counts_only_ok_calls(self) -> None:
        c = contract(expected_actions=["validate", "validate", "execute"])
        t = trace(("validate", {}, "ok"), ("validate", {}, "rejected"), ("execute", {}, "ok"))
        verdicts = checks.check_expected_actions(c, t)
        assert statuses(verdicts) == ["failed", "passed"]
        assert (
            verdicts[0].diff
            == "expected at least 2 successful call(s) of validate, got 1 (validate attempts: 1 ok, 1 rejected)"
        )

    def test_more_calls_than_required_pass(self) -> None:
        assert statuses(
            checks.check_expected_actions(contract(expected_actions=["a"]), trace(("a", {}, "ok"), ("a", {}, "ok")))
        ) == ["passed"]

    def test_never_attempted(self) -> None:
        (verdict,) = checks.check_expected_actions(contract(expected_actions=[{"tool": "a", "count": 2}]), [])
        assert verdict.status == "failed" and "a was never attempted" in verdict.diff
        assert verdict.name == "action[0] a x2"

    def test_undeclared_family_yields_no_verdict(self) -> None:
        assert checks.check_expected_actions(contract(reply_criteria=["c"]), trace(("a", {}, "ok"))) == []


class TestExpectedParams:
    def test_any_ok_call_may_satisfy(self) -> None:
        c = contract(expected_params=[{"tool": "t", "args": {"amount": 50}}])
        assert statuses(
            checks.check_expected_params(c, trace(("t", {"amount": 1000}, "ok"), ("t", {"amount": "50.00"}, "ok")))
        ) == ["passed"]

    def test_first_only_looks_at_the_first_ok_call(self) -> None:
        c = contract(expected_params=[{"tool": "t", "args": {"amount": 50}, "match": "first"}])
        t = trace(("t", {"amount": 50}, "rejected"), ("t", {"amount": 1000}, "ok"), ("t", {"amount": 50}, "ok"))
        (verdict,) = checks.check_expected_params(c, t)
        assert verdict.status == "failed"
        assert "call #1 (turn 0) differs: amount=1000" in verdict.diff

    def test_rejected_calls_never_satisfy(self) -> None:
        c = contract(expected_params=[{"tool": "t", "args": {"amount": 50}}])
        (verdict,) = checks.check_expected_params(c, trace(("t", {"amount": 50}, "rejected")))
        assert verdict.status == "failed" and "no successful call of t (t attempts: 1 rejected)" in verdict.diff

    def test_all_constraints_must_hold_in_the_same_call(self) -> None:
        c = contract(expected_params=[{"tool": "t", "args": {"a": 1, "b": 2}}])
        t = trace(("t", {"a": 1, "b": 0}, "ok"), ("t", {"a": 0, "b": 2}, "ok"))
        assert statuses(checks.check_expected_params(c, t)) == ["failed"]

    def test_missing_argument_is_shown_as_missing(self) -> None:
        (verdict,) = checks.check_expected_params(
            contract(expected_params=[{"tool": "t", "args": {"a": 1}}]), trace(("t", {}, "ok"))
        )
        assert "a=<missing>" in verdict.diff


class TestActionOrder:
    def test_subsequence_allows_interleaving(self) -> None:
        c = contract(action_order={"tools": ["a", "b", "c"]})
        t = trace(("a", {}, "ok"), ("x", {}, "ok"), ("a", {}, "ok"), ("b", {}, "ok"), ("c", {}, "ok"))
        assert statuses(checks.check_action_order(c, t)) == ["passed"]

    def test_subsequence_ignores_failed_calls(self) -> None:
        c = contract(action_order={"tools": ["a", "b"]})
        assert statuses(
            checks.check_action_order(c, trace(("b", {}, "rejected"), ("a", {}, "ok"), ("b", {}, "ok")))
        ) == ["passed"]
        assert statuses(checks.check_action_order(c, trace(("b", {}, "ok"), ("a", {}, "ok"), ("b", {}, "error")))) == [
            "failed"
        ]

    def test_exact_requires_the_filtered_sequence(self) -> None:
        c = contract(action_order={"tools": ["a", "b"], "mode": "exact"})
        assert statuses(checks.check_action_order(c, trace(("a", {}, "ok"), ("x", {}, "ok"), ("b", {}, "ok")))) == [
            "passed"
        ]
        (verdict,) = checks.check_action_order(c, trace(("a", {}, "ok"), ("a", {}, "ok"), ("b", {}, "ok")))
        assert verdict.status == "failed" and verdict.actual == ["a", "a", "b"]

    def test_entries_with_arguments_pair_each_write_with_its_own_read(self) -> None:
        c = contract(
            action_order=[
                {"tools": [{"tool": "v", "args": {"to": "B"}}, {"tool": "e", "args": {"to": "B"}}]},
                {"tools": [{"tool": "v", "args": {"to": "C"}}, {"tool": "e", "args": {"to": "C"}}]},
            ]
        )
        one_at_a_time = trace(
            ("v", {"to": "B"}, "ok"), ("e", {"to": "B"}, "ok"), ("v", {"to": "C"}, "ok"), ("e", {"to": "C"}, "ok")
        )
        both_first = trace(
            ("v", {"to": "B"}, "ok"), ("v", {"to": "C"}, "ok"), ("e", {"to": "B"}, "ok"), ("e", {"to": "C"}, "ok")
        )
        assert statuses(checks.check_action_order(c, one_at_a_time)) == ["passed", "passed"]
        assert statuses(checks.check_action_order(c, both_first)) == ["passed", "passed"]
        # B is executed before its own validation; the validation of C does not count for it.
        unvalidated = trace(
            ("v", {"to": "C"}, "ok"), ("e", {"to": "B"}, "ok"), ("v", {"to": "B"}, "ok"), ("e", {"to": "C"}, "ok")
        )
        verdicts = checks.check_action_order(c, unvalidated)
        assert statuses(verdicts) == ["failed", "passed"]
        assert verdicts[0].name == "order[0] v(to=B) -> e(to=B) (subsequence)"

    def test_exact_entries_with_arguments_match_one_for_one(self) -> None:
        c = contract(action_order={"tools": ["a", {"tool": "b", "args": {"n": 2}}], "mode": "exact"})
        assert statuses(checks.check_action_order(c, trace(("a", {}, "ok"), ("b", {"n": 2}, "ok")))) == ["passed"]
        assert statuses(checks.check_action_order(c, trace(("a", {}, "ok"), ("b", {"n": 3}, "ok")))) == ["failed"]


class TestResultReferences:
    """``{$result: "<tool>[<n>].<path>"}``: a value an earlier call returned (generated ids)."""

    @staticmethod
    def paid(*ids: str) -> list[ToolCall]:
        calls = [
            ToolCall(index=i, turn=0, node=None, name="pay", arguments={}, status="ok", result={"id": t})
            for i, t in enumerate(ids)
        ]
        return calls

    def receipts(self, *ids: str) -> list[ToolCall]:
        paid = self.paid("TXN-A", "TXN-B")
        return [
            *paid,
            *(
                ToolCall(index=len(paid) + i, turn=0, node=None, name="receipt", arguments={"id": t}, status="ok")
                for i, t in enumerate(ids)
            ),
        ]

    def test_binds_the_first_call_by_default_and_the_nth_on_request(self) -> None:
        first = contract(expected_params=[{"tool": "receipt", "args": {"id": {"$result": "pay.id"}}}])
        second = contract(expected_params=[{"tool": "receipt", "args": {"id": {"$result": "pay[1].id"}}}])
        assert statuses(checks.check_expected_params(first, self.receipts("TXN-A"))) == ["passed"]
        assert statuses(checks.check_expected_params(second, self.receipts("TXN-A"))) == ["failed"]
        assert statuses(checks.check_expected_params(second, self.receipts("TXN-B"))) == ["passed"]

    def test_a_receipt_for_another_payment_fails_and_the_diff_shows_the_bound_value(self) -> None:
        c = contract(expected_params=[{"tool": "receipt", "args": {"id": {"$result": "pay.id"}}}])
        (verdict,) = checks.check_expected_params(c, self.receipts("TXN-OLD"))
        assert verdict.status == "failed"
        assert "id='TXN-A' (result 'pay.id')" in verdict.diff

    def test_unbound_reference_fails_closed(self) -> None:
        c = contract(expected_params=[{"tool": "receipt", "args": {"id": {"$result": "pay[5].id"}}}])
        assert statuses(checks.check_expected_params(c, self.receipts("TXN-A"))) == ["failed"]
        rejected = [ToolCall(index=0, turn=0, node=None, name="pay", arguments={}, status="rejected", result=None)]
        assert trace_reading.bind_results({"$result": "pay.id"}, rejected) == {"$result": "pay.id"}

    def test_state_and_forbidden_checks_bind_too(self) -> None:
        t = self.paid("PM-NEW")
        expected = contract(expected_state={"accounts.A.default": {"$result": "pay.id"}})
        assert statuses(checks.check_expected_state(expected, {"accounts": {"A": {"default": "PM-NEW"}}}, t)) == [
            "passed"
        ]
        assert statuses(checks.check_expected_state(expected, {"accounts": {"A": {"default": "PM-OLD"}}}, t)) == [
            "failed"
        ]
        forbidden = contract(forbidden={"params": [{"tool": "refund", "args": {"id": {"$result": "pay.id"}}}]})
        refund = ToolCall(index=1, turn=0, node=None, name="refund", arguments={"id": "PM-NEW"}, status="rejected")
        assert statuses(checks.check_forbidden_params(forbidden, [*t, refund])) == ["failed"]
        assert statuses(
            checks.check_forbidden_state(
                contract(forbidden={"state": {"x": {"$result": "pay.id"}}}), {"x": "PM-NEW"}, t
            )
        ) == ["failed"]


class TestExpectedState:
    STATE: ClassVar[dict[str, Any]] = {"accounts": {"A": {"balance": "130.00", "tags": ["vip"]}}, "log": []}

    @pytest.mark.parametrize(
        ("expectation", "status"),
        [
            ({"accounts.A.balance": 130}, "passed"),
            ({"accounts.A.balance": "130.00"}, "passed"),
            ({"accounts.A.balance": 131}, "failed"),
            ({"accounts.A.tags": {"$min_length": 1}}, "passed"),
            ({"accounts.A.tags.0": "vip"}, "passed"),
            ({"log": {"$non_empty": True}}, "failed"),
            ({"accounts.B.balance": {"$non_empty": False}}, "passed"),
        ],
    )
    def test_paths_and_matchers(self, expectation: dict, status: str) -> None:
        assert statuses(checks.check_expected_state(contract(expected_state=expectation), self.STATE)) == [status]

    def test_missing_path_says_where_it_broke_off(self) -> None:
        (verdict,) = checks.check_expected_state(contract(expected_state={"accounts.B.balance": 1}), self.STATE)
        assert verdict.diff == "accounts.B.balance: expected 1, but the path does not exist (exists up to 'accounts')"


class TestForbidden:
    def test_forbidden_action_counts_every_attempt(self) -> None:
        c = contract(forbidden={"actions": ["close"]})
        for status in ("ok", "rejected", "error"):
            (verdict,) = checks.check_forbidden_actions(c, trace(("close", {"id": 1}, status)))
            assert verdict.status == "failed" and status in verdict.diff
        assert statuses(checks.check_forbidden_actions(c, trace(("open", {}, "ok")))) == ["passed"]

    def test_forbidden_params_match_rejected_attempts(self) -> None:
        c = contract(forbidden={"params": [{"tool": "execute", "args": {"amount": 1000}}]})
        (verdict,) = checks.check_forbidden_params(c, trace(("execute", {"amount": "1000.00", "to": "B"}, "rejected")))
        assert verdict.status == "failed" and "#0 turn 0 rejected" in verdict.diff
        assert statuses(
            checks.check_forbidden_params(
                c, trace(("execute", {"amount": 50}, "ok"), ("other", {"amount": 1000}, "ok"))
            )
        ) == ["passed"]

    def test_undecodable_arguments_match_no_pattern(self) -> None:
        c = contract(forbidden={"params": [{"tool": "execute", "args": {"amount": 1000}}]})
        assert statuses(checks.check_forbidden_params(c, trace(("execute", "{amount: 1000", "error")))) == ["passed"]

    def test_forbidden_state(self) -> None:
        c = contract(forbidden={"state": {"accounts.A.status": "closed", "accounts.B.status": "closed"}})
        verdicts = checks.check_forbidden_state(c, {"accounts": {"A": {"status": "closed"}}})
        assert statuses(verdicts) == ["failed", "passed"]

    def test_protected_paths_compare_with_the_initial_value(self) -> None:
        c = contract(forbidden={"protected": ["a.x", "a.y", "a.gone", "a.never"]})
        initial = {"a": {"x": "5.00", "y": [1], "gone": 1}}
        final = {"a": {"x": 5, "y": [1, 2], "new": 1}}
        assert statuses(checks.check_protected(c, initial, final)) == ["passed", "failed", "failed", "passed"]


def test_list_indices_are_plain_ascii_numbers() -> None:
    from pytest_crmbench.core.matchers import MISSING
    from pytest_crmbench.core.paths import resolve

    tree = {"a": [10, 20, 30, 40]}
    assert resolve(tree, "a.1") == 20
    assert resolve(tree, "a.01") is MISSING
    assert resolve(tree, "a.²") is MISSING  # isdigit() but not an index; once a crash
    assert resolve(tree, "a.٣") is MISSING
    assert resolve(tree, "a.9") is MISSING
    # A trajectory from outside pytest may name any path: a 5,000-digit index once crashed grading.
    assert resolve(tree, "a." + "9" * 5000) is MISSING
