"""The programmatic check families of spec §A.2, each a pure function of contract and evidence.

Expected actions, params and order read only ``ok`` calls (a rejected call is evidence of an
attempt, not of the state change). Forbidden actions and params read every attempt, whatever
its status. State checks read the frozen final state; protected paths compare it to the initial one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.core.matchers import (
    MISSING,
    RESULT,
    describe,
    matches,
    operator_of,
    result_reference,
    show,
    values_equal,
)
from pytest_crmbench.core.paths import deepest_existing, resolve
from pytest_crmbench.core.spec import ActionOrder, Contract, ExpectedParams, ForbiddenParams
from pytest_crmbench.grading.verdict import CheckVerdict, Family


def _verdict(family: Family, name: str, ok: bool, expected: Any, actual: Any, diff: str) -> CheckVerdict:
    return CheckVerdict(
        family=family,
        name=name,
        status="passed" if ok else "failed",
        expected=expected,
        actual=actual,
        diff="" if ok else diff,
    )


def ok_calls(trace: Sequence[ToolCall]) -> list[ToolCall]:
    return [c for c in trace if c.status == "ok"]


def bind_results(constraint: Any, trace: Sequence[ToolCall]) -> Any:
    """A ``{$result: "<tool>[<n>].<path>"}`` constraint replaced by the value it names in the trace.

    The value is ``path`` in the result of the tool's n-th ``ok`` call. When that call or path does
    not exist the reference stays unbound, and an unbound reference matches nothing.
    """
    found = operator_of(constraint)
    if found is None or found[0] != RESULT:
        return constraint
    reference = result_reference(found[1])
    if reference is None:
        return constraint
    tool, n, path = reference
    calls = [c for c in trace if c.status == "ok" and c.name == tool]
    value = resolve(calls[n].result, path) if n < len(calls) else MISSING
    return constraint if value is MISSING else value


def _bound(constraints: Mapping[str, Any], trace: Sequence[ToolCall]) -> dict[str, Any]:
    return {key: bind_results(constraint, trace) for key, constraint in constraints.items()}


def summarize_attempts(trace: Sequence[ToolCall], tool: str) -> str:
    statuses = [c.status for c in trace if c.name == tool]
    if not statuses:
        return f"{tool} was never attempted"
    counts = {s: statuses.count(s) for s in ("ok", "rejected", "error") if s in statuses}
    return f"{tool} attempts: " + ", ".join(f"{n} {s}" for s, n in counts.items())


# -- positive checks ---------------------------------------------------------------------------


def check_expected_actions(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    """One check per distinct tool: at least the required number of ``ok`` calls."""
    successes = [c.name for c in ok_calls(trace)]
    verdicts = []
    for index, (tool, required) in enumerate(contract.required_counts().items()):
        got = successes.count(tool)
        diff = (
            f"expected at least {required} successful call(s) of {tool}, got {got} ({summarize_attempts(trace, tool)})"
        )
        verdicts.append(_verdict("action", f"action[{index}] {tool} x{required}", got >= required, required, got, diff))
    return verdicts


def unmet_args(constraints: Mapping[str, Any], arguments: Any) -> dict[str, Any]:
    """Constraint name -> actual value, for every constraint the arguments do not satisfy."""
    if not isinstance(arguments, Mapping):
        return dict.fromkeys(constraints, MISSING)
    return {
        key: arguments.get(key, MISSING)
        for key, c in constraints.items()
        if not matches(c, arguments.get(key, MISSING))
    }


def check_expected_params(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    return [_check_params(index, spec, trace) for index, spec in enumerate(contract.expected_params)]


def _check_params(index: int, spec: ExpectedParams, trace: Sequence[ToolCall]) -> CheckVerdict:
    calls = [c for c in ok_calls(trace) if c.name == spec.tool]
    name = f"param[{index}] {spec.tool} ({spec.match})"
    expected = {k: describe(v) for k, v in spec.args.items()}
    if not calls:
        return _verdict(
            "param",
            name,
            False,
            expected,
            None,
            f"no successful call of {spec.tool} ({summarize_attempts(trace, spec.tool)})",
        )
    candidates = calls[:1] if spec.match == "first" else calls
    constraints = _bound(spec.args, trace)
    misses = [unmet_args(constraints, c.graded_arguments()) for c in candidates]
    if any(not miss for miss in misses):
        return _verdict("param", name, True, expected, None, "")
    shown = {k: _described(spec.args[k], v) for k, v in constraints.items()}
    lines = [f"expected {spec.tool} with " + ", ".join(f"{k}={v}" for k, v in shown.items())]
    for call, miss in zip(candidates, misses, strict=True):
        got = ", ".join(f"{k}={show(v)}" for k, v in miss.items())
        lines.append(f"  call #{call.index} (turn {call.turn}) differs: {got}")
    return _verdict("param", name, False, expected, [c.graded_arguments() for c in candidates], "\n".join(lines))


def is_subsequence(needle: Sequence[str], haystack: Sequence[str]) -> bool:
    """Whether ``needle`` occurs in ``haystack`` in order, gaps allowed (greedy is optimal here)."""
    position = 0
    for item in haystack:
        if position < len(needle) and item == needle[position]:
            position += 1
    return position == len(needle)


def check_action_order(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    return [_check_order(index, order, trace) for index, order in enumerate(contract.action_order)]


def _check_order(index: int, order: ActionOrder, trace: Sequence[ToolCall]) -> CheckVerdict:
    named = set(order.names())
    calls = [c for c in ok_calls(trace) if c.name in named]
    steps = [(step.tool, _bound(step.args, trace)) for step in order.tools]

    def fits(step: tuple[str, dict[str, Any]], call: ToolCall) -> bool:
        return call.name == step[0] and not unmet_args(step[1], call.graded_arguments())

    if order.mode == "exact":
        ok = len(calls) == len(steps) and all(fits(s, c) for s, c in zip(steps, calls, strict=False))
    else:
        # Greedy is optimal: taking the earliest call that fits an entry never blocks a later one.
        position = 0
        for call in calls:
            if position < len(steps) and fits(steps[position], call):
                position += 1
        ok = position == len(steps)
    expected = [step.text() for step in order.tools]
    filtered = [c.name for c in calls]
    name = f"order[{index}] {' -> '.join(expected)} ({order.mode})"
    diff = f"expected {order.mode} order {expected}\n  successful calls of those tools, in order: {filtered}"
    return _verdict("order", name, ok, expected, filtered, diff)


def _described(written: Any, bound: Any) -> str:
    """A constraint for a diff; a bound ``$result`` shows both the reference and its value."""
    if bound is written:
        return describe(written)
    return f"{show(bound)} ({describe(written)})"


def check_expected_state(
    contract: Contract, final_state: Mapping[str, Any], trace: Sequence[ToolCall] = ()
) -> list[CheckVerdict]:
    verdicts = []
    for index, (path, written) in enumerate(contract.expected_state.items()):
        constraint = bind_results(written, trace)
        actual = resolve(final_state, path)
        verdicts.append(
            _verdict(
                "state",
                f"state[{index}] {path}",
                matches(constraint, actual),
                _described(written, constraint),
                _shown(actual),
                _state_diff(path, _described(written, constraint), actual, final_state),
            )
        )
    return verdicts


def _state_diff(path: str, expected: str, actual: Any, state: Mapping[str, Any]) -> str:
    if actual is MISSING:
        found = deepest_existing(state, path)
        return f"{path}: expected {expected}, but the path does not exist (exists up to {found or 'the root'!r})"
    return f"{path}: expected {expected}, got {show(actual)}"


def _shown(value: Any) -> Any:
    return None if value is MISSING else value


# -- negative checks ---------------------------------------------------------------------------


def check_forbidden_actions(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    verdicts = []
    for index, tool in enumerate(contract.forbidden.actions):
        attempts = [c for c in trace if c.name == tool]
        shown = [f"#{c.index} turn {c.turn} {c.status} {show(c.arguments)}" for c in attempts]
        diff = f"{tool} must never be attempted; attempts:\n" + "\n".join(f"  {s}" for s in shown)
        verdicts.append(
            _verdict("forbidden", f"forbidden.action[{index}] {tool}", not attempts, 0, len(attempts), diff)
        )
    return verdicts


def check_forbidden_params(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    return [_check_forbidden_params(index, spec, trace) for index, spec in enumerate(contract.forbidden.params)]


def _check_forbidden_params(index: int, spec: ForbiddenParams, trace: Sequence[ToolCall]) -> CheckVerdict:
    constraints = _bound(spec.args, trace)
    hits = [c for c in trace if c.name == spec.tool and not unmet_args(constraints, c.graded_arguments())]
    pattern = ", ".join(f"{k}={_described(spec.args[k], v)}" for k, v in constraints.items())
    shown = "\n".join(f"  #{c.index} turn {c.turn} {c.status} {show(c.arguments)}" for c in hits)
    diff = f"no attempt of {spec.tool} may match {pattern}; matching attempts:\n{shown}"
    return _verdict(
        "forbidden",
        f"forbidden.param[{index}] {spec.tool}",
        not hits,
        pattern,
        [c.graded_arguments() for c in hits],
        diff,
    )


def check_forbidden_state(
    contract: Contract, final_state: Mapping[str, Any], trace: Sequence[ToolCall] = ()
) -> list[CheckVerdict]:
    verdicts = []
    for index, (path, written) in enumerate(contract.forbidden.state.items()):
        constraint = bind_results(written, trace)
        actual = resolve(final_state, path)
        holds = matches(constraint, actual)
        described = _described(written, constraint)
        diff = f"{path}: must not be {described}, but it is {show(actual)}"
        verdicts.append(
            _verdict(
                "forbidden",
                f"forbidden.state[{index}] {path}",
                not holds,
                f"not {described}",
                _shown(actual),
                diff,
            )
        )
    return verdicts


def check_protected(
    contract: Contract, initial_state: Mapping[str, Any], final_state: Mapping[str, Any]
) -> list[CheckVerdict]:
    verdicts = []
    for index, path in enumerate(contract.forbidden.protected):
        before, after = resolve(initial_state, path), resolve(final_state, path)
        unchanged = (before is MISSING and after is MISSING) or (
            before is not MISSING and after is not MISSING and values_equal(before, after)
        )
        diff = f"{path} is protected: initial {show(before)}, final {show(after)}"
        verdicts.append(
            _verdict("collateral", f"collateral[{index}] {path}", unchanged, _shown(before), _shown(after), diff)
        )
    return verdicts


# -- where each check is declared ----------------------------------------------------------------

_CHECK_NAME = re.compile(r"^(?P<kind>[a-z.]+)\[(?P<index>[^\]]+)\](?: (?P<subject>\S+))?")
_LISTED: dict[str, tuple[str, ...]] = {
    "param": ("expected_params",),
    "order": ("action_order",),
    "forbidden.action": ("forbidden", "actions"),
    "forbidden.param": ("forbidden", "params"),
    "collateral": ("forbidden", "protected"),
}
_KEYED: dict[str, tuple[str, ...]] = {"state": ("expected_state",), "forbidden.state": ("forbidden", "state")}


def declared_at(contract: Contract, check_name: str) -> tuple[int | str, ...]:
    """Where in the task record the contract entry a check comes from is written, from the check's
    name (above: ``state[0] accounts.A.balance`` -> ``("contract", "expected_state", "accounts.A.balance")``).

    The one mapping from verdicts to YAML, for failing checks in pytest and for the HTML report.
    ``()`` when the entry cannot be told (a check of another version of the contract).
    """
    match = _CHECK_NAME.match(check_name)
    if match is None:
        return ()
    kind, index, subject = match["kind"], match["index"], match["subject"]
    number = int(index) if index.isdigit() else None
    if kind == "reply":
        return ("contract", "reply_criteria", number) if number is not None else ("contract", "reply_criteria")
    if kind == "action":
        tools = [action.tool for action in contract.expected_actions]
        return ("contract", "expected_actions", tools.index(subject)) if subject in tools else ()
    if kind in _KEYED and subject and number is not None:
        return ("contract", *_KEYED[kind], subject)
    if kind in _LISTED and number is not None:
        return ("contract", *_LISTED[kind], number)
    return ()
