"""$result references bound against the trace, in every family that takes constraints."""

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.core.families import trace as trace_reading
from tests.core.families import helpers as checks
from tests.core.families.helpers import contract, statuses


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
