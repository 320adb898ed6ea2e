"""Structural checks of one task against its domain (spec §A.5 step 2, "bind the evidence").

Every tool a contract or gold path names exists in the environment; every parameter assertion
and literal gold argument validates against the tool's typed schema; the reset state passes the
domain's state model and invariants (:mod:`~pytest_crmbench.release.world`); every state path
exists in it; the contract is consistent; the domain graph exposes every tool the task names.
Each problem is a :class:`~pytest_crmbench.core.errors.SpecError` at the offending field.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.families import FAMILIES
from pytest_crmbench.core.families.expected_state import EXPECTED_STATE
from pytest_crmbench.core.loader import TaskRecord
from pytest_crmbench.core.matchers import MISSING, RESULT, matches, operator_of, result_reference
from pytest_crmbench.core.paths import deepest_existing, resolve
from pytest_crmbench.core.spec import GoldCall, Task, gold_reference
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.values import REJECTION_ERROR, names_an_instant
from pytest_crmbench.reference.graph import CapabilityGraph
from pytest_crmbench.release.taskset import problem
from pytest_crmbench.release.world import initial_state

Loc = tuple[int | str, ...]

TYPED_OPERATORS = ("$eq", "$one_of", "$gte", "$lte", "$instant")
"""Operators whose operands are values of the argument (``$contains``, ``$non_empty`` and
``$min_length``, ``$max_length`` and ``$length`` are about shape, not about the argument's type)."""


def named_tools(task: Task) -> Iterator[tuple[Loc, str]]:
    """``(location, tool)`` for every tool the task names, in its contract and gold path."""
    for family in FAMILIES:
        yield from family.named_tools(task.contract)
    for loc, path in task_paths(task):
        for i, step in enumerate(path):
            yield (*loc, i, "tool"), step.tool
    yield from _referenced_tools(task)


def _referenced_tools(task: Task) -> Iterator[tuple[Loc, str]]:
    """Tools whose results a ``$result`` constraint quotes."""
    for family in FAMILIES:
        for use in family.argument_uses(task.contract):
            for key, constraint in use.constraints.items():
                found = operator_of(constraint)
                reference = result_reference(found[1]) if found and found[0] == RESULT else None
                if reference is not None:
                    yield (*use.loc, key), reference[0]


def task_paths(task: Task) -> Iterator[tuple[Loc, list[GoldCall]]]:
    """Every path a task writes: the gold path, then its alternatives and counterexamples."""
    yield ("gold", "path"), task.gold.path
    for kind in ("alternatives", "counterexamples"):
        for i, trajectory in enumerate(getattr(task, kind)):
            yield (kind, i, "path"), trajectory.path


def check_record(
    record: TaskRecord, environment: type[ToolEnvironment], graph: CapabilityGraph | None
) -> list[SpecError]:
    """Every structural problem of one task in its domain, its agent graph included (the gate)."""
    return [*inspect_record(record, environment).problems, *exposure_problems(record, graph, environment)]


@dataclass(frozen=True)
class Inspection:
    """One task's structural problems, and the notes the same build of its world yields."""

    problems: list[SpecError]
    notes: list[SpecError]


def structure_problems(record: TaskRecord, environment: type[ToolEnvironment]) -> list[SpecError]:
    """What pytest's collection refuses too (issue 26 §3): see :func:`inspect_record`."""
    return inspect_record(record, environment).problems


def inspect_record(record: TaskRecord, environment: type[ToolEnvironment]) -> Inspection:
    """Tools, typed arguments, the world, state paths and the contract's consistency — what the gate
    and pytest's collection both refuse, so a task the gate rejects is never collected — and, as
    notes, expected-state leaves already true at reset. The agent graph is the gate's alone
    (:func:`exposure_problems`): a user's own agent needs none."""
    state, world = initial_state(record, environment)
    problems = [
        *_unknown_tools(record, environment),
        *_typed_arguments(record, environment),
        *world,
        *(_state_paths(record, state) if state is not None else []),
        *_consistency(record),
    ]
    return Inspection(problems, _already_true(record, state) if state is not None else [])


def _already_true(record: TaskRecord, state: Mapping[str, Any]) -> list[SpecError]:
    """Expected-state leaves that already hold on the untouched world.

    Such a leaf is a protection (nothing may undo it), not a requirement the agent meets: a
    do-nothing agent passes it. Reported, not refused: write it as a protected path, or make the
    task's world start elsewhere. Leaves quoting a result (``$result``) are left out.
    """
    found = []
    for path, constraint in EXPECTED_STATE.of(record.task.contract).items():
        if _mentions_result(constraint):
            continue
        actual = resolve(state, path)
        if actual is not MISSING and matches(constraint, actual):
            found.append(
                problem(
                    record,
                    ("contract", "expected_state", path),
                    "already holds on the untouched world: a protection (forbidden.protected), not a requirement",
                )
            )
    return found


def _mentions_result(value: Any) -> bool:
    if result_reference(value) is not None:
        return True
    if isinstance(value, Mapping):
        return any(_mentions_result(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_mentions_result(v) for v in value)
    return False


def _unknown_tools(record: TaskRecord, environment: type[ToolEnvironment]) -> Iterator[SpecError]:
    for loc, tool in named_tools(record.task):
        if tool not in environment.tools:
            yield problem(record, loc, f"unknown tool {tool!r} in domain {record.task.domain!r}")


# -- typed arguments ---------------------------------------------------------------------------


@functools.cache
def _adapter(args_model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    # One adapter per tool argument, built once: validating a single field through the tool's
    # own annotation gives the same coercions the environment applies to a real call.
    annotation: Any = args_model.model_fields[name].rebuild_annotation()  # with its value rules
    return TypeAdapter(annotation)


def _type_error(args_model: type[BaseModel], name: str, value: Any) -> str | None:
    """Why ``value`` is not of the argument's type, or None. A value of the right type that breaks
    a value rule (``amount: 0``) is well-formed: the tool rejects it, and a contract may expect or
    forbid exactly that attempt."""
    try:
        _adapter(args_model, name).validate_python(value)
    except ValidationError as exc:
        errors = [e for e in exc.errors(include_url=False) if e["type"] != REJECTION_ERROR]
        return "; ".join(str(e["msg"]) for e in errors) or None
    return None


def _compares_text(constraint: Any) -> bool:
    found = operator_of(constraint)
    return found is None or found[0] in ("$eq", "$one_of")


def _operands(constraint: Any) -> list[Any]:
    """The values a constraint compares the argument with (none for shape operators)."""
    found = operator_of(constraint)
    if found is None:
        return [constraint]
    name, operand = found
    if name not in TYPED_OPERATORS:
        return []
    return list(operand) if name == "$one_of" else [operand]


def _argument_problems(
    record: TaskRecord, loc: Loc, tool: str, args: Mapping[str, Any], environment: type[ToolEnvironment], *, gold: bool
) -> Iterator[SpecError]:
    spec = environment.tools.get(tool)
    if spec is None:
        return  # reported as an unknown tool
    fields = spec.args_model.model_fields
    for name, value in args.items():
        if name not in fields:
            yield problem(record, (*loc, name), f"{tool} has no argument {name!r} (known: {', '.join(fields)})")
            continue
        if gold and gold_reference(value) is not None:
            continue  # a value from an earlier result, checked by the replay
        if not gold and names_an_instant(fields[name]) and _compares_text(value):
            message = f"{tool}.{name} is a timestamp: compare it with {{$instant: ...}}, a literal compares the text"
            yield problem(record, (*loc, name), f"{message} and fails '…T17:00:00Z' for '…T10:00:00-07:00'")
        for operand in [value] if gold else _operands(value):
            error = _type_error(spec.args_model, name, operand)
            if error:
                yield problem(record, (*loc, name), f"{operand!r} is not a valid {tool}.{name}: {error}")
    if gold:
        missing = [n for n, f in fields.items() if f.is_required() and n not in args]
        if missing:
            yield problem(record, loc, f"{tool} needs argument(s) {', '.join(missing)}")


def _typed_arguments(record: TaskRecord, environment: type[ToolEnvironment]) -> Iterator[SpecError]:
    task = record.task
    for family in FAMILIES:
        for use in family.argument_uses(task.contract):
            if use.tool is not None:  # state constraints have no tool to type them
                yield from _argument_problems(record, use.loc, use.tool, use.constraints, environment, gold=False)
    for path_loc, path in task_paths(task):
        for i, step in enumerate(path):
            loc = (*path_loc, i, "args")
            yield from _argument_problems(record, loc, step.tool, step.args, environment, gold=True)


# -- state paths -------------------------------------------------------------------------------


def _state_paths(record: TaskRecord, state: dict[str, Any]) -> Iterator[SpecError]:
    for family in FAMILIES:
        for use in family.state_paths(record.task.contract):
            message = _path_problem(state, use.path, may_grow=use.may_grow)
            if message:
                yield problem(record, use.loc, message)


def _path_problem(state: Any, path: str, *, may_grow: bool) -> str | None:
    if resolve(state, path) is not MISSING:
        return None
    prefix = deepest_existing(state, path)
    slot = resolve(state, prefix) if prefix else MISSING
    # An expected (or forbidden) end state may lie inside a slot the episode fills: a list that
    # grows (``transfers.0``) or a null field that becomes a record (``freeze.frozen_by``). A
    # protected path must exist at the start: it is compared with its initial value.
    if may_grow and (slot is None or isinstance(slot, list)):
        return None
    missing = path[len(prefix) :].lstrip(".").split(".")[0]
    where = f"{prefix!r} has no {missing!r}" if prefix else f"no root {missing!r}"
    return f"state path {path!r} does not exist in the reset state ({where})"


# -- contract consistency and graph exposure ---------------------------------------------------


def _consistency(record: TaskRecord) -> Iterator[SpecError]:
    for family in FAMILIES:
        for loc, message in family.consistency(record.task.contract):
            yield problem(record, loc, message)


def exposure_problems(
    record: TaskRecord, graph: CapabilityGraph | None, environment: type[ToolEnvironment]
) -> Iterator[SpecError]:
    if graph is None:
        yield problem(record, ("domain",), f"no agent graph for domain {record.task.domain!r} (agents/<domain>.yaml)")
        return
    placed = graph.tools()
    for loc, tool in named_tools(record.task):
        if tool not in placed and tool in environment.tools:  # an unknown tool is reported once, above
            yield problem(record, loc, f"{tool} is not exposed by any node of the {graph.domain} graph")
