"""Action order: subsequence and exact, entries with arguments."""

from tests.core.families import helpers as checks
from tests.core.families.helpers import contract, statuses, trace


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
