"""The preflight: before the first task, check once that every role's model can be called.

A missing or wrong credential, or a role sent to a server that does not serve its model, would
otherwise turn every task into ``infra`` after minutes of retries (issue 12). Per distinct
(model, server) of the agent, the user simulator and the judge, in this order, stopping at the
first problem found for it:

1. the model id names a litellm provider;
2. the provider's credential variables are set (litellm's own ``validate_environment``; skipped
   for a custom server, which may need no key);
3. a custom server's ``GET /models`` lists the model (skipped when it has no listing);
4. one request of one completion token is accepted. Only answers that retrying cannot change are
   problems: a rejected credential (401/403), an unknown model (404), an unreachable server. A
   rate limit, an outage or a 400 (the request was authenticated; one token may be too few for
   a reasoning model) let the run start.

Nothing here is retried and nothing is recorded as usage: the requests cost one token each.
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
from pytest_crmbench.models.llm import ModelSettings, is_credential_problem

ROLE_OPTIONS: dict[Role, tuple[str, str]] = {
    "agent": ("--crm-model", "--crm-api-base"),
    "user": ("--crm-user-model", "--crm-user-api-base"),
    "judge": ("--crm-judge-model", "--crm-judge-api-base"),
}
SKIP_HINT = "--crm-no-preflight skips this check"


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


def preflight(settings: ModelSettings, *, timeout_s: float = 30.0) -> list[str]:
    """One line per target with a problem (empty: every role can be called)."""
    found = targets(settings)
    if not found:
        return []
    litellm = settings.transport.litellm()  # the session's: its offline environment is undone at session end
    # One after the other, on this thread: at most three requests, and litellm builds its HTTP
    # clients without a lock (concurrent first calls leak the sockets of all but one; llm.Transport).
    problems = [check(litellm, settings, target, timeout_s) for target in found]
    return [f"{target.describe()}: {problem}" for target, problem in zip(found, problems, strict=True) if problem]


def check(litellm: ModuleType, settings: ModelSettings, target: Target, timeout_s: float) -> str | None:
    provider = _provider(litellm, target)
    if provider is None:
        return "not a litellm model id: prefix it with its provider (openai/..., anthropic/..., hosted_vllm/...)"
    if target.api_base is None:
        missing = litellm.validate_environment(model=target.model).get("missing_keys") or []
        if missing:
            return f"missing credential: set {' and '.join(missing)} ({SKIP_HINT})"
    else:
        listed, problem = _listing(target, provider, timeout_s)
        if listed:
            return problem
    return _request_problem(litellm, settings, target, provider, timeout_s)


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


def _request_problem(
    litellm: ModuleType, settings: ModelSettings, target: Target, provider: str, timeout_s: float
) -> str | None:
    config = settings.config(target.roles[0])
    kwargs: dict[str, Any] = {
        "model": target.model,
        "messages": [{"role": "user", "content": "Reply with OK."}],
        "max_tokens": 1,
        "max_retries": 0,
        "timeout": config.timeout_s,
        "drop_params": True,
    }
    if target.api_base:
        kwargs["api_base"] = target.api_base
        if not os.environ.get(credential_variable(provider)):
            kwargs["api_key"] = "not-needed"  # as ModelClient does for local servers
    try:
        # Not Transport.send: its first-call bookkeeping belongs to the run's own calls.
        litellm.completion(**kwargs)
    except Exception as exc:
        return _request_failure(exc, target, provider)
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
