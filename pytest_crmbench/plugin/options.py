"""The model options (``--crm-model`` and friends) with their ini twins, resolved once.

``--crm-model`` names the agent model (any litellm id); ``gold`` and ``null`` still select those
agents. With a model, the agent defaults to the ``graph`` reference scaffold, and the simulator
and judge default to the spec's gpt-5-mini unless ``--crm-user-model`` / ``--crm-judge-model``
say otherwise (``scripted`` / ``none`` switch them off). Without a model nothing here imports or
calls litellm.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.models.llm import (
    DEFAULT_ROLE_MODEL,
    MISSING_LITELLM,
    ModelSettings,
    litellm_installed,
    load_price_table,
)
from pytest_crmbench.plugin.modelcheck import OUTPUT_MODES_INPUT
from pytest_crmbench.plugin.optiontable import NO_JUDGE, SCRIPTED_USER
from pytest_crmbench.plugin.optionvalue import option_value, required_value
from pytest_crmbench.reference.catalog import BUILTIN_AGENTS, MODEL_AGENTS


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


def resolve(config: pytest.Config, agent: str | None, content_root: Path) -> ModelOptions:
    """The resolved options; ``agent`` is the --crm-agent / crm_agent value if one was given."""
    model = option_value(config, "crm_model")
    if model in ("gold", "null"):
        agent, model = agent or model, None
    agent = agent or ("graph" if model else "gold")
    if agent in MODEL_AGENTS and not model:
        raise pytest.UsageError(f"--crm-agent={agent} needs a model: pass --crm-model=<litellm model id>")
    if model and agent in BUILTIN_AGENTS and agent not in MODEL_AGENTS:
        raise pytest.UsageError(f"--crm-agent={agent} does not use a model; drop --crm-model={model}")
    user = option_value(config, "crm_user_model") or (DEFAULT_ROLE_MODEL if model else SCRIPTED_USER)
    judge = option_value(config, "crm_judge_model") or (DEFAULT_ROLE_MODEL if model else NO_JUDGE)
    prices_file = option_value(config, "crm_prices")
    try:
        prices = load_price_table(config.rootpath / prices_file) if prices_file else {}
    except CrmbenchError as exc:
        raise pytest.UsageError(f"--crm-prices: {exc}") from None
    settings = ModelSettings(
        agent=model,
        user=None if user == SCRIPTED_USER else user,
        judge=None if judge == NO_JUDGE else judge,
        api_base=option_value(config, "crm_api_base"),
        user_api_base=option_value(config, "crm_user_api_base"),
        judge_api_base=option_value(config, "crm_judge_api_base"),
        temperature=option_value(config, "crm_temperature"),
        max_tokens=option_value(config, "crm_max_tokens"),
        timeout_s=required_value(config, "crm_request_timeout"),
        retries=max(0, required_value(config, "crm_retries")),
        backoff_s=required_value(config, "crm_retry_backoff"),
        prices=prices,
        # An xdist worker uses what the controller's preflight found (plugin/modelcheck.py).
        output_modes=dict(getattr(config, "workerinput", {}).get(OUTPUT_MODES_INPUT, {})),
    )
    if (settings.agent or settings.user or settings.judge) and not litellm_installed():
        raise pytest.UsageError(MISSING_LITELLM)  # one line, not a traceback per task (issue 12)
    graph_dirs = tuple(content_root / d for d in option_value(config, "crm_graph_dirs"))
    concurrency = required_value(config, "crm_concurrency")
    dist = getattr(config.option, "dist", "no")
    if concurrency > 1 and dist not in ("no", "load"):
        raise pytest.UsageError(
            f"--crm-concurrency with xdist needs --dist load (the default of -n), not --dist {dist}: each"
            " worker is sent its share of the items up front and plays it in its own thread pool"
        )
    return ModelOptions(agent, settings, graph_dirs, concurrency)
