"""Model access through litellm: lazy import, our own retry loop, failure classification, usage and cost.

Facts this module is built on (measured, see the project's research notes on litellm):

* ``import litellm`` costs seconds and, without ``LITELLM_OFFLINE_MODE``, reaches for the network
  to refresh its cost map. It is imported on the first model call only, with offline mode on, so
  collection and gold runs never pay for it.
* Its defaults are a 600 s timeout and silent SDK retries. Every call passes ``timeout`` and
  ``max_retries=0``; retries, backoff (honouring ``Retry-After``) and the classification of what
  is left happen here.
* Exception classes map imperfectly (402/403 arrive as plain ``APIError``, a refused connection
  as ``InternalServerError``), so the classification reads ``status_code`` as well as the class.
* An unpriced model yields no cost. Cost is ours: cache-neutral (spec §A.3), prompt tokens x input
  price + completion tokens x output price, from a user price table first, then litellm's bundled
  map; unknown stays ``None``, never 0.

Failure classes, by exception type and provider error code (never by the wording of a message):
transient provider trouble is retried, then becomes :class:`InfraError`; fatal provider or
configuration errors become :class:`InfraError` at once; context overflow and content-filter
refusals (``ContentPolicyViolationError``, or a 400 with code ``content_filter`` as Azure names it,
``content_policy_violation`` as OpenAI does, ``context_length_exceeded``) are the model's own
limits: :class:`AgentAbort` for the agent under test, but :class:`InfraError` for the simulator
and the judge, which are not under test. Anything else (an exception that is no provider's
answer: a bug in litellm or here) is a :class:`HarnessError` carrying its traceback: shown
loudly, never scored, never mistaken for an outage.

Nothing is kept at module level: a :class:`Transport` (one per session, shared by the session's
model configs) holds the litellm import, the offline environment it set (undone by
:meth:`Transport.close`) and the first-call guard.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import yaml

from pytest_crmbench.core.errors import (
    AgentAbort,
    AgentError,
    CrmbenchError,
    HarnessError,
    InfraError,
    format_traceback,
)
from pytest_crmbench.core.evidence import Role
from pytest_crmbench.core.redaction import redacted_text
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.models.leftovers import Leftovers, thread_loop

MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class Price:
    """USD per token, input and output (cache-neutral: cached prompt tokens cost the same)."""

    input_per_token: Decimal
    output_per_token: Decimal

    def cost(self, prompt_tokens: int, completion_tokens: int) -> Decimal:
        return prompt_tokens * self.input_per_token + completion_tokens * self.output_per_token


OutputMode = Literal["json_schema", "json_object", "prompt"]
"""How a role asks for structured output (issue 32 item 6): a strict JSON schema where the server
takes one (OpenAI and most hosted providers); ``json_object`` with the schema in the prompt where
it takes only that (llama.cpp's server refuses ``json_schema`` with a 500); else the prompt alone.
Every answer is validated and asked again either way, so a weaker mode costs retries, not scores."""
OUTPUT_MODES: tuple[OutputMode, ...] = ("json_schema", "json_object", "prompt")


@dataclass(frozen=True)
class ModelConfig:
    """How one role calls its model. Everything is passed per call; no litellm globals are set."""

    model: str
    api_base: str | None = None
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 2.0
    prices: Mapping[str, Price] = field(default_factory=dict)
    transport: Transport = field(default_factory=lambda: Transport(), compare=False, repr=False)
    """Shared by every config of a session (see :class:`Transport`)."""
    output_mode: OutputMode = "json_schema"


DEFAULT_ROLE_MODEL = "gpt-5-mini"
"""The simulator and judge model of the spec's protocol (§A.3), used when a model run names none."""


@dataclass(frozen=True)
class ModelSettings:
    """The run's model options: which model plays each role and how every call is made."""

    agent: str | None = None
    user: str | None = None
    judge: str | None = None
    api_base: str | None = None
    """The agent model's server (``--crm-api-base``)."""
    user_api_base: str | None = None
    judge_api_base: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 2.0
    prices: Mapping[str, Price] = field(default_factory=dict)
    transport: Transport = field(default_factory=lambda: Transport(), compare=False, repr=False)
    output_modes: dict[Role, OutputMode] = field(default_factory=dict, compare=False)
    """Per role, the structured-output form its server takes, as the preflight found it (filled in
    place before the first task; under xdist sent to the workers); json_schema when not probed."""

    def model(self, role: Role) -> str | None:
        return {"agent": self.agent, "user": self.user, "judge": self.judge}[role]

    def api_base_of(self, role: Role) -> str | None:
        """A role's server: its own option; else the agent's server when it plays the agent's model
        (same model, same server); else None, the provider's own API (issue 12: a local server
        rarely serves the simulator's and judge's ``gpt-5-mini``)."""
        own = {"agent": self.api_base, "user": self.user_api_base, "judge": self.judge_api_base}[role]
        if own or role == "agent":
            return own
        return self.api_base if self.model(role) == self.agent else None

    def config(self, role: Role, *, seed: int | None = None) -> ModelConfig:
        """How ``role`` calls its model (the role must have one)."""
        model = self.model(role)
        assert model is not None, f"no {role} model configured"
        return ModelConfig(
            model=model,
            api_base=self.api_base_of(role),
            temperature=self.temperature,
            seed=seed,
            max_tokens=self.max_tokens,
            timeout_s=self.timeout_s,
            retries=self.retries,
            backoff_s=self.backoff_s,
            prices=self.prices,
            transport=self.transport,
            output_mode=self.output_modes.get(role, "json_schema"),
        )


def load_price_table(path: Path) -> dict[str, Price]:
    """``{model: {input: <USD per 1M tokens>, output: <USD per 1M tokens>}}`` from a YAML/JSON file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CrmbenchError(f"price table {path}: {exc}") from None
    if not isinstance(data, dict):
        raise CrmbenchError(f"price table {path}: expected a mapping of model -> {{input, output}}")
    prices = {}
    for model, entry in data.items():
        if not isinstance(entry, dict) or set(entry) != {"input", "output"}:
            raise CrmbenchError(
                f"price table {path}: {model}: expected {{input: ..., output: ...}} in USD per 1M tokens"
            )
        try:
            prices[str(model)] = Price(Decimal(str(entry["input"])) / MILLION, Decimal(str(entry["output"])) / MILLION)
        except ArithmeticError:
            raise CrmbenchError(f"price table {path}: {model}: prices must be numbers") from None
    return prices


# -- litellm, imported on first use ---------------------------------------------------------------

MISSING_LITELLM = "model runs need litellm, which is not installed: pip install 'crmbench[models]'"


def litellm_installed() -> bool:
    """Whether litellm can be imported, without importing it (that takes seconds)."""
    try:
        return importlib.util.find_spec("litellm") is not None
    except ValueError:  # sys.modules["litellm"] is None: imports of it are blocked
        return False


OFFLINE_ENVIRONMENT = {"LITELLM_OFFLINE_MODE": "true", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
"""Set (when unset) before litellm is imported and while it is used: no cost-map fetch, no tokenizer
downloads. litellm reads them at import time and again on some calls."""


class Transport:
    """A session's door to litellm: its import (offline, quiet) and the first-call guard.

    litellm builds and caches its HTTP client on first use without a lock: concurrent first calls
    of one (model, api_base) each build one, and all but the cached one are dropped with their
    sockets open. So the first call per key runs alone; the threads that queued behind it then
    call concurrently.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._first_calls = threading.Lock()
        self._warm: set[tuple[str, str | None]] = set()
        self._module: ModuleType | None = None
        self._set_environment: dict[str, str] = {}
        self._background: threading.Thread | None = None
        self._leftovers = Leftovers()
        self.import_s: float | None = None
        """How long litellm's import took in this session (None: not imported by it)."""

    def import_in_background(self) -> None:
        """Start importing litellm on a thread of its own (seconds of CPU), so the import overlaps
        collection and set-up instead of delaying the first model call.

        There is one import: :meth:`litellm` holds the transport's lock for the whole import, so a
        caller that arrives meanwhile waits for it rather than importing again, and no thread
        holds a module's import lock while it waits on the transport's (nothing imported at module
        level calls a model). The thread swallows a failure: the module stays unset, so the first
        real call imports again and raises exactly what it would have raised without this.
        """
        if self._module is not None or self._background is not None:
            return
        self._background = threading.Thread(target=self._import_quietly, name="crmbench-import-litellm")
        self._background.start()

    def _import_quietly(self) -> None:
        # A failure is not lost: the first real call imports again and raises it where it always has.
        with contextlib.suppress(Exception):
            self.litellm()

    def litellm(self) -> ModuleType:
        with self._lock:
            if self._module is None:
                for name, value in OFFLINE_ENVIRONMENT.items():
                    if name not in os.environ:
                        os.environ[name] = value
                        self._set_environment[name] = value
                started = time.monotonic()
                try:
                    module = import_for_good("litellm")
                except ImportError:
                    raise CrmbenchError(MISSING_LITELLM) from None
                self.import_s = time.monotonic() - started
                setattr(module, "suppress_debug_info", True)  # no "Give Feedback" banners on every exception  # noqa: B010
                self._module = module
            return self._module

    def send(self, kwargs: dict[str, Any]) -> Any:
        """``litellm.completion(**kwargs)``; the first call per (model, api_base) runs alone."""
        litellm = self.litellm()
        key = (str(kwargs["model"]), kwargs.get("api_base"))
        with self.watched():
            if key not in self._warm:
                with self._first_calls:
                    # Checked again under the lock: the threads that queued behind the first call
                    # must not each make their call inside the lock (that serialised a 16-way wave).
                    if key not in self._warm:
                        try:
                            return litellm.completion(**kwargs)
                        finally:
                            self._warm.add(key)
            return litellm.completion(**kwargs)

    @contextlib.contextmanager
    def watched(self) -> Iterator[None]:
        """Around a litellm call: the event loop it leaves on this thread is closed with the session."""
        loop = thread_loop()
        try:
            yield
        finally:
            self._leftovers.note_loop(loop)

    def close(self) -> None:
        """Close what litellm left open (its cached clients' sockets, an event loop) and undo the
        environment this transport set: its session is over (:mod:`.leftovers`)."""
        if self._background is not None:
            self._background.join()  # never leave an import running into interpreter shutdown
        self._leftovers.close(self._module)
        with self._lock:
            for name, value in self._set_environment.items():
                if os.environ.get(name) == value:
                    del os.environ[name]
            self._set_environment.clear()


def import_for_good(name: str) -> ModuleType:
    """Import a large module that stays for the life of the process, keeping the cyclic garbage
    collector out of its way (litellm: some 400,000 objects, mostly module-level objects of
    litellm, openai and pydantic).

    While it imports, the collector is paused: the import only adds objects, yet as the heap grows
    each full collection traverses all of it again (eight of them, about a third of the import's
    time). Afterwards what is unreachable is collected once and every object alive is frozen
    (``gc.freeze``): no later collection traverses them again (each full collection of a run cost
    about 90 ms before), nor does the interpreter's finalization at exit (about 0.6 s). The pause
    is process-wide, so another thread that allocates meanwhile (collection, when the import runs
    in the background) goes uncollected for those seconds too.
    A module imported already is only looked up: the process pays for this once.

    Why freeze, although it is process-wide too (issue 25): Python has no way to freeze only the
    import's objects, so whatever else is alive at that moment (pytest's and the user's objects)
    is frozen with them. Frozen objects are still freed by reference counting; only a reference
    cycle among them is never collected. Against that, measured after litellm's import (380,315
    objects frozen): a full collection costs 0 ms frozen against 270-290 ms not frozen on a loaded
    2-core machine (90 ms quiet), 1.03 s in a 73-task run at 16-way, where pause and freeze together
    took the efficiency from 0.59 to 0.64. Only a model run imports litellm; a gold run and
    collection never reach here.
    """
    if name in sys.modules:
        return importlib.import_module(name)
    enabled = gc.isenabled()
    gc.disable()
    try:
        module = importlib.import_module(name)
    finally:
        if enabled:
            gc.enable()
    gc.collect()
    gc.freeze()
    return module


def litellm_module() -> ModuleType:
    """litellm, imported offline (for callers outside a session: benchmarks, test set-up)."""
    return Transport().litellm()


def map_price(model: str, transport: Transport) -> Price | None:
    """The price in litellm's bundled cost map, trying the id with and without its provider prefix."""
    cost_map: Mapping[str, Any] = transport.litellm().model_cost
    for key in (model, model.split("/", 1)[-1]):
        entry = cost_map.get(key)
        if isinstance(entry, dict) and "input_cost_per_token" in entry and "output_cost_per_token" in entry:
            return Price(Decimal(str(entry["input_cost_per_token"])), Decimal(str(entry["output_cost_per_token"])))
    return None


# -- results -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolRequest:
    """One tool call the model asked for; ``arguments`` is the raw string (possibly not JSON)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Completion:
    content: str
    tool_calls: tuple[ToolRequest, ...]
    message: dict[str, Any] = field(repr=False)
    """The assistant message to append to the history, reasoning content included."""
    finish_reason: str | None = None

    def without_tool_calls(self) -> Completion:
        """This answer as a plain reply: its tool calls dropped from the result and the history message."""
        message = {k: v for k, v in self.message.items() if k != "tool_calls"}
        return Completion(content=self.content, tool_calls=(), message=message, finish_reason=self.finish_reason)


Failure = Literal["transient", "fatal", "model", "harness"]
_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_FATAL_STATUS = frozenset({400, 401, 402, 403, 404, 405, 413, 422})
_MODEL_TYPES = frozenset({"ContextWindowExceededError", "ContentPolicyViolationError"})
_MODEL_CODES = frozenset({"content_filter", "content_policy_violation", "context_length_exceeded"})
"""Provider error codes that are the model's own limit (Azure's and OpenAI's names for a refusal)."""
_TRANSIENT_TYPES = frozenset(
    {"Timeout", "APITimeoutError", "RateLimitError", "APIConnectionError", "InternalServerError"}
)
_PROVIDER_MODULES = ("litellm", "openai", "httpx", "httpcore", "anthropic", "aiohttp", "requests", "urllib3")


def error_code(exc: BaseException) -> str | None:
    """The provider's error code (``code`` of the error body), wherever the SDK put it."""
    code = getattr(exc, "code", None)
    body = getattr(exc, "body", None)
    if not isinstance(code, str) and isinstance(body, Mapping):
        inner = body.get("error", body)
        code = inner.get("code") if isinstance(inner, Mapping) else None
    return code if isinstance(code, str) else None


def is_provider_error(exc: BaseException) -> bool:
    """An answer of the provider or of the network: a status code, an SDK or HTTP exception class, a
    socket error. Anything else raised while calling a model is a bug in the calling code."""
    if isinstance(getattr(exc, "status_code", None), int) or isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return any(cls.__module__.split(".")[0] in _PROVIDER_MODULES for cls in type(exc).__mro__)


_CREDENTIAL_PROBLEM = re.compile(
    r"missing credentials|api_key client option must be set|incorrect api key|invalid api key|invalid x-api-key"
    r"|no api key|api key not valid",
    re.IGNORECASE,
)
"""How a missing or wrong key reads when a provider SDK does not say it with a 401: the OpenAI SDK
raises its missing-key error before any request, and litellm re-raises it as a 500 (issue 12)."""


def is_credential_problem(exc: BaseException) -> bool:
    """A missing, wrong or unauthorised credential: retrying cannot help."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    return (
        name in ("AuthenticationError", "PermissionDeniedError")
        or status in (401, 403)
        or bool(_CREDENTIAL_PROBLEM.search(str(exc)))
    )


def is_bad_request(exc: BaseException) -> bool:
    """The provider refused the request's shape (400, 413, 422), not its credentials."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = getattr(exc, "status_code", None)
    shaped = status in (400, 413, 422) or bool(names & {"BadRequestError", "UnprocessableEntityError"})
    return shaped and not is_credential_problem(exc)


def classify(exc: BaseException) -> Failure:
    """Transient (retry), fatal (infra now), the model's own limit (context overflow, refusal), or a
    harness bug: by exception type and error code, never by the wording of the message.

    A credential problem is fatal whatever class it arrives as: it is never retried.
    """
    if not is_provider_error(exc):
        return "harness"
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & _MODEL_TYPES or error_code(exc) in _MODEL_CODES:
        return "model"
    if is_credential_problem(exc) or "NotFoundError" in names:
        return "fatal"
    if names & _TRANSIENT_TYPES or isinstance(exc, (TimeoutError, ConnectionError)):
        return "transient"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        if status in _TRANSIENT_STATUS or status >= 500:
            return "transient"
        if status in _FATAL_STATUS:
            return "fatal"
    return "fatal"


def retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class ModelClient:
    """Calls one model for one role and records usage into a ledger."""

    def __init__(
        self,
        config: ModelConfig,
        role: Role,
        ledger: UsageLedger | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        outside: bool = False,
    ) -> None:
        self.config = config
        self.role = role
        self.ledger = ledger
        self.outside = outside
        """The request was written by an agent outside the harness (the model proxy, issue 31): a
        provider's refusal of its shape (400, 413, 422; never a credential problem) is then the
        agent's own error (:class:`AgentError`), not infrastructure, so no agent can make its
        episodes unscored by sending requests it knows to be malformed."""
        self._sleep = sleep
        self._clock = clock
        self._price: Price | Literal[False] | None = False  # False: not looked up yet

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Completion:
        """One completion, retried on transient failures. Raises InfraError, AgentAbort or HarnessError
        (see the module doc)."""
        config = self.config
        # The timeout is constant per config on purpose: litellm caches its HTTP clients by a key
        # that includes the timeout, so a per-call value (say, capped by the task deadline) would
        # build a new client, and open new connections, on every call. The task deadline is
        # enforced between calls by the episode and the agents.
        kwargs: dict[str, Any] = {
            "model": config.model,
            "messages": list(messages),
            "max_retries": 0,
            "timeout": config.timeout_s,
            "drop_params": True,
        }
        if config.api_base:
            kwargs["api_base"] = config.api_base
            if not _has_key_for(config.model):
                kwargs["api_key"] = "not-needed"  # local servers ignore it; the SDK insists on one
        for name, value in (("temperature", config.temperature), ("seed", config.seed)):
            if value is not None:
                kwargs[name] = value
        if config.max_tokens is not None:
            kwargs["max_tokens"] = config.max_tokens
        if tools:
            kwargs["tools"] = list(tools)
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if response_format is not None:
            kwargs["response_format"] = dict(response_format)
        last: str = ""
        for attempt in range(config.retries + 1):
            started = self._clock()
            try:
                response = config.transport.send(kwargs)
            except Exception as exc:
                kind = classify(exc)
                last = redacted_text(f"{type(exc).__name__}: {exc}", 300)
                if kind == "harness":
                    raise HarnessError(
                        f"{self.role} model {config.model}: unexpected {type(exc).__name__} while calling the model",
                        traceback=format_traceback(exc),
                    ) from exc
                if kind == "model":
                    if self.role == "agent":
                        raise AgentAbort(f"model {config.model}: {last}") from None
                    raise InfraError(f"{self.role} model {config.model}: {last}") from None
                if kind == "fatal" and self.outside and is_bad_request(exc):
                    raise AgentError(f"model {config.model} refused the agent's request: {last}") from None
                if kind == "fatal":
                    raise InfraError(f"{self.role} model {config.model}: {last}") from None
                self._backoff(attempt, retry_after(exc), deadline)
                continue
            latency = self._clock() - started
            self._record(response, latency)
            if not getattr(response, "choices", None):
                last = "empty choices"
                self._backoff(attempt, None, deadline)
                continue
            return _completion(response)
        raise InfraError(f"{self.role} model {config.model}: failed after {config.retries + 1} attempts: {last}")

    def _backoff(self, attempt: int, hinted: float | None, deadline: float | None) -> None:
        if attempt >= self.config.retries:
            return
        delay = min(60.0, hinted if hinted is not None else self.config.backoff_s * 2**attempt)
        if deadline is not None:
            delay = min(delay, max(0.0, deadline - self._clock()))
        self._sleep(delay)

    def _record(self, response: Any, latency: float) -> None:
        if self.ledger is None:
            return
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        price = self.price()
        # No usage reported means no basis for a cost: unknown, not free.
        cost = price.cost(prompt, completion) if price is not None and prompt + completion > 0 else None
        self.ledger.record(
            self.role, prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost, latency_s=latency
        )

    def price(self) -> Price | None:
        if self._price is False:
            config = self.config
            self._price = config.prices.get(config.model) or map_price(config.model, config.transport)
        return self._price


def _has_key_for(model: str) -> bool:
    provider = model.split("/", 1)[0].upper() if "/" in model else "OPENAI"
    return bool(os.environ.get(f"{provider}_API_KEY"))


def _completion(response: Any) -> Completion:
    choice = response.choices[0]
    message = choice.message
    content = message.content if isinstance(message.content, str) else ""
    calls = tuple(
        ToolRequest(
            id=str(call.id or f"call_{index}"),
            name=str(getattr(call.function, "name", "") or ""),
            arguments=str(getattr(call.function, "arguments", "") or ""),
        )
        for index, call in enumerate(message.tool_calls or ())
    )
    history: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        history["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
    # Reasoning a provider returns goes back with the agent's own later turns (providers that
    # need it, e.g. Anthropic thinking blocks, reject a history without it).
    for key in ("reasoning_content", "thinking_blocks"):
        value = getattr(message, key, None)
        if value:
            history[key] = value
    return Completion(content=content, tool_calls=calls, message=history, finish_reason=choice.finish_reason)


def json_schema_format(name: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """A strict structured-output ``response_format``; the name also tells scripted servers the role."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema), "strict": True}}


@dataclass(frozen=True)
class StructuredRequest:
    """What a role adds to a request for a JSON answer of ``schema`` in one output mode."""

    response_format: dict[str, Any] | None
    instruction: str
    """Appended to the system prompt (empty where the server enforces the schema itself)."""

    def system(self, prompt: str) -> str:
        return f"{prompt}\n\n{self.instruction}" if self.instruction else prompt


def structured_request(mode: OutputMode, name: str, schema: Mapping[str, Any]) -> StructuredRequest:
    """The request parts for ``mode``; the schema's name is in the instruction too, so a scripted
    server tells the role without a ``json_schema`` response format."""
    if mode == "json_schema":
        return StructuredRequest(json_schema_format(name, schema), "")
    instruction = (
        f"Answer with exactly one JSON object and nothing else, matching this JSON schema ({name}):\n"
        + json.dumps(schema, sort_keys=True)
    )
    return StructuredRequest({"type": "json_object"} if mode == "json_object" else None, instruction)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply (tolerating a Markdown fence around it), or None."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`")
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else stripped
    try:
        value = json.loads(stripped)
    except (json.JSONDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None
