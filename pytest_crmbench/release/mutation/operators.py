"""The mutation operators: trajectories derived from a task's gold path.

Wrong paths (each must fail at least one programmatic check, "killed"):

========================  ====================================================================
``drop``                  remove one write (and the calls that quote its result)
``change``                one argument of one write set to a plausible wrong value (:mod:`.values`)
``duplicate``             one write made twice in a row
``move``                  one write moved before the read the policy requires first
``skip_identity``         every identity verification removed, where something private follows
``forbidden:<move>``      calls the domain's policy forbids in the task's situation (:mod:`.hints`)
========================  ====================================================================

Right paths (each must pass every programmatic check, "spared"):

========================  ====================================================================
``reread``                one read made twice in a row (an extra read of the same records)
``swap``                  two adjacent independent reads of different tools in the other order
``reverify``              the identity verification repeated before the first write
``reread_after``          after a write, the read that looks at what it changed
``repeat``                a write the policy allows again (a receipt copy) made twice
``split``                 a read whose list argument is split across two calls
``split_write``           a write the domain declares divisible done in two parts of the same total
========================  ====================================================================

Mutation ids name the gold step and the change (``change:2:execute_transfer.amount=119.99``), so
a waiver in a task record keeps pointing at the same mutant from run to run.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.core.matchers import values_equal
from pytest_crmbench.core.spec import gold_reference
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.mutation.hints import Call, Insertion, MutationHints, Situation
from pytest_crmbench.release.mutation.trajectory import Step, references
from pytest_crmbench.release.mutation.wrong_values import wrong_values

Kind = Literal["wrong", "right"]


@dataclass(frozen=True)
class Mutant:
    """One derived trajectory and what it claims about the contract."""

    id: str
    operator: str
    kind: Kind
    steps: tuple[Step, ...]
    description: str
    step: int | None = None
    """The gold step the mutation is about, for locating reports; None when it is about the task."""
    inserted: tuple[int, ...] = ()
    """Positions (in ``steps``) of the calls a forbidden move added."""

    @property
    def policy(self) -> bool:
        """Whether the mutant's wrongness lies in its calls, not in the end state or the writes.

        Skipping a verification, executing before validating or reading someone else's account
        changes neither: such a mutant is never skipped as equivalent (unless every call it added
        was refused by the tools).
        """
        policy = ("skip_identity", "move", "fail_identity", "late_identity")
        return self.operator in policy or self.operator.startswith("forbidden:")


@dataclass(frozen=True)
class Gold:
    """The gold path as steps plus its replay: one call per step, with effective arguments."""

    steps: tuple[Step, ...]
    calls: tuple[ToolCall, ...]


def derive(environment: type[ToolEnvironment], hints: MutationHints, gold: Gold, situation: Situation) -> list[Mutant]:
    """Every wrong-path mutant and right-path variant of one task, in a stable order."""
    return [*wrong_paths(environment, hints, gold, situation), *right_paths(environment, hints, gold)]


# -- helpers ---------------------------------------------------------------------------------


def _kind(environment: type[ToolEnvironment], tool: str) -> str:
    spec = environment.tools.get(tool)
    return spec.kind if spec is not None else "write"  # unknown: conservative


def _writes(environment: type[ToolEnvironment], gold: Gold) -> Iterator[int]:
    return (i for i, step in enumerate(gold.steps) if _kind(environment, step.tool) == "write")


def _reads(environment: type[ToolEnvironment], gold: Gold) -> Iterator[int]:
    return (i for i, step in enumerate(gold.steps) if _kind(environment, step.tool) == "read")


def _insert(steps: Sequence[Step], at: int, new: Sequence[Step]) -> tuple[Step, ...]:
    return (*steps[:at], *new, *steps[at:])


def _dependents(steps: Sequence[Step], origin: int) -> set[int]:
    """Origins of the steps that quote ``origin``'s result, directly or through others."""
    found = {origin}
    for step in steps:
        if step.origin is not None and references(step) & found:
            found.add(step.origin)
    return found


def shown(value: Any) -> str:
    """A value as mutation ids and messages write it."""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value == value.to_integral_value() else str(value)
    if isinstance(value, str):
        return value
    return repr(value)


