"""Invariants checked with hypothesis: state isolation, and matchers against brute-force references."""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.core.spec import Contract
from pytest_crmbench.env.environment import ToolEnvironment, clone
from tests.core.families import helpers as checks

NAMES = ["a", "b", "c"]
STATUSES = ["ok", "rejected", "error"]
FIXTURE_OK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

calls = st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(STATUSES), st.integers(0, 3)), max_size=12)


def make_trace(raw: list[tuple[str, str, int]]) -> list[ToolCall]:
    return [
        ToolCall(index=i, turn=0, node=None, name=n, arguments={"x": x}, status=s) for i, (n, s, x) in enumerate(raw)
    ]  # type: ignore[arg-type]


@given(calls, st.lists(st.sampled_from(NAMES), min_size=1, max_size=5))
def test_count_aware_actions_match_brute_force(raw: list, expected: list[str]) -> None:
    trace = make_trace(raw)
    verdicts = checks.check_expected_actions(Contract(expected_actions=expected), trace)  # type: ignore[arg-type]
    for verdict in verdicts:
        tool = verdict.name.split()[1]
        needed = expected.count(tool)
        have = sum(1 for n, s, _ in raw if n == tool and s == "ok")
        assert verdict.passed == (have >= needed)
    assert len(verdicts) == len(set(expected))


def brute_subsequence(needle: list[str], haystack: list[str]) -> bool:
    return any(
        [haystack[i] for i in idx] == needle for idx in itertools.combinations(range(len(haystack)), len(needle))
    )


@given(calls, st.lists(st.sampled_from(NAMES), min_size=2, max_size=4), st.sampled_from(["subsequence", "exact"]))
def test_order_matches_brute_force(raw: list, order: list[str], mode: str) -> None:
    ok_names = [n for n, s, _ in raw if s == "ok"]
    filtered = [n for n in ok_names if n in order]
    expected = filtered == order if mode == "exact" else brute_subsequence(order, filtered)
    (verdict,) = checks.check_action_order(
        Contract.model_validate({"action_order": {"tools": order, "mode": mode}}), make_trace(raw)
    )
    assert verdict.passed == expected


@given(calls, st.sampled_from(NAMES), st.integers(0, 3), st.sampled_from(["any", "first"]))
def test_params_match_brute_force(raw: list, tool: str, value: int, match: str) -> None:
    ok_values = [x for n, s, x in raw if n == tool and s == "ok"]
    expected = bool(ok_values) and (ok_values[0] == value if match == "first" else value in ok_values)
    contract = Contract.model_validate({"expected_params": [{"tool": tool, "args": {"x": value}, "match": match}]})
    (verdict,) = checks.check_expected_params(contract, make_trace(raw))
    assert verdict.passed == expected


@given(calls, st.sampled_from(NAMES), st.integers(0, 3))
def test_forbidden_params_see_every_attempt(raw: list, tool: str, value: int) -> None:
    contract = Contract.model_validate({"forbidden": {"params": [{"tool": tool, "args": {"x": value}}]}})
    (verdict,) = checks.check_forbidden_params(contract, make_trace(raw))
    assert verdict.passed == ((tool, value) not in [(n, x) for n, _, x in raw])


mini_calls = st.lists(
    st.one_of(
        st.tuples(
            st.just("execute_transfer"),
            st.fixed_dictionaries(
                {
                    "from_account": st.sampled_from(["ACC-1", "ACC-2", "ACC-3", "ACC-9"]),
                    "to_account": st.sampled_from(["ACC-1", "ACC-2"]),
                    "amount": st.decimals(min_value=-5, max_value=3000, places=2),
                }
            ),
        ),
        st.tuples(st.just("pay_order"), st.fixed_dictionaries({"order_id": st.sampled_from(["ORD-1", "ORD-2"])})),
        st.tuples(
            st.just("award_points"),
            st.fixed_dictionaries(
                {
                    "account_id": st.sampled_from(["ACC-1", "ACC-2"]),
                    "amount": st.decimals(min_value=0, max_value=100, places=2),
                }
            ),
        ),
        st.tuples(st.just("close_account"), st.fixed_dictionaries({"account_id": st.sampled_from(["ACC-1", "ACC-3"])})),
        st.tuples(st.just("broken_tool"), st.just({})),
    ),
    max_size=15,
)


@FIXTURE_OK
@given(mini_calls, mini_calls, st.integers(0, 2**32 - 1))
def test_resets_are_isolated(mini_env_class: type[ToolEnvironment], first: list, second: list, seed: int) -> None:
    """Whatever one episode does, the next reset starts from the same state, and two live envs share nothing."""
    pristine = clone(mini_env_class.cached_default_state())
    env_a, env_b = mini_env_class(seed=seed), mini_env_class(seed=seed)
    for name, args in first:
        env_a.call(name, args)
    assert env_b.state == pristine
    for name, args in second:
        env_b.call(name, args)
    assert mini_env_class.cached_default_state() == pristine
    assert mini_env_class(seed=seed).state == pristine
    assert env_a.initial_state == pristine


@FIXTURE_OK
@given(mini_calls)
def test_money_is_conserved_by_transfers(
    mini_env_class: type[ToolEnvironment], sequence: list[tuple[str, dict[str, Any]]]
) -> None:
    env = mini_env_class(seed=3)

    def total() -> Decimal:
        return sum((a["balance"] for a in env.state["accounts"].values()), Decimal(0))

    for name, args in sequence:
        before, before_state = total(), clone(env.state)
        call = env.call(name, args)
        if name == "execute_transfer":
            assert total() == before
        if call.status != "ok":
            assert env.state == before_state
        assert all(a["balance"] >= 0 for a in env.state["accounts"].values())
