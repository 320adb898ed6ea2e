"""What the check families read of a tool trace: successful calls, argument matches, ``$result`` bindings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.core.matchers import MISSING, RESULT, describe, matches, operator_of, result_reference, show
from pytest_crmbench.core.paths import resolve


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


def bound(constraints: Mapping[str, Any], trace: Sequence[ToolCall]) -> dict[str, Any]:
    return {key: bind_results(constraint, trace) for key, constraint in constraints.items()}


def summarize_attempts(trace: Sequence[ToolCall], tool: str) -> str:
    statuses = [c.status for c in trace if c.name == tool]
    if not statuses:
        return f"{tool} was never attempted"
    counts = {s: statuses.count(s) for s in ("ok", "rejected", "error") if s in statuses}
    return f"{tool} attempts: " + ", ".join(f"{n} {s}" for s, n in counts.items())


def unmet_args(constraints: Mapping[str, Any], arguments: Any) -> dict[str, Any]:
    """Constraint name -> actual value, for every constraint the arguments do not satisfy."""
    if not isinstance(arguments, Mapping):
        return dict.fromkeys(constraints, MISSING)
    return {
        key: arguments.get(key, MISSING)
        for key, c in constraints.items()
        if not matches(c, arguments.get(key, MISSING))
    }


def described(written: Any, bound_value: Any) -> str:
    """A constraint for a diff; a bound ``$result`` shows both the reference and its value."""
    if bound_value is written:
        return describe(written)
    return f"{show(bound_value)} ({describe(written)})"


def shown(value: Any) -> Any:
    """A state value as a verdict records it: ``None`` for a path that does not exist."""
    return None if value is MISSING else value