def _call_text(call: Call) -> str:
    return f"{call.tool}(" + ", ".join(f"{k}={shown(v)}" for k, v in call.args.items()) + ")"


# -- wrong paths -----------------------------------------------------------------------------


def wrong_paths(
    environment: type[ToolEnvironment], hints: MutationHints, gold: Gold, situation: Situation
) -> Iterator[Mutant]:
    for index in _writes(environment, gold):
        yield from _drop(gold, index)
        yield from _changes(environment, gold, index, situation)
        if gold.steps[index].tool not in hints.harmless_repeats:
            yield _duplicate(gold, index, "duplicate", "wrong")
        yield from _moves(hints, gold, index)
    yield from _skip_identity(hints, gold)
    yield from _forbidden(hints, situation, gold)


def _drop(gold: Gold, index: int) -> Iterator[Mutant]:
    step = gold.steps[index]
    gone = _dependents(gold.steps, index)
    kept = tuple(s for s in gold.steps if s.origin not in gone)
    also = sorted(gone - {index})
    detail = f" (and step(s) {', '.join(map(str, also))} that use its result)" if also else ""
    yield Mutant(f"drop:{index}:{step.tool}", "drop", "wrong", kept, f"drop {step.tool}{detail}", index)


def _changes(environment: type[ToolEnvironment], gold: Gold, index: int, situation: Situation) -> Iterator[Mutant]:
    step, call = gold.steps[index], gold.calls[index]
    actual = call.effective_arguments or {}
    mentioned = situation.all_mentioned
    for name in step.args:
        if name in situation.free_text.get(step.tool, ()):
            continue  # prose the agent composes: no single right value to get wrong
        value = actual.get(name, step.args[name])
        for wrong in wrong_values(environment, step.tool, name, value, situation.final_state, mentioned):
            args = {**step.args, name: wrong}
            changed = Step(step.tool, args, step.origin, step.expect)
            steps = (*gold.steps[:index], changed, *gold.steps[index + 1 :])
            yield Mutant(
                f"change:{index}:{step.tool}.{name}={shown(wrong)}",
                "change",
                "wrong",
                steps,
                f"{step.tool}.{name} = {shown(wrong)} instead of {shown(value)}",
                index,
            )


def _duplicate(gold: Gold, index: int, operator: str, kind: Kind) -> Mutant:
    step = gold.steps[index]
    copy = Step(step.tool, step.args, None, step.expect)
    what = "made twice" if kind == "wrong" else "repeated (the policy allows it)"
    return Mutant(
        f"{operator}:{index}:{step.tool}",
        operator,
        kind,
        _insert(gold.steps, index + 1, [copy]),
        f"{step.tool} {what}",
        index,
    )


def _agree(read: ToolCall, write: ToolCall) -> bool:
    """Whether a read was about the write: same values for every argument both have."""
    a, b = read.effective_arguments or {}, write.effective_arguments or {}
    return all(values_equal(a[name], b[name]) for name in a.keys() & b.keys())


def _moves(hints: MutationHints, gold: Gold, index: int) -> Iterator[Mutant]:
    step = gold.steps[index]
    for read in hints.requires_before.get(step.tool, ()):
        earlier = [j for j in range(index) if gold.steps[j].tool == read and gold.calls[j].status == "ok"]
        if not earlier:
            continue
        # The read the policy means is the one about this write (validate the same transfer).
        about = [j for j in earlier if _agree(gold.calls[j], gold.calls[index])]
        target = (about or earlier)[-1]
        rest = [s for j, s in enumerate(gold.steps) if j != index]
        steps = _insert(rest, target, [step])
        yield Mutant(
            f"move:{index}:{step.tool}<{target}:{read}",
            "move",
            "wrong",
            steps,
            f"{step.tool} before the {read} the policy requires first",
            index,
        )


def _identity_steps(hints: MutationHints, gold: Gold) -> list[int]:
    if hints.identity_tool is None:
        return []
    return [i for i, step in enumerate(gold.steps) if step.tool == hints.identity_tool]


