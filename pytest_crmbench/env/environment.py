"""ToolEnvironment: a domain's resettable state and the typed tools that act on it.

Authoring a domain::

    class PaymentsEnvironment(ToolEnvironment):
        domain = "payments"

        def default_state(self) -> dict:
            return load_seed()            # called once per process, then reset by copying

        @tool(kind="read")
        def get_account_balance(self, account_id: str) -> dict:
            \"\"\"Return the current balance of an account.

            Args:
                account_id: Account id such as ``ACC-1001``.
            \"\"\"
            account = self.state["accounts"].get(account_id)
            if account is None:
                raise Rejection(404, "ACCOUNT_NOT_FOUND", f"No account {account_id}")
            return {"account_id": account_id, "balance": account["balance"]}

Tool JSON schemas come from the type hints and the Google-style ``Args:`` docstring section via
pydantic. :meth:`ToolEnvironment.call` is the single entry point for every attempt: it decodes and
validates arguments, enforces which tools are exposed, runs the tool, rolls the state back on a
:class:`Rejection` or a crash, and appends a :class:`~pytest_crmbench.core.evidence.ToolCall` to the trace.
"""

from __future__ import annotations

import functools
import inspect
import json
import random
import re
import string
import types
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin, get_type_hints, overload

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model

from pytest_crmbench.core.errors import EnvironmentDefinitionError
from pytest_crmbench.core.evidence import ToolCall, ToolStatus

ToolKind = Literal["read", "write"]
REJECTION_STATUSES = frozenset({403, 404, 409, 422})
F = TypeVar("F", bound=Callable[..., Any])


class Rejection(Exception):
    """A structured business rejection: the call was well-formed, the business said no.

    Raise it from a tool; the environment restores the state as it was before the call, records
    status ``rejected`` and shows the model ``{status, code, message[, param]}``.
    """

    def __init__(self, status: int, code: str, message: str, *, param: str | None = None) -> None:
        if status not in REJECTION_STATUSES:
            raise ValueError(f"rejection status must be one of {sorted(REJECTION_STATUSES)}, got {status}")
        self.status, self.code, self.message, self.param = status, code, message, param
        super().__init__(f"{status} {code}: {message}")

    def as_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"status": self.status, "code": self.code, "message": self.message}
        if self.param is not None:
            error["param"] = self.param
        return error


@dataclass(frozen=True)
class ToolSpec:
    """A registered tool: its method, argument model and the JSON schema the model sees."""

    name: str
    kind: ToolKind
    description: str
    method: Callable[..., Any]
    args_model: type[BaseModel]

    def json_schema(self) -> dict[str, Any]:
        """OpenAI-style function schema (``{"type": "function", "function": {...}}``).

        Built once per tool (tau2-bench regenerates schemas on every model call: 7 % of its CPU);
        callers get a copy they may modify.
        """
        schema: dict[str, Any] = clone(_function_schema(self.name, self.description, self.args_model))
        return schema


@overload
def tool(fn: F, /) -> F: ...
@overload
def tool(*, name: str | None = None, kind: ToolKind = "write") -> Callable[[F], F]: ...
def tool(fn: F | None = None, /, *, name: str | None = None, kind: ToolKind = "write") -> Any:
    """Register a method of a :class:`ToolEnvironment` subclass as a tool.

    ``kind="read"`` promises the tool never changes state, which lets the environment skip the
    rollback snapshot it takes before every ``write`` call.
    """

    def mark(method: F) -> F:
        method.__crm_tool__ = (name or method.__name__, kind)  # type: ignore[attr-defined]
        return method

    return mark(fn) if fn is not None else mark


