"""What a domain tells the contract mutation audit about its policy: ``envs/<domain>/mutations.py``.

The audit derives most trajectories from the gold path and the tools' read/write kinds alone. A
few operators need the domain's policy, which a domain declares in an optional ``mutations.py``
beside its ``environment.py``, exporting ``HINTS = MutationHints(...)``:

* ``identity_tool``: the read that verifies the customer (``skip identity`` and ``verify again``);
  taken from the domain's conduct rules (``conduct.py``) when they declare one;
* ``requires_before``: write -> reads the policy requires before it (``move a write before ...``);
  the conduct rules' preconditions are added to it;
* ``harmless_repeats``: writes the policy allows again (a receipt copy): repeating one is a right path;
* ``rereads``: write -> the reads that look at what it changed (``re-read after a write``);
* ``forbidden_moves``: writes (and disclosing reads) the policy forbids, each with the situation
  it applies in, computed from the task, its gold replay and the world.

A domain without the module gets the generic operators only.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.core.matchers import operator_of
from pytest_crmbench.core.spec import Task
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import PACKAGE

MODULE = "mutations"


@dataclass(frozen=True)
class Call:
    """A tool call a hint adds to a trajectory (literal arguments)."""

    tool: str
    args: Mapping[str, Any]


@dataclass(frozen=True)
class Insertion:
    """Calls added to the gold path before gold step ``at`` (``at == len(path)``: at the end)."""

    at: int
    calls: tuple[Call, ...]


@dataclass(frozen=True)
class Situation:
    """What a forbidden move may look at: the task, its gold replay and the world it starts in."""

    task: Task
    calls: tuple[ToolCall, ...]
    """The gold replay's trace: one call per gold step, with effective arguments and results."""
    initial_state: Mapping[str, Any]
    final_state: Mapping[str, Any]
    """The world at the end of the gold replay (generated records included)."""
    free_text: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Tool -> arguments whose values are prose the agent composes (the tools' ``prose=`` declarations)."""
    kinds: Mapping[str, str] = field(default_factory=dict)
    """Tool -> ``read`` or ``write``, as the environment declares them."""

    @property
    def end(self) -> int:
        return len(self.calls)

    def calls_of(self, tool: str, *, ok: bool = True) -> list[ToolCall]:
        return [c for c in self.calls if c.name == tool and (c.status == "ok" or not ok)]

    def after_last(self, tool: str) -> int:
        """The position just after the last gold call of ``tool`` (0 when there is none)."""
        return max((c.index + 1 for c in self.calls if c.name == tool), default=0)

    @functools.cached_property
    def text(self) -> str:
        """The user instruction and every gold argument: what the task names."""
        return "\n".join([self.task.user.text(), *(_words(c.graded_arguments()) for c in self.calls)])

    def mentioned(self, collection: str) -> list[str]:
        """Ids of ``initial_state[collection]`` the user instruction or a gold argument names, in order."""
        records = self.initial_state.get(collection)
        if not isinstance(records, Mapping):
            return []
        found = [(m.start(), key) for key in records if (m := _token(str(key)).search(self.text)) is not None]
        return [key for _, key in sorted(found)]

    def held_by_others(self, collection: str, owner_field: str, owner: str) -> list[tuple[str, str]]:
        """(id, holder) of the records of ``collection`` the task names that ``owner`` does not hold:
        the other customer's payment, case or booking a caller quotes."""
        records = self.initial_state.get(collection) or {}
        return [
            (key, holder)
            for key in self.mentioned(collection)
            if (holder := records[key].get(owner_field)) is not None and holder != owner
        ]

    @functools.cached_property
    def all_mentioned(self) -> frozenset[str]:
        """Every id of every top-level collection of the world that the task names."""
        names = [name for name, records in self.initial_state.items() if isinstance(records, Mapping)]
        return frozenset(key for name in names for key in self.mentioned(name))

    def guarded(self, value: str, *, kind: str | None = None) -> bool:
        """Whether the contract forbids calls naming ``value``: a ``forbidden.params`` pattern
        with it as an argument (of a ``kind`` tool, when given).

        A contract that guards something in one way must guard it in every way the policy names;
        domains use this to scope moves such as "read another customer's account" to the tasks
        that are about it, rather than demand a privacy check from every task that names a payee.
        """
        return any(
            (kind is None or self.kinds.get(spec.tool, "write") == kind)
            and any(value in _operands(constraint) for constraint in spec.args.values())
            for spec in self.task.contract.forbidden.params
        )


@dataclass(frozen=True)
class ForbiddenMove:
    """A move the policy forbids in some situation: ``insertions`` says where and how, per task."""

    name: str
    rule: str
    insertions: Callable[[Situation], Iterable[Insertion]]


Reread = Callable[[ToolCall], Iterable[Call]]
"""The reads that look at what one successful write call changed."""


@dataclass(frozen=True)
class MutationHints:
    """A domain's policy, as the mutation audit needs it. Every field is optional."""

    identity_tool: str | None = None
    requires_before: Mapping[str, Sequence[str]] = field(default_factory=dict)
    harmless_repeats: frozenset[str] = frozenset()
    rereads: Mapping[str, Reread] = field(default_factory=dict)
    forbidden_moves: Sequence[ForbiddenMove] = ()


@dataclass(frozen=True)
class LoadedHints:
    hints: MutationHints
    source: Path | None
    problems: list[SpecError]


def load_hints(environment: type[ToolEnvironment]) -> LoadedHints:
    """The ``HINTS`` of the domain folder's ``mutations.py``; generic hints when there is none."""
    package = environment.__module__.rpartition(".")[0]
    if not package.startswith(f"{PACKAGE}."):
        return LoadedHints(with_conduct(MutationHints(), environment), None, [])  # registered in code: no folder
    folders = [Path(p) for p in getattr(importlib.import_module(package), "__path__", [])]
    source = next((folder / f"{MODULE}.py" for folder in folders if (folder / f"{MODULE}.py").is_file()), None)
    if source is None:
        return LoadedHints(with_conduct(MutationHints(), environment), None, [])
    try:
        module = importlib.import_module(f"{package}.{MODULE}")
    except Exception as exc:  # the domain's code: report it, never crash validation
        return LoadedHints(
            MutationHints(), source, [SpecError(f"cannot import: {type(exc).__name__}: {exc}", file=source)]
        )
    hints = getattr(module, "HINTS", None)
    if not isinstance(hints, MutationHints):
        problem = SpecError("must define HINTS = MutationHints(...) (pytest_crmbench.release.mutation)", file=source)
        return LoadedHints(MutationHints(), source, [problem])
    problems = [SpecError(message, file=source, field="HINTS") for message in hint_problems(hints, environment)]
    return LoadedHints(with_conduct(MutationHints() if problems else hints, environment), source, problems)


def with_conduct(hints: MutationHints, environment: type[ToolEnvironment]) -> MutationHints:
    """The hints with what the domain's conduct rules already say (one declaration, not two): the
    identity tool, and each precondition's check as a read its write requires first."""
    rules = environment.conduct
    if rules is None:
        return hints
    required = {write: tuple(reads) for write, reads in hints.requires_before.items()}
    for rule in rules.preconditions:
        required[rule.tool] = tuple(dict.fromkeys((*required.get(rule.tool, ()), rule.after)))
    identity = rules.identity.tool if rules.identity is not None else hints.identity_tool
    return dataclasses.replace(hints, identity_tool=identity, requires_before=required)


def hint_problems(hints: MutationHints, environment: type[ToolEnvironment]) -> Iterator[str]:
    """Hints that name unknown tools or the wrong kind of tool."""
    tools = environment.tools

    def kind_problem(name: str, kind: str, role: str) -> str | None:
        if name not in tools:
            return f"{role}: unknown tool {name!r}"
        if tools[name].kind != kind:
            return f"{role}: {name} is a {tools[name].kind} tool, expected a {kind}"
        return None

    checks: list[tuple[str, str, str]] = []
    if hints.identity_tool is not None:
        checks.append((hints.identity_tool, "read", "identity_tool"))
    for write, reads in hints.requires_before.items():
        checks.append((write, "write", "requires_before"))
        checks.extend((read, "read", f"requires_before[{write}]") for read in reads)
    checks.extend((name, "write", "harmless_repeats") for name in sorted(hints.harmless_repeats))
    checks.extend((name, "write", "rereads") for name in hints.rereads)
    for name, kind, role in checks:
        problem = kind_problem(name, kind, role)
        if problem:
            yield problem
    names = [move.name for move in hints.forbidden_moves]
    for name in sorted({n for n in names if names.count(n) > 1}):
        yield f"forbidden_moves: {name!r} is declared twice"


def _token(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9]|-[A-Za-z0-9])")


def _words(tree: Any) -> str:
    if isinstance(tree, Mapping):
        return " ".join(_words(v) for v in tree.values())
    if isinstance(tree, (list, tuple)):
        return " ".join(_words(v) for v in tree)
    return str(tree)


def _operands(constraint: Any) -> list[Any]:
    found = operator_of(constraint)
    if found is None:
        return [constraint]
    _, operand = found
    return list(operand) if isinstance(operand, list) else [operand]
