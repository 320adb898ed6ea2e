"""The preflight: before the first task, check once that every role's model can be called.

A missing or wrong credential, or a role sent to a server that does not serve its model, would
otherwise turn every task into ``infra`` after minutes of retries (issue 12). Per distinct
(model, server) of the agent, the user simulator and the judge, in this order, stopping at the
first problem found for it:

1. the model id names a litellm provider;
2. the provider's credential variables are set (litellm's own ``validate_environment``; skipped
   for a custom server, which may need no key);
3. a custom server's ``GET /models`` lists the model (skipped when it has no listing);
4. requests are accepted. A provider's own API gets one request of one completion token. A custom
   server gets the shapes its roles will really send (issue 32 item 6: a server that lists the
   model may still refuse what the roles ask): the agent a request with a tool, and every role
   that asks for JSON (the user simulator, the judge, the graph agent's router) a structured-output
   request, ``json_schema`` first, then ``json_object``, then the prompt alone; the first form the
   server takes is the role's output mode for the run (:data:`~pytest_crmbench.models.llm.OutputMode`).
   Only answers that retrying cannot change are problems: a rejected credential (401/403), an
   unknown model (404), an unreachable server, a server that takes no request of a role's shape.
   A rate limit, an outage or a 400 from a provider's own API (the request was authenticated; one
   token may be too few for a reasoning model) let the run start.

Nothing here is retried and nothing is recorded as usage: the requests cost a few tokens each.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pytest_crmbench.core.evidence import Role
from pytest_crmbench.core.redaction import redacted_text
from pytest_crmbench.models.llm import (
    OUTPUT_MODES,
    ModelSettings,
    OutputMode,
    is_credential_problem,
    structured_request,
)

ROLE_OPTIONS: dict[Role, tuple[str, str]] = {
    "agent": ("--crm-model", "--crm-api-base"),
    "user": ("--crm-user-model", "--crm-user-api-base"),
    "judge": ("--crm-judge-model", "--crm-judge-api-base"),
}
SKIP_HINT = "--crm-no-preflight skips this check"
ASKS_FOR_JSON: frozenset[Role] = frozenset({"agent", "user", "judge"})
"""Roles whose model is asked for JSON answers (the agent's: the graph agent's router)."""
PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answer a ping.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
}
PING = {"role": "user", "content": "Ping."}
PROBE_TOKENS = 16
"""Enough for a server to start a JSON answer or a tool call; a local server charges nothing."""
REFUSED_SHAPE = frozenset({400, 415, 422, 500, 501})
"""Statuses a custom server answers a request shape it does not support with (llama.cpp: 500)."""


@dataclass(frozen=True)
class Target:
    """One model on one server, and the roles that call it."""

    model: str
    api_base: str | None
    roles: tuple[Role, ...]

    def describe(self) -> str:
        roles = " and ".join(self.roles)
        options = ", ".join(ROLE_OPTIONS[role][0] for role in self.roles)
        where = f" at {self.api_base}" if self.api_base else ""
        return f"{roles} model {self.model}{where} ({options})"

    def api_base_options(self) -> str:
        return " / ".join(ROLE_OPTIONS[role][1] for role in self.roles)


def targets(settings: ModelSettings) -> list[Target]:
    """The distinct (model, server) pairs the run will call, with their roles."""
    found: dict[tuple[str, str | None], list[Role]] = {}
    roles: tuple[Role, ...] = ("agent", "user", "judge")
    for role in roles:
        model = settings.model(role)
        if model:
            found.setdefault((model, settings.api_base_of(role)), []).append(role)
    return [Target(model, base, tuple(names)) for (model, base), names in found.items()]


@dataclass
class Outcome:
    """What the preflight found: one line per target with a problem (none: every role can be
    called), and the output mode each probed role will use."""

    problems: list[str]
    modes: dict[Role, OutputMode]


def preflight(settings: ModelSettings, *, timeout_s: float = 30.0) -> Outcome:
    """Check every target; the modes found are for :attr:`ModelSettings.output_modes`."""
    found = targets(settings)
    outcome = Outcome([], {})
    if not found:
        return outcome
    litellm = settings.transport.litellm()  # the session's: its offline environment is undone at session end
    # One after the other, on this thread: a few requests, and litellm builds its HTTP clients
    # without a lock (concurrent first calls leak the sockets of all but one; llm.Transport).
    for target in found:
        problem = check(litellm, settings, target, timeout_s, outcome.modes)
        if problem:
            outcome.problems.append(f"{target.describe()}: {problem}")
    return outcome


def check(
    litellm: ModuleType,
    settings: ModelSettings,
    target: Target,
    timeout_s: float,
    modes: dict[Role, OutputMode] | None = None,
) -> str | None:
    provider = _provider(litellm, target)
    if provider is None:
        return "not a litellm model id: prefix it with its provider (openai/..., anthropic/..., hosted_vllm/...)"
    if target.api_base is None:
        missing = litellm.validate_environment(model=target.model).get("missing_keys") or []
        if missing:
            return f"missing credential: set {' and '.join(missing)} ({SKIP_HINT})"
        return _request_problem(litellm, settings, target, provider)
    listed, problem = _listing(target, provider, timeout_s)
    if listed and problem:
        return problem
    return _shape_problems(litellm, settings, target, provider, {} if modes is None else modes)


def _shape_problems(
    litellm: ModuleType, settings: ModelSettings, target: Target, provider: str, modes: dict[Role, OutputMode]
) -> str | None:
    """A custom server against the requests its roles will send; the output mode of each."""
    if "agent" in target.roles:
        problem = _request_problem(litellm, settings, target, provider, {"messages": [PING], "tools": [PROBE_TOOL]})
        if problem:
            return f"{problem}; the agent needs a server that takes tool definitions"
    mode: OutputMode | None = None
    tried: list[str] = []
    for candidate in OUTPUT_MODES:
        structured = structured_request(candidate, "crm_preflight", PROBE_SCHEMA)
        probe: dict[str, Any] = {"messages": [{"role": "system", "content": structured.system("Answer a ping.")}, PING]}
        if structured.response_format is not None:
            probe["response_format"] = structured.response_format
        problem = _request_problem(litellm, settings, target, provider, probe)
        if problem is None:
            mode = candidate
            break
        if not problem.startswith(REFUSED_PREFIX):
            return problem  # a credential, an unknown model, an unreachable server: no form helps
        tried.append(f"{candidate}: {problem.removeprefix(REFUSED_PREFIX)}")
    if mode is None:
        return f"the server takes no request for a JSON answer ({'; '.join(tried)})"
    for role in target.roles:
        if role in ASKS_FOR_JSON:
            modes[role] = mode
    return None


def _provider(litellm: ModuleType, target: Target) -> str | None:
    try:
        return str(litellm.get_llm_provider(target.model, api_base=target.api_base)[1])
    except Exception:  # litellm raises BadRequestError for an id it cannot route
        return None


def credential_variable(provider: str) -> str:
    return f"{provider.upper()}_API_KEY"


def _listing(target: Target, provider: str, timeout_s: float) -> tuple[bool, str | None]:
    """(whether the server answered with a listing or a decisive error, the problem if any)."""
    assert target.api_base is not None
    request = urllib.request.Request(target.api_base.rstrip("/") + "/models")
    key = os.environ.get(credential_variable(provider))
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        exc.close()  # it holds the response and its socket
        if exc.code in (401, 403):
            return True, _rejected(provider, f"HTTP {exc.code}")
        return False, None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return True, f"cannot reach the server: {reason} ({SKIP_HINT})"
    except ValueError:
        return False, None
    served = _served(body)
    if served is None:
        return False, None
    name = target.model.split("/", 1)[1] if target.model.startswith(f"{provider}/") else target.model
    if name in served or target.model in served:
        return True, None
    return True, (
        f"the server does not serve {name!r} (it lists {', '.join(sorted(served)[:8]) or 'nothing'}); name a served"
        f" model, or point this role elsewhere with {target.api_base_options()}"
    )


def _served(body: Any) -> set[str] | None:
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return None
    return {str(entry["id"]) for entry in data if isinstance(entry, dict) and "id" in entry}


def _rejected(provider: str, detail: str) -> str:
    return f"credential rejected ({detail}): check {credential_variable(provider)} ({SKIP_HINT})"


REFUSED_PREFIX = "refused this request shape: "


def _request_problem(
    litellm: ModuleType,
    settings: ModelSettings,
    target: Target,
    provider: str,
    probe: dict[str, Any] | None = None,
) -> str | None:
    """The problem one request shows, if any: one token of "Reply with OK.", or ``probe`` (the
    messages and features of a request shape a custom server is tried with), where a refusal of
    the shape (:data:`REFUSED_SHAPE`) is a problem too."""
    config = settings.config(target.roles[0])
    kwargs: dict[str, Any] = {
        "model": target.model,
        "messages": [{"role": "user", "content": "Reply with OK."}],
        "max_tokens": 1 if probe is None else PROBE_TOKENS,
        "max_retries": 0,
        "timeout": config.timeout_s,
        "drop_params": True,
        **(probe or {}),
    }
    if target.api_base:
        kwargs["api_base"] = target.api_base
        if not os.environ.get(credential_variable(provider)):
            kwargs["api_key"] = "not-needed"  # as ModelClient does for local servers
    try:
        # Not Transport.send: its first-call bookkeeping belongs to the run's own calls.
        with settings.transport.watched():
            litellm.completion(**kwargs)
    except Exception as exc:
        problem = _request_failure(exc, target, provider)
        status = getattr(exc, "status_code", None)
        if problem is None and probe is not None and status in REFUSED_SHAPE:
            return REFUSED_PREFIX + redacted_text(f"HTTP {status}: {_first_line(str(exc))}", 200)
        return problem
    return None


def _request_failure(exc: BaseException, target: Target, provider: str) -> str | None:
    detail = redacted_text(f"{type(exc).__name__}: {_first_line(str(exc))}", 300)
    status = getattr(exc, "status_code", None)
    if is_credential_problem(exc):
        return _rejected(provider, detail)
    if type(exc).__name__ == "NotFoundError" or status == 404:
        elsewhere = (
            f"point this role elsewhere with {target.api_base_options()}"
            if target.api_base
            else f"a model on your own server needs {target.api_base_options()}"
        )
        return f"the model is not served here ({detail}); {elsewhere}"
    if type(exc).__name__ == "APIConnectionError" and target.api_base:
        return f"cannot reach the server ({detail}; {SKIP_HINT})"
    return None  # transient or a 400 after authentication: the run's own retries decide


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if lines else text


def format_problems(problems: Sequence[str]) -> str:
    return "\n".join(f"crmbench preflight: {problem}" for problem in problems)