class ToolEnvironment:
    """Base class of every domain environment. See the module docstring for an example."""

    domain: ClassVar[str] = ""
    clock_start: ClassVar[str] = "2026-03-02T09:00:00+00:00"
    """The domain's 'now' at reset; :meth:`now` advances one second per call, deterministically."""

    tools: ClassVar[dict[str, ToolSpec]] = {}
    _default_cache: ClassVar[dict[str, Any] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.tools = {**cls.tools, **_collect_tools(cls)}
        cls._default_cache = None

    def __init__(self, initial_state: Mapping[str, Any] | None = None, *, seed: int = 0) -> None:
        # ``initial_state`` is a sparse override; the merged tree is kept untouched as the
        # reference for protected-path checks, and the live state is a private copy of it.
        override = self.prepare_override(initial_state) if initial_state else {}
        self.initial_state: dict[str, Any] = deep_merge(self.cached_default_state(), override)
        self.state: dict[str, Any] = clone(self.initial_state)
        self.seed = seed
        self.rng = random.Random(seed)
        self.trace: list[ToolCall] = []
        self._issued_ids: set[str] = set()
        self._ticks = 0

    # -- the domain's part -------------------------------------------------------------------

    def default_state(self) -> dict[str, Any]:
        """The resettable world. Called once per process; must be deterministic and JSON-like."""
        raise NotImplementedError(f"{type(self).__name__} must implement default_state()")

    def prepare_override(self, override: Mapping[str, Any]) -> Mapping[str, Any]:
        """Turn a task's YAML override into state values (say, money strings into Decimal).

        Called once per reset with the sparse override only; the default returns it unchanged.
        """
        return override

    @classmethod
    def cached_default_state(cls) -> dict[str, Any]:
        if cls._default_cache is None:
            cls._default_cache = cls.default_state(cls.__new__(cls))
        return cls._default_cache

    # -- deterministic helpers for tools -----------------------------------------------------

    def new_id(self, prefix: str, length: int = 6) -> str:
        """A fresh id like ``XFER-HD10VI`` from the seeded RNG, unique within this episode."""
        alphabet = string.ascii_uppercase + string.digits
        while True:
            candidate = f"{prefix}-" + "".join(self.rng.choice(alphabet) for _ in range(length))
            if candidate not in self._issued_ids:
                self._issued_ids.add(candidate)
                return candidate

    def now(self) -> datetime:
        """The domain clock: ``clock_start`` plus one second per call since reset."""
        self._ticks += 1
        return datetime.fromisoformat(self.clock_start) + timedelta(seconds=self._ticks)

    # -- the harness's part ------------------------------------------------------------------

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
    ) -> ToolCall:
        """Attempt one tool call and record it. Never raises for anything the model can send."""
        decoded, problem = _decode_arguments(arguments)
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
            return self._record(turn, node, name, decoded, "error", error=_validation_problem(exc))
        snapshot = clone(self.state) if spec.kind == "write" else None
        effective = {field: getattr(validated, field) for field in type(validated).model_fields}
        try:
            result = spec.method(self, **effective)
        except Rejection as rejection:
            self._restore(snapshot)
            return self._record(turn, node, name, decoded, "rejected", error=rejection.as_error(), effective=effective)
        except Exception as exc:  # a bug in the domain must not crash the episode
            self._restore(snapshot)
            error = {"type": "internal_error", "message": f"{type(exc).__name__}: {exc}"}
            return self._record(turn, node, name, decoded, "error", error=error, effective=effective)
        # A copy: a tool returning a piece of live state must not see its trace rewritten later.
        return self._record(turn, node, name, decoded, "ok", result=clone(result), effective=effective)

    def _visible(self, exposed: Collection[str] | None) -> list[str]:
        return [n for n in self.tools if exposed is None or n in exposed]

    def _restore(self, snapshot: dict[str, Any] | None) -> None:
        if snapshot is not None:
            self.state = snapshot

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
        if marker is None:
            continue
        name, kind = marker
        description, arg_docs = parse_docstring(inspect.getdoc(method) or "")
        if not description:
            raise EnvironmentDefinitionError(
                f"{cls.__name__}.{attr}: a tool needs a docstring (it is the model's description)"
            )
        found[name] = ToolSpec(name, kind, description, method, _args_model(cls, method, arg_docs))
    return found


def _args_model(cls: type, method: Callable[..., Any], arg_docs: dict[str, str]) -> type[BaseModel]:
    try:
        hints = get_type_hints(method)
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


def _reject_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    return value


def _no_bool_numbers(annotation: Any) -> Any:
    """Numeric parameters refuse JSON booleans (pydantic's lax mode would turn ``true`` into 1).

    Everything else stays lax on purpose: a JSON number for a ``Decimal`` amount, say.
    """
    if annotation in (int, float, Decimal):
        return Annotated[annotation, BeforeValidator(_reject_bool)]
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


def _decode_arguments(arguments: str | Mapping[str, Any] | None) -> tuple[Any, dict[str, Any] | None]:
    if arguments is None or arguments == "":
        return {}, None
    if isinstance(arguments, Mapping):
        return dict(arguments), None
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return arguments, {"type": "invalid_json", "message": f"Arguments are not valid JSON: {exc}"}
        if isinstance(decoded, dict):
            return decoded, None
        return arguments, {"type": "invalid_arguments", "message": "Arguments must be a JSON object."}
    return repr(arguments), {"type": "invalid_arguments", "message": "Arguments must be a JSON object."}


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
