"""ToolEnvironment: a domain's resettable state and the typed tools that act on it.

Authoring a domain (``docs/authoring-tasks.md`` walks through a whole one)::

    class BankEnvironment(ToolEnvironment):
        domain = "bank"
        state_model = BankState               # pydantic: validates the seed, overrides and writes

        # default_state(): the seed.json next to this module, read once per process

        @tool(kind="read")
        def get_account_balance(self, account_id: str) -> dict:
            \"\"\"Return the current balance of an account.

            Args:
                account_id: Account id such as ``ACC-1001``.
            \"\"\"
            account = self.get("accounts", account_id)     # 404 ACCOUNT_NOT_FOUND naming account_id
            return {"account_id": account_id, "balance": account["balance"]}

Tool JSON schemas come from the type hints and the Google-style ``Args:`` docstring section via
pydantic. :meth:`ToolEnvironment.call` is the single entry point for every attempt: it decodes and
validates arguments (a broken value rule such as a sub-cent :data:`~pytest_crmbench.env.values.Amount`
is a 422 rejection), enforces which tools are exposed, runs the tool, rolls the state back on a
:class:`Rejection` or a crash, re-validates the state after a write, and appends a
:class:`~pytest_crmbench.core.evidence.ToolCall` to the trace. The helpers tools use (``get``,
``insert``, ``stamp``, ``today``, invariants) are in :mod:`pytest_crmbench.env.kit`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import math
import random
import re
import types
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model

from pytest_crmbench.core.conduct import Access, ConductRules
from pytest_crmbench.core.errors import EnvironmentDefinitionError, format_traceback
from pytest_crmbench.core.evidence import ToolCall, ToolStatus
from pytest_crmbench.core.redaction import redacted_text
from pytest_crmbench.env.access import access_of
from pytest_crmbench.env.dry_run import DryRun
from pytest_crmbench.env.kit import Kit, Violation, collect_invariants
from pytest_crmbench.env.rejection import REJECTION_STATUSES, Rejection, require
from pytest_crmbench.env.state import canonical, references_of, revalidated
from pytest_crmbench.env.values import argument_rejection

__all__ = ["REJECTION_STATUSES", "Rejection", "ToolEnvironment", "ToolSpec", "clone", "deep_merge", "require", "tool"]

ToolKind = Literal["read", "write"]
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ToolSpec:
    """A registered tool: its method, argument model and the JSON schema the model sees."""

    name: str
    kind: ToolKind
    description: str
    method: Callable[..., Any]
    args_model: type[BaseModel]
    dry_run: DryRun | None = None
    """Set for a dry-run tool: a broken rule is answered ``valid: false``, not rejected."""
    prose: tuple[str, ...] = ()
    """Arguments whose values are prose the agent composes (a memo, a reason): the mutation audit
    does not change them and the information-sufficiency audit does not look for them in the brief."""
    counterparty: tuple[str, ...] = ()
    """Arguments naming someone else's record the policy lets the call touch (a transfer's
    destination): left out of the call's :class:`~pytest_crmbench.core.conduct.Access` stamp."""

    def json_schema(self) -> dict[str, Any]:
        """OpenAI-style function schema (``{"type": "function", "function": {...}}``).

        Built once per tool (tau2-bench regenerates schemas on every model call: 7 % of its CPU);
        callers get a copy they may modify.
        """
        schema: dict[str, Any] = clone(_function_schema(self.name, self.description, self.args_model))
        return schema