def _skip_identity(hints: MutationHints, gold: Gold) -> Iterator[Mutant]:
    identity = _identity_steps(hints, gold)
    if not identity:
        return
    # Required only where something private follows the verification; a conversation that
    # ends with a failed verification loses nothing by not verifying.
    private = [i for i, c in enumerate(gold.calls) if i > identity[0] and i not in identity and c.status == "ok"]
    if not private:
        return
    kept = tuple(s for i, s in enumerate(gold.steps) if i not in identity)
    yield Mutant("skip_identity", "skip_identity", "wrong", kept, f"act without {hints.identity_tool}", identity[0])


def _forbidden(hints: MutationHints, situation: Situation, gold: Gold) -> Iterator[Mutant]:
    for move in hints.forbidden_moves:
        seen: set[str] = set()
        for insertion in move.insertions(situation):
            mutant = _insertion_mutant(move.name, move.rule, insertion, gold)
            if mutant.id not in seen:
                seen.add(mutant.id)
                yield mutant


def _insertion_mutant(name: str, rule: str, insertion: Insertion, gold: Gold) -> Mutant:
    at = min(max(insertion.at, 0), len(gold.steps))
    new = [Step(call.tool, dict(call.args)) for call in insertion.calls]
    calls = " + ".join(_call_text(call) for call in insertion.calls)
    return Mutant(
        f"forbidden:{name}:{calls}",
        f"forbidden:{name}",
        "wrong",
        _insert(gold.steps, at, new),
        f"{calls} ({rule})",
        None,
        tuple(range(at, at + len(new))),
    )


# -- right paths -----------------------------------------------------------------------------


def right_paths(environment: type[ToolEnvironment], hints: MutationHints, gold: Gold) -> Iterator[Mutant]:
    identity = set(_identity_steps(hints, gold))
    reads = [i for i in _reads(environment, gold) if i not in identity]
    for index in reads:
        yield _reread(gold, index)
    yield from _swaps(gold, reads)
    yield from _reverify(environment, hints, gold, identity)
    for index in _writes(environment, gold):
        yield from _rereads_after(hints, gold, index, reads)
        if gold.steps[index].tool in hints.harmless_repeats and gold.calls[index].status == "ok":
            yield _duplicate(gold, index, "repeat", "right")
        yield from _split_write(environment, gold, index)
    for index in reads:
        yield from _split(gold, index)


def _reread(gold: Gold, index: int) -> Mutant:
    step = gold.steps[index]
    copy = Step(step.tool, step.args, None, step.expect)
    return Mutant(
        f"reread:{index}:{step.tool}",
        "reread",
        "right",
        _insert(gold.steps, index + 1, [copy]),
        f"{step.tool} read again",
        index,
    )


def _swaps(gold: Gold, reads: Sequence[int]) -> Iterator[Mutant]:
    for first, second in itertools.pairwise(reads):
        a, b = gold.steps[first], gold.steps[second]
        if second != first + 1 or a.tool == b.tool or first in references(b):
            continue  # same-tool reads usually follow the conversation (the user's correction)
        steps = (*gold.steps[:first], b, a, *gold.steps[second + 1 :])
        yield Mutant(
            f"swap:{first}:{a.tool}<>{second}:{b.tool}",
            "swap",
            "right",
            steps,
            f"{b.tool} before {a.tool} (independent reads)",
            first,
        )


def _reverify(
    environment: type[ToolEnvironment], hints: MutationHints, gold: Gold, identity: set[int]
) -> Iterator[Mutant]:
    if not identity:
        return
    last = max(identity)
    step = gold.steps[last]
    writes = [i for i in _writes(environment, gold) if i > last]
    at = writes[0] if writes else len(gold.steps)
    copy = Step(step.tool, step.args, None, step.expect)
    yield Mutant(
        "reverify", "reverify", "right", _insert(gold.steps, at, [copy]), f"{step.tool} again before acting", last
    )


