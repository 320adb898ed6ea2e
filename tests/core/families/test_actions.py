"""Expected actions: count-aware successful calls."""

from tests.core.families import helpers as checks
from tests.core.families.helpers import contract, statuses, trace


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