def tool(
    fn: object = None,
    /,
    *,
    kind: ToolKind | None = None,
    name: str | None = None,
    counterparty: tuple[str, ...] = (),
    prose: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """Register a method of a :class:`ToolEnvironment` subclass as a tool: ``@tool(kind="read")``.

    ``prose`` names arguments whose values the agent composes (``prose=("memo",)``): no single
    value is right, so the release audits neither change nor look for them.
    ``counterparty`` names arguments that carry another customer's record the policy lets this
    call touch (``counterparty=("to_account",)``): conduct rules do not count it as the caller's.

    Every tool declares its kind. ``read`` promises the tool never changes state (no rollback
    snapshot, no re-validation; the mutation audit treats it as harmless to repeat or reorder);
    ``write`` tools are snapshotted, rolled back on a rejection and re-validated after success.
    """
    if fn is not None or kind not in ("read", "write"):
        where = f" on {getattr(fn, '__qualname__', fn)}" if fn is not None else ""
        raise EnvironmentDefinitionError(f"@tool{where}: declare the kind, @tool(kind='read') or @tool(kind='write')")

    def mark(method: F) -> F:
        method.__crm_tool__ = (name or method.__name__, kind, counterparty, prose)  # type: ignore[attr-defined]
        return method

    return mark


class ToolEnvironment(Kit):
    """Base class of every domain environment. See the module docstring for an example.

    A domain larger than one file splits its tools over mixins, each a ``ToolEnvironment``
    subclass without a ``domain``; the concrete class inherits them all, and its tools are those
    of its bases, left to right, then its own.
    """

    domain: ClassVar[str] = ""
    conduct: ClassVar[ConductRules | None] = None
    """The conduct rules every task of the domain is graded against (:mod:`pytest_crmbench.core.conduct`)."""
    tools: ClassVar[dict[str, ToolSpec]] = {}
    _default_cache: ClassVar[dict[str, Any] | None] = None
    _default_violations: ClassVar[tuple[Violation, ...] | None] = None
    _merged: dict[str, Any]
    """The reset state as merged: shares subtrees with the class-wide default, never handed out."""
    _initial_copy: dict[str, Any] | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        inherited: dict[str, ToolSpec] = {}
        for base in cls.__bases__:  # left to right, as the MRO resolves a name defined twice
            for name, spec in getattr(base, "tools", {}).items():
                inherited.setdefault(name, spec)
        cls.tools = {**inherited, **_collect_tools(cls)}
        cls.invariants = collect_invariants(cls)
        cls._default_cache = None
        cls._default_violations = None
        if cls.domain:
            _check_dry_runs(cls)
            if cls.state_model is not None:
                references_of(cls.state_model)  # a misplaced Ref is a definition error, now
            _inherit_counterparties(cls)

    def __init__(self, initial_state: Mapping[str, Any] | None = None, *, seed: int = 0) -> None:
        self._start(seed)
        # ``initial_state`` is a sparse override, merged onto the default. The merged tree shares
        # the subtrees the override does not touch with the class-wide default, so it never leaves
        # this object: the live state is a copy, and so is whatever ``initial_state`` hands out
        # (issue 9 §3: nobody holding it can change another task's world).
        self._merged = self.initial_state_for(initial_state)
        self.state = clone(self._merged)

    @property
    def initial_state(self) -> dict[str, Any]:
        """The state this environment was reset to (protected paths compare with it): a private copy,
        made on first use (an episode's referee keeps its own, see :meth:`initial_state_copy`)."""
        if self._initial_copy is None:
            self._initial_copy = self.initial_state_copy()
        return self._initial_copy

    def initial_state_copy(self) -> dict[str, Any]:
        """A fresh copy of the state this environment was reset to."""
        return clone(self._merged)  # type: ignore[no-any-return]

    def _start(self, seed: int) -> None:
        """The harness's own attributes: seeded id source, clock, empty trace and state."""
        self.seed = seed
        self.rng = random.Random(seed)
        self.trace: list[ToolCall] = []
        self._issued_ids: set[str] = set()
        self._ticks = 0
        self.state = {}
        self._merged = {}
        self._initial_copy = None

    # -- the domain's part -------------------------------------------------------------------

    def default_state(self) -> dict[str, Any]:
        """The resettable world. Called once per process; must be deterministic and JSON-like.

        By default the ``seed.json`` next to the module defining the concrete class, read with
        exact decimals (``parse_float=Decimal``); override to build the world another way.
        """
        path = Path(inspect.getfile(type(self))).with_name("seed.json")
        if not path.is_file():
            raise NotImplementedError(f"{type(self).__name__} must implement default_state() or ship {path}")
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
        return loaded

    @classmethod
    def blank(cls, seed: int = 0) -> ToolEnvironment:
        """An instance with the harness's attributes set (seeded RNG, clock, empty state) but no world
        yet: what :meth:`default_state` is called on."""
        instance = cls.__new__(cls)
        ToolEnvironment._start(instance, seed)
        return instance

    @classmethod
    def _shared_default(cls) -> dict[str, Any]:
        # Built once per class, on a blank but initialised instance (seed 0: default_state may use
        # new_id() or now()), validated by ``state_model``; never handed out, only merged and copied.
        if cls._default_cache is None:
            raw = cls.default_state(cls.blank())
            cls._default_cache = canonical(cls.state_model, raw, where="seed") if cls.state_model else raw
        return cls._default_cache

    @classmethod
    def cached_default_state(cls) -> dict[str, Any]:
        """A private copy of the default world, validated by ``state_model`` once per process (a
        :class:`StateError` names every field of the seed the model refuses)."""
        return clone(cls._shared_default())  # type: ignore[no-any-return]

    @classmethod
    def default_violations(cls) -> tuple[Violation, ...]:
        """The world invariants the default state breaks (none, for a sound seed); once per process."""
        if cls._default_violations is None:
            cls._default_violations = tuple(cls().violations())
        return cls._default_violations

    @classmethod
    def initial_state_for(cls, override: Mapping[str, Any] | None) -> dict[str, Any]:
        """The state a reset starts from: the default with the sparse ``override`` merged in, then
        validated and coerced by ``state_model`` (YAML ``180.5`` becomes ``Decimal("180.50")``)."""
        merged = deep_merge(cls._shared_default(), override or {})
        if cls.state_model is None or not override:
            return merged
        return canonical(cls.state_model, merged, where="initial_state")

    # -- the harness's part ------------------------------------------------------------------

    @classmethod
    def prose_arguments(cls) -> dict[str, frozenset[str]]:
        """Tool -> its arguments declared as prose the agent composes (``@tool(prose=...)``)."""
        return {name: frozenset(spec.prose) for name, spec in cls.tools.items() if spec.prose}

    @classmethod
    def tool_names(cls) -> list[str]:
        return list(cls.tools)

    @classmethod
    def tool_schemas(cls, names: Collection[str] | None = None) -> list[dict[str, Any]]:
        """Schemas of all tools, or of ``names`` in registry order (unknown names are ignored)."""
        return [spec.json_schema() for name, spec in cls.tools.items() if names is None or name in names]

    def call(
        self,
        name: str,
        arguments: str | Mapping[str, Any] | None = None,
        *,
        turn: int = 0,
        node: str | None = None,
        exposed: Collection[str] | None = None,
        state_copy: dict[str, Any] | None = None,
        refused: Mapping[str, str] | None = None,
    ) -> ToolCall:
        """Attempt one tool call and record it. Never raises for anything the model can send.

        ``refused``: the caller refuses the call (the episode's tool-call limit, say): it is recorded
        as an ``error`` with that problem (``{type, message}``) and no tool runs.

        ``state_copy``: a copy of the current state the caller vouches for (the episode's referee
        keeps one): a write tool uses it as its rollback snapshot instead of copying the state again.

        A crash inside the tool itself is recorded as an ``error`` of type ``internal_error`` with its
        traceback; it is a bug in the domain, and the episode harness ends the episode on it.
        """
        decoded, problem = _decode_arguments(arguments)
        if refused is not None:
            problem = dict(refused)
        if not isinstance(name, str):
            name, problem = repr(name)[:100], problem or {"type": "unknown_tool", "message": "A tool name is a string."}
        spec = self.tools.get(name)
        if problem is None and spec is None:
            problem = {
                "type": "unknown_tool",
                "message": f"No tool named {name!r}. Available: {', '.join(self._visible(exposed))}.",
            }
        elif problem is None and exposed is not None and name not in exposed:
            problem = {
                "type": "unexposed_tool",
                "message": f"Tool {name!r} is not available here. Available: {', '.join(self._visible(exposed))}.",
            }
        if problem is not None:
            return self._record(turn, node, name, decoded, "error", error=problem)
        assert spec is not None and isinstance(decoded, dict)
        try:
            validated = spec.args_model.model_validate(decoded)
        except ValidationError as exc:
            rejection = argument_rejection(exc)
            if rejection is None:
                return self._record(turn, node, name, decoded, "error", error=_validation_problem(exc))
            return self._refuse(turn, node, spec, decoded, rejection, effective=None)
        snapshot = (clone(self.state) if state_copy is None else state_copy) if spec.kind == "write" else None
        effective = {field: getattr(validated, field) for field in type(validated).model_fields}
        if self.conduct is not None:
            self.lookups = []
        try:
            result = spec.method(self, **effective)
            if snapshot is not None and self.state_model is not None:
                # The model is the one source of truth: a write must leave a state it accepts.
                self.state = revalidated(self.state_model, self.state, snapshot)
        except Rejection as rejection:
            self._restore(snapshot)
            access = self._access(spec, effective, None, None) if spec.dry_run is not None else None
            return self._refuse(turn, node, spec, decoded, rejection, effective=effective, access=access)
        except Exception as exc:  # a bug in the domain: recorded, never raised into the agent's code
            self._restore(snapshot)
            error = {
                "type": "internal_error",
                "message": redacted_text(f"{type(exc).__name__}: {exc}", MAX_MESSAGE_CHARS),
                "traceback": format_traceback(exc),
            }
            return self._record(turn, node, name, decoded, "error", error=error, effective=effective)
        access = self._access(spec, effective, result, snapshot)
        # A copy: a tool returning a piece of live state must not see its trace rewritten later.
        return self._record(turn, node, name, decoded, "ok", result=clone(result), effective=effective, access=access)

    def _access(
        self, spec: ToolSpec, effective: dict[str, Any], result: Any, before: dict[str, Any] | None
    ) -> Access | None:
        """The call's ownership stamp, in a domain that declares conduct rules (else None)."""
        lookups, self.lookups = self.lookups, None
        if self.conduct is None or self.state_model is None:
            return None
        counterparty = {arg: effective.get(arg) for arg in spec.counterparty}
        return access_of(
            self.state_model,
            spec.kind,
            self.state,
            lookups=lookups or [],
            result=result,
            before=before,
            counterparty=counterparty,
        )

    def _refuse(
        self,
        turn: int,
        node: str | None,
        spec: ToolSpec,
        arguments: Any,
        rejection: Rejection,
        *,
        effective: dict[str, Any] | None,
        access: Access | None = None,
    ) -> ToolCall:
        """Record a broken rule: a rejection, or a dry run's negative (``ok``) answer."""
        self.lookups = None
        if spec.dry_run is not None:
            result = spec.dry_run.refused(rejection)
            return self._record(
                turn, node, spec.name, arguments, "ok", result=result, effective=effective, access=access
            )
        error = rejection.as_error()
        return self._record(turn, node, spec.name, arguments, "rejected", error=error, effective=effective)

    def _visible(self, exposed: Collection[str] | None) -> list[str]:
        return [n for n in self.tools if exposed is None or n in exposed]

    def _restore(self, snapshot: dict[str, Any] | None) -> None:
        if snapshot is not None:
            # A copy of the snapshot: it may be the caller's (``state_copy``), which must stay its own.
            self.state = clone(snapshot)

    def _record(
        self,
        turn: int,
        node: str | None,
        name: str,
        arguments: Any,
        status: ToolStatus,
        *,
        result: Any = None,
        error: dict[str, Any] | None = None,
        effective: dict[str, Any] | None = None,
        access: Access | None = None,
    ) -> ToolCall:
        call = ToolCall(
            index=len(self.trace),
            turn=turn,
            node=node,
            name=name,
            arguments=arguments,
            status=status,
            result=result,
            error=error,
            effective_arguments=effective,
            access=access,
        )
        self.trace.append(call)
        return call


# -- tool registration internals -------------------------------------------------------------


@functools.cache
def _function_schema(name: str, description: str, args_model: type[BaseModel]) -> dict[str, Any]:
    parameters = _strip_titles(args_model.model_json_schema())
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def _collect_tools(cls: type) -> dict[str, ToolSpec]:
    found: dict[str, ToolSpec] = {}
    for attr, method in vars(cls).items():
        marker = getattr(method, "__crm_tool__", None)
        dry_run: DryRun | None = getattr(method, "__crm_dry_run__", None)
        if marker is None and dry_run is None:
            continue
        description, arg_docs = parse_docstring(inspect.getdoc(method) or "")
        if not description:
            raise EnvironmentDefinitionError(
                f"{cls.__name__}.{attr}: a tool needs a docstring (it is the model's description)"
            )
        args_model = _args_model(cls, method, arg_docs)
        if dry_run is not None:
            found[dry_run.name] = ToolSpec(
                dry_run.name, "read", description, _answering(method, dry_run), args_model, dry_run
            )
        elif marker is not None:
            name, kind, counterparty, prose = marker
            for arg in (*counterparty, *prose):
                if arg not in args_model.model_fields:
                    raise EnvironmentDefinitionError(f"{cls.__name__}.{attr}: {arg!r} is not an argument of the tool")
            spec = ToolSpec(name, kind, description, method, args_model, counterparty=counterparty, prose=prose)
            found[name] = spec
    return found


def _answering(check: Callable[..., Any], dry_run: DryRun) -> Callable[..., Any]:
    """The dry-run tool: the check method, its preview answered as ``valid: true``."""

    @functools.wraps(check)
    def answer(env: ToolEnvironment, **arguments: Any) -> dict[str, Any]:
        return dry_run.passed(check(env, **arguments))

    return answer


def _check_dry_runs(cls: type[ToolEnvironment]) -> None:
    """A dry run mirrors a write tool of the domain and takes a subset of its arguments, same types."""
    for spec in cls.tools.values():
        if spec.dry_run is None:
            continue
        target = cls.tools.get(spec.dry_run.of)
        if target is None or target.kind != "write":
            raise EnvironmentDefinitionError(
                f"{cls.__name__}: dry run {spec.name!r} mirrors {spec.dry_run.of!r}, which is not a write tool of the domain"
            )
        mine, theirs = spec.args_model.model_fields, target.args_model.model_fields
        for arg, field in mine.items():
            if arg not in theirs or theirs[arg].rebuild_annotation() != field.rebuild_annotation():
                raise EnvironmentDefinitionError(
                    f"{cls.__name__}: dry run {spec.name!r} argument {arg!r} must also be an argument of "
                    f"{target.name!r} with the same type"
                )


def _inherit_counterparties(cls: type[ToolEnvironment]) -> None:
    """A dry run touches what the write it mirrors would: the same counterparty arguments."""
    for name, spec in list(cls.tools.items()):
        if spec.dry_run is not None and not spec.counterparty:
            mirrored = cls.tools[spec.dry_run.of].counterparty
            cls.tools[name] = dataclasses.replace(
                spec, counterparty=tuple(a for a in mirrored if a in spec.args_model.model_fields)
            )


def _args_model(cls: type, method: Callable[..., Any], arg_docs: dict[str, str]) -> type[BaseModel]:
    try:
        hints = get_type_hints(method, include_extras=True)
    except Exception as exc:
        raise EnvironmentDefinitionError(f"{cls.__name__}.{method.__name__}: cannot resolve type hints: {exc}") from exc
    fields: dict[str, Any] = {}
    for param in list(inspect.signature(method).parameters.values())[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise EnvironmentDefinitionError(f"{cls.__name__}.{method.__name__}: tools cannot take *args/**kwargs")
        if param.name not in hints:
            raise EnvironmentDefinitionError(
                f"{cls.__name__}.{method.__name__}: parameter {param.name!r} needs a type hint"
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        annotation = _no_bool_numbers(hints[param.name])
        fields[param.name] = (annotation, Field(default, description=arg_docs.get(param.name)))
    model_name = "".join(part.title() for part in method.__name__.split("_")) + "Args"
    return create_model(model_name, __config__=ConfigDict(extra="forbid"), **fields)


_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _reject_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    return value


def _plain_number(value: Any) -> Any:
    """A number or a plain ASCII decimal string, within bounds every tool can compute with.

    ``"1_0"``, ``"٣"`` (Arabic-Indic three), ``"NaN"``, ``1E+999999`` or ``1e30`` would pass
    ``Decimal()`` and then crash a tool's arithmetic (Python's decimal context holds 28 digits):
    that is the model's malformed input, a structured error it can recover from, not a tool's bug.
    """
    _reject_bool(value)
    if isinstance(value, str):
        text = value.strip()
        if not _PLAIN_NUMBER.fullmatch(text) or len(text) > MAX_NUMBER_TEXT:
            raise ValueError("expected a number in plain decimal notation, such as 12.50")
        value = text
    if isinstance(value, (str, int, float, Decimal)):
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
            raise ValueError(NUMBER_RANGE)
        number = Decimal(str(value)) if not isinstance(value, Decimal) else value
        if not number.is_finite():
            raise ValueError("expected a finite number")
        if number and (number.adjusted() >= MAX_INTEGER_DIGITS or -number.as_tuple().exponent > MAX_DECIMALS):  # type: ignore[operator]
            raise ValueError(NUMBER_RANGE)
    return value


def _no_bool_numbers(annotation: Any) -> Any:
    """Numeric parameters refuse JSON booleans (pydantic's lax mode would turn ``true`` into 1),
    non-finite and out-of-range values, and numbers written other than in plain decimal notation.

    Otherwise lax on purpose: a JSON number for a ``Decimal`` amount, say.
    """
    if annotation in (int, float, Decimal):
        return Annotated[annotation, BeforeValidator(_plain_number)]
    if get_origin(annotation) in (Union, types.UnionType):
        return Union[tuple(_no_bool_numbers(arg) for arg in get_args(annotation))]  # noqa: UP007
    return annotation


_ARG_LINE = re.compile(r"^\s{2,}(\*{0,2}\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {arg: description})."""
    description_lines: list[str] = []
    args: dict[str, str] = {}
    section = "description"
    current: str | None = None
    for line in doc.splitlines():
        header = line.strip().rstrip(":").lower()
        if line.strip().endswith(":") and header in (
            "args",
            "arguments",
            "parameters",
            "returns",
            "raises",
            "example",
            "examples",
        ):
            section = "args" if header in ("args", "arguments", "parameters") else "other"
            continue
        if section == "description":
            description_lines.append(line)
        elif section == "args":
            match = _ARG_LINE.match(line)
            if match:
                current = match.group(1)
                args[current] = match.group(2).strip()
            elif current and line.strip():
                args[current] = f"{args[current]} {line.strip()}".strip()
    return " ".join(" ".join(description_lines).split()), args


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


MAX_ARGUMENT_CHARS = 100_000
"""Longest raw argument string a call may send (a tool call is a few hundred characters)."""
MAX_ARGUMENT_DEPTH = 32
MAX_ARGUMENT_NODES = 10_000
MAX_NUMBER_DIGITS = 100
"""Digits a number may have in the JSON text of the arguments (Python refuses past 4,300)."""
MAX_INTEGER_DIGITS, MAX_DECIMALS = 15, 10
"""A numeric parameter holds at most 15 integer digits and 10 decimals: 25 digits, so arithmetic in
Python's 28-digit decimal context (quantizing, summing a few amounts) stays exact and never raises."""
MAX_INT_BITS = 50  # 2**50 > 10**15
MAX_NUMBER_TEXT = 40
NUMBER_RANGE = f"the number is out of range (at most {MAX_INTEGER_DIGITS} integer digits and {MAX_DECIMALS} decimals)"
MAX_MESSAGE_CHARS = 500
_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"')


def _too_big(message: str) -> dict[str, Any]:
    return {"type": "invalid_arguments", "message": message}


def _decode_arguments(arguments: Any) -> tuple[Any, dict[str, Any] | None]:
    """The arguments as a dict, or what to record and the structured error the model sees.

    Bounded, because the model controls this text: a 5,000-digit number or nesting 100,000 deep
    would otherwise raise inside the decoder (issue 11 item 1) and crash the episode.
    """
    if arguments is None or arguments == "":
        return {}, None
    if isinstance(arguments, Mapping):
        problem = _shape_problem(arguments)
        # Not repr(): a tree too deep to keep is too deep to print.
        return (dict(arguments), None) if problem is None else ("<arguments not recorded>", _too_big(problem))
    if not isinstance(arguments, str):
        return f"<{type(arguments).__name__}>", _too_big("Arguments must be a JSON object.")
    if len(arguments) > MAX_ARGUMENT_CHARS:
        shown = arguments[:1000] + "..."
        return shown, _too_big(f"Arguments are {len(arguments):,} characters long; at most {MAX_ARGUMENT_CHARS:,}.")
    depth = _json_depth(arguments)
    if depth > MAX_ARGUMENT_DEPTH:
        return arguments, _too_big(f"Arguments nest {depth} levels deep; at most {MAX_ARGUMENT_DEPTH}.")
    try:
        decoded = json.loads(arguments, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        return arguments, {"type": "invalid_json", "message": f"Arguments are not valid JSON: {exc}"}
    except ValueError as exc:  # a number past the bounds, NaN or Infinity
        return arguments, _too_big(f"Arguments are not valid: {exc}")
    if isinstance(decoded, dict):
        problem = _shape_problem(decoded)
        return (decoded, None) if problem is None else (arguments, _too_big(problem))
    return arguments, _too_big("Arguments must be a JSON object.")


def _json_depth(text: str) -> int:
    """Deepest ``[``/``{`` nesting of JSON text, strings ignored (no recursion: the text may be hostile)."""
    deepest = depth = 0
    for char in _STRINGS.sub('""', text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number has more than {MAX_NUMBER_DIGITS} digits")
    return int(text)


def _json_float(text: str) -> float:
    if sum(c.isdigit() for c in text) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number has more than {MAX_NUMBER_DIGITS} digits")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _json_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a JSON number")


def _shape_problem(tree: Any) -> str | None:
    """Why a decoded (or Python-built) argument tree is too deep or too large, or None."""
    stack: list[tuple[Any, int]] = [(tree, 1)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_ARGUMENT_DEPTH:
            return f"Arguments nest more than {MAX_ARGUMENT_DEPTH} levels deep."
        if nodes > MAX_ARGUMENT_NODES:
            return f"Arguments hold more than {MAX_ARGUMENT_NODES:,} values."
        if isinstance(node, Mapping):
            stack.extend((value, depth + 1) for value in node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend((value, depth + 1) for value in node)
    return None


def _validation_problem(exc: ValidationError) -> dict[str, Any]:
    details = [
        f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
        for err in exc.errors(include_url=False)
    ]
    return {"type": "invalid_arguments", "message": "Arguments do not match the tool schema: " + "; ".join(details)}


# -- state trees -----------------------------------------------------------------------------


def clone(tree: Any) -> Any:
    """Copy a JSON-like tree (dicts, lists, scalars); faster than ``copy.deepcopy`` for this shape."""
    if type(tree) is dict:
        return {k: clone(v) if type(v) in (dict, list) else v for k, v in tree.items()}
    if type(tree) is list:
        return [clone(v) if type(v) in (dict, list) else v for v in tree]
    return tree


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``override`` merged in: mappings merge recursively, anything else replaces.

    Neither input is modified; subtrees the override does not touch are shared with ``base``.
    """
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged
