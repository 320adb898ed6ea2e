"""Expected state: dotted paths of the final state."""

from typing import Any, ClassVar

import pytest

from tests.core.families import helpers as checks
from tests.core.families.helpers import contract, statuses


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
