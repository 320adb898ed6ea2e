"""The model options (``--crm-model`` and friends) with their ini twins, resolved once.

``--crm-model`` names the agent model (any litellm id); ``gold`` and ``null`` still select those
agents. With a model, the agent defaults to the ``graph`` reference scaffold, and the simulator
and judge default to the spec's gpt-5-mini unless ``--crm-user-model`` / ``--crm-judge-model``
say otherwise (``scripted`` / ``none`` switch them off). Without a model nothing here imports or
calls litellm.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.models.llm import DEFAULT_ROLE_MODEL, ModelSettings, load_price_table
from pytest_crmbench.plugin.optionvalue import option_value
from pytest_crmbench.reference.agents import BUILTIN_AGENTS, MODEL_AGENTS

SCRIPTED_USER = "scripted"
NO_JUDGE = "none"

# (flag, dest/ini name, type, metavar, help); every one has an ini twin of the same name.
_OPTIONS: list[tuple[str, str, Callable[[str], Any], str, str]] = [
    (
        "--crm-model",
        "crm_model",
        str,
        "MODEL",
        "Agent model: any litellm id (e.g. openai/gpt-5); gold or null select those agents.",
    ),
    (
        "--crm-user-model",
        "crm_user_model",
        str,
        "MODEL",
        f"User simulator model (default {DEFAULT_ROLE_MODEL} with --crm-model; '{SCRIPTED_USER}': say the opening line only).",
    ),
    (
        "--crm-judge-model",
        "crm_judge_model",
        str,
        "MODEL",
        f"Semantic judge model (default {DEFAULT_ROLE_MODEL} with --crm-model; '{NO_JUDGE}': leave reply criteria unjudged).",
    ),
    (
        "--crm-api-base",
        "crm_api_base",
        str,
        "URL",
        "Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama) for every role.",
    ),
    (
        "--crm-temperature",
        "crm_temperature",
        float,
        "T",
        "Sampling temperature of every model call (default: the provider's).",
    ),
    (
        "--crm-max-tokens",
        "crm_max_tokens",
        int,
        "N",
        "Completion token limit of every model call (default: the provider's).",
    ),
    ("--crm-request-timeout", "crm_request_timeout", float, "SECONDS", "Timeout of one model request. Default 120."),
    (
        "--crm-retries",
        "crm_retries",
        int,
        "N",
        "Retries of a rate-limited, failing or timed-out request before the task is infra. Default 4.",
    ),
    (
        "--crm-concurrency",
        "crm_concurrency",
        int,
        "N",
        "Play up to N episodes at once in threads of this process (model runs; not with -n). Default 1.",
    ),
    (
        "--crm-prices",
        "crm_prices",
        str,
        "FILE",
        "YAML/JSON price table {model: {input, output}} in USD per 1M tokens, for models litellm does not price.",
    ),
]
_DEFAULTS = {"crm_request_timeout": "120", "crm_retries": "4", "crm_concurrency": "1"}


def addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crmbench")
    for flag, dest, convert, metavar, help_text in _OPTIONS:
        group.addoption(flag, dest=dest, type=convert, metavar=metavar, help=help_text)
        parser.addini(dest, f"Default of {flag}.", default=_DEFAULTS.get(dest, ""))
    parser.addini("crm_retry_backoff", "Seconds before the first retry (doubling after each). Default 2.", default="2")
    parser.addini(
        "crm_graph_dirs", "Folders holding capability graphs <domain>.yaml.", type="linelist", default=["agents"]
    )


def configure(config: pytest.Config) -> None:
    # litellm's first call builds pydantic TypeAdapters that warn about ReadOnly TypedDict items;
    # under `filterwarnings = error` (pytest's own recommendation) that warning would fail the
    # first model call. It is litellm's, not the user's, so it is ignored for every item.
    config.addinivalue_line("filterwarnings", r"ignore::UserWarning:pydantic\._internal\._generate_schema")


class ModelOptions(NamedTuple):
    agent: str
    models: ModelSettings
    graph_dirs: tuple[Path, ...]
    concurrency: int


def resolve(config: pytest.Config, agent: str | None) -> ModelOptions:
    """The resolved options; ``agent`` is the --crm-agent / crm_agent value if one was given."""
    model = option_value(config, "crm_model", str)
    if model in ("gold", "null"):
        agent, model = agent or model, None
    agent = agent or ("graph" if model else "gold")
    if agent in MODEL_AGENTS and not model:
        raise pytest.UsageError(f"--crm-agent={agent} needs a model: pass --crm-model=<litellm model id>")
    if model and agent in BUILTIN_AGENTS and agent not in MODEL_AGENTS:
        raise pytest.UsageError(f"--crm-agent={agent} does not use a model; drop --crm-model={model}")
    user = option_value(config, "crm_user_model", str) or (DEFAULT_ROLE_MODEL if model else SCRIPTED_USER)
    judge = option_value(config, "crm_judge_model", str) or (DEFAULT_ROLE_MODEL if model else NO_JUDGE)
    prices_file = option_value(config, "crm_prices", str)
    try:
        prices = load_price_table(config.rootpath / prices_file) if prices_file else {}
    except CrmbenchError as exc:
        raise pytest.UsageError(f"--crm-prices: {exc}") from None
    backoff = option_value(config, "crm_retry_backoff", float)
    settings = ModelSettings(
        agent=model,
        user=None if user == SCRIPTED_USER else user,
        judge=None if judge == NO_JUDGE else judge,
        api_base=option_value(config, "crm_api_base", str),
        temperature=option_value(config, "crm_temperature", float),
        max_tokens=option_value(config, "crm_max_tokens", int),
        timeout_s=option_value(config, "crm_request_timeout", float) or 120.0,
        retries=max(0, option_value(config, "crm_retries", int) or 0),
        backoff_s=2.0 if backoff is None else backoff,
        prices=prices,
    )
    graph_dirs = tuple(config.rootpath / d for d in config.getini("crm_graph_dirs"))
    concurrency = option_value(config, "crm_concurrency", int) or 1
    if concurrency < 1:
        raise pytest.UsageError("--crm-concurrency must be at least 1")
    if concurrency > 1 and config.getoption("numprocesses", None):
        raise pytest.UsageError(
            "--crm-concurrency cannot be combined with -n: xdist hands items to workers one by one, so no"
            " worker knows which episodes to play ahead"
        )
    return ModelOptions(agent, settings, graph_dirs, concurrency)