def _rereads_after(hints: MutationHints, gold: Gold, index: int, reads: Sequence[int]) -> Iterator[Mutant]:
    step, call = gold.steps[index], gold.calls[index]
    if call.status != "ok":
        return
    reread = hints.rereads.get(step.tool)
    extras = list(reread(call)) if reread is not None else _earlier_read_about(gold, index, reads)
    for extra in extras:
        text = _call_text(extra)
        yield Mutant(
            f"reread_after:{index}:{step.tool}->{text}",
            "reread_after",
            "right",
            _insert(gold.steps, index + 1, [Step(extra.tool, dict(extra.args))]),
            f"{text} after {step.tool}",
            index,
        )


def _earlier_read_about(gold: Gold, index: int, reads: Sequence[int]) -> list[Call]:
    """Without a domain hint: the latest earlier read that shares an argument value with the write."""
    written = list((gold.calls[index].effective_arguments or {}).values())
    for j in reversed([r for r in reads if r < index and gold.calls[r].status == "ok"]):
        arguments = gold.calls[j].effective_arguments or {}
        if any(values_equal(value, other) for value in arguments.values() for other in written):
            return [Call(gold.steps[j].tool, dict(arguments))]
    return []


def _split(gold: Gold, index: int) -> Iterator[Mutant]:
    step = gold.steps[index]
    for name, value in step.args.items():
        if not isinstance(value, list) or len(value) < 2 or gold_reference(value) is not None:
            continue
        half = len(value) // 2
        # The first part keeps the step's origin: a later step quoting the read quotes its first call.
        parts = [
            Step(step.tool, {**step.args, name: part}, origin)
            for part, origin in ((value[:half], step.origin), (value[half:], None))
        ]
        steps = (*gold.steps[:index], *parts, *gold.steps[index + 1 :])
        yield Mutant(
            f"split:{index}:{step.tool}.{name}", "split", "right", steps, f"{step.tool} split over {name}", index
        )


def _split_write(environment: type[ToolEnvironment], gold: Gold, index: int) -> Iterator[Mutant]:
    """A divisible write (``ConductRules.divisible``) in two parts: the same end state by another
    route, which a contract that pins the one call's quantity instead of the state wrongly fails."""
    step, rules = gold.steps[index], environment.conduct
    divisible = rules.divisible.get(step.tool) if rules is not None else None
    if divisible is None or gold.calls[index].status != "ok":
        return
    total = step.args.get(divisible.quantity)
    if isinstance(total, bool) or not isinstance(total, int | float) or gold_reference(total) is not None:
        return
    if isinstance(total, int):
        first: int | float = total // 2
        second: int | float = total - total // 2
    else:
        cents = Decimal(str(total)) * 100
        first, second = float((cents // 2) / 100), float((cents - cents // 2) / 100)
    if not first or not second:
        return
    name = divisible.quantity
    # What adds up with the quantity (a charge for it) is divided in the same proportion.
    shares = {
        k: _share(step.args[k], Decimal(str(first)) / Decimal(str(total))) for k in divisible.also if k in step.args
    }
    if any(share is None for share in shares.values()):
        return
    one = {k: pair[0] for k, pair in shares.items() if pair is not None}
    other = {k: pair[1] for k, pair in shares.items() if pair is not None}
    # The first part keeps the step's origin: a later step quoting the write quotes its first call.
    parts = [
        Step(step.tool, {**step.args, name: first, **one}, step.origin),
        Step(step.tool, {**step.args, name: second, **other}),
    ]
    steps = (*gold.steps[:index], *parts, *gold.steps[index + 1 :])
    yield Mutant(
        f"split_write:{index}:{step.tool}.{name}={shown(first)}+{shown(second)}",
        "split_write",
        "right",
        steps,
        f"{step.tool} in two parts of {name} ({shown(first)} + {shown(second)})",
        index,
    )


def _share(value: Any, fraction: Decimal) -> tuple[Any, Any] | None:
    """``value`` in two parts, the first ``fraction`` of it to the cent (an int to the unit)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal) or gold_reference(value) is not None:
        return None
    exact = Decimal(str(value))
    step = Decimal(1) if isinstance(value, int) else Decimal("0.01")
    first = (exact * fraction).quantize(step)
    kind = type(value)
    return kind(first), kind(exact - first)
