"""Expected parameters: any or first successful call."""

from tests.core.families import helpers as checks
from tests.core.families.helpers import contract, statuses, trace


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
