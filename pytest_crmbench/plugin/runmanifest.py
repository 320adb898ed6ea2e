"""The run manifest: what ran, without a secret (never the environment; arguments scrubbed of
credentials). Built on the controller when the run directory is opened."""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Any

import pytest

from pytest_crmbench import __version__
from pytest_crmbench.core.display import shown
from pytest_crmbench.core.evidence import jsonable
from pytest_crmbench.core.redaction import redact
from pytest_crmbench.core.shipped import PACKAGED
from pytest_crmbench.plugin.optionvalue import option_value
from pytest_crmbench.results.records import model_of, utc_now
from pytest_crmbench.results.rundir import FORMAT, git_commit
from pytest_crmbench.results.runtasks import RunTasks
from pytest_crmbench.run.settings import RunSettings


def system_name(settings: RunSettings) -> str:
    """A run's system in leaderboards: its agent and model (``graph/openai/gpt-5``), else its agent.

    The agent is part of it: the graph and the flat agent on one model are two systems (issue 32),
    not two rounds of one."""
    model = model_of(settings)
    name = f"{settings.agent}/{model}" if model else settings.agent
    return name if settings.gate_worthy else f"{name} {IN_PROCESS_MARK}"


IN_PROCESS_MARK = "(in-process, not gate-worthy)"
"""How a leaderboard names a system whose agent ran in pytest's process (issue 30)."""


def agent_process(settings: RunSettings) -> str:
    """Where the agent ran: ``isolated`` (its own process), ``in-process`` (opted in), ``built-in``."""
    if settings.isolated:
        return "isolated"
    return "in-process" if not settings.gate_worthy else "built-in"


def models(settings: RunSettings) -> dict[str, Any]:
    """Model and provider ids per role (the provider is the litellm prefix, e.g. ``openai``)."""
    ids = {"agent": settings.models.agent, "user": settings.models.user, "judge": settings.models.judge}
    return {
        **ids,
        "providers": {role: model.split("/", 1)[0] if model and "/" in model else None for role, model in ids.items()},
    }


def sampling(settings: RunSettings) -> dict[str, Any]:
    """What shapes the model's answers (part of the resume check); the API base without credentials."""
    chosen = settings.models
    return {
        "temperature": chosen.temperature,
        "max_tokens": chosen.max_tokens,
        "api_base": redact(chosen.api_base),
        "prices": sorted(chosen.prices),
    }


def execution(settings: RunSettings) -> dict[str, Any]:
    """How calls are made, not what they answer: a resumed run may change these (say, lower the
    concurrency after rate limits killed it)."""
    chosen = settings.models
    return {"request_timeout_s": chosen.timeout_s, "retries": chosen.retries, "concurrency": settings.concurrency}


def build_manifest(
    config: pytest.Config, settings: RunSettings, task_set: RunTasks | None, problem: str | None
) -> dict[str, Any]:
    """The manifest of this session's run (``problem``: why its task set could not be loaded)."""
    ids = models(settings)
    manifest = {
        "format": FORMAT,
        # Every result and trajectory of the run carries it: a file spliced in from another run is
        # refused by every gate and table (results/verify.py), issue 30 part 2.
        "run_id": uuid.uuid4().hex,
        "benchmark_version": __version__,
        "created_at": utc_now(),
        "system": system_name(settings),
        "task_set": {
            "hash": task_set.hash if task_set else None,
            "files": task_set.files if task_set else [],
            "tasks": len(task_set.tasks) if task_set else 0,
            "environments": task_set.environments if task_set else {},
            "lock": task_set.lock if task_set else None,
            **({"error": problem} if problem else {}),
        },
        "agent": settings.agent,
        "agent_process": agent_process(settings),
        "gate_worthy": settings.gate_worthy,
        "models": ids,
        "sampling": jsonable(sampling(settings)),
        "execution": execution(settings),
        # Where the user simulator and the judge were sent; read back by --crm-resume when not
        # given (plugin/resumeoptions.py), outside the fingerprint: a server may move.
        "servers": {"user_api_base": settings.models.user_api_base, "judge_api_base": settings.models.judge_api_base},
        "settings": {"base_seed": settings.base_seed, "trials": settings.trials, "limits": asdict(settings.limits)},
        "simulator": {"kind": "model" if ids["user"] else "scripted", "model": ids["user"]},
        "judge": {"kind": "model" if ids["judge"] else "none", "model": ids["judge"]},
        # Relative to the folder holding the tasks: `envs`, not a site-packages path, for the suite.
        "suite": PACKAGED if option_value(config, "crm_suite") else None,
        "env_dirs": [shown(p, settings.content_root) for p in settings.env_dirs],
        "pytest": {
            "args": list(config.invocation_params.args),
            "xdist_workers": jsonable(config.getoption("numprocesses", None)),
            "dist": jsonable(config.getoption("dist", None)),
        },
        "git": git_commit(config.rootpath),
    }
    return redact(manifest)
