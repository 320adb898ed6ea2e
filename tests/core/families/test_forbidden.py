"""Forbidden actions, parameters and end states; protected paths."""

from tests.core.families import helpers as checks
from tests.core.families.helpers import contract, statuses, trace


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
