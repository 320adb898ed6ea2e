"""Every ``--crm-*`` option and ``crm_*`` ini value, declared once.

The pytest plugin adds each row as a flag and its ini twin (same name: ``--crm-fail-under`` is
``crm_fail_under``); ``crmbench`` commands add the rows they share (``crmbench gate --fail-under``)
from the same rows, so help text, types and defaults cannot drift apart. No pytest import here:
the rows are data, and the adapters take the ``addoption`` / ``addini`` callables (as
pytest-benchmark's CLI reuses its plugin's declarations).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pytest_crmbench.models.llm import DEFAULT_ROLE_MODEL
from pytest_crmbench.results.gates import check_fraction, check_significance

SCRIPTED_USER = "scripted"
NO_JUDGE = "none"
FLAG_PREFIX = "--crm-"


def integer(raw: str | int) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{raw!r} is not a whole number") from None


def number(raw: str | float) -> float:
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{raw!r} is not a number") from None


def fraction(raw: str | float) -> float:
    """A fraction in [0, 1] (``0.80`` = 80 %); a percentage such as ``80`` is refused, not guessed."""
    return check_fraction(number(raw))


def significance(raw: str | float) -> float:
    """A significance level strictly between 0 and 1 (``0.05``)."""
    return check_significance(number(raw))


def yes_no(raw: str) -> str:
    value = str(raw).strip().lower()
    if value not in ("yes", "no"):
        raise ValueError(f"{raw!r} is neither yes nor no")
    return value


def positive_int(raw: str | int) -> int:
    value = integer(raw)
    if value < 1:
        raise ValueError(f"{raw} must be at least 1")
    return value


def positive_float(raw: str | float) -> float:
    value = number(raw)
    if not value > 0:
        raise ValueError(f"{raw} must be positive")
    return value


def non_negative_float(raw: str | float) -> float:
    value = number(raw)
    if value < 0:
        raise ValueError(f"{raw} must not be negative")
    return value


IniType = Literal["string", "linelist", "bool"]


@dataclass(frozen=True)
class Option:
    """One setting: a ``--crm-*`` flag and/or a ``crm_*`` ini value of the same name."""

    name: str
    """The ini name and the option ``dest``: ``crm_fail_under``."""
    help: str
    """Plain text (no ``%`` escaping: the adapters do that for argparse)."""
    type: Callable[[Any], Any] = str
    """Converts a command-line or ini string; raises ValueError with a message on bad input."""
    metavar: str | None = None
    default: str | list[str] | bool = ""
    """The ini default (``""``: unset)."""
    flag: bool = True
    """Whether there is a command-line flag (ini-only rows are folders and globs)."""
    ini: IniType | None = "string"
    """The ini type; None: no ini twin (a per-invocation option such as ``--crm-resume``)."""
    switch: bool = False
    """A flag without a value (``--crm-no-preflight``)."""

    @property
    def flag_name(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def argparse_help(self) -> str:
        # argparse %-formats help strings; "80 %" would crash `pytest --help` (issue 12).
        return self.help.replace("%", "%%")

    def argparse_type(self) -> Callable[[str], Any]:
        convert = self.type

        def typed(raw: str) -> Any:
            try:
                return convert(raw)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None

        typed.__name__ = getattr(convert, "__name__", "value")
        return typed


OPTIONS: tuple[Option, ...] = (
    # -- what runs ---------------------------------------------------------------------------
    Option(
        "crm_agent",
        "Agent to evaluate: gold (replay gold paths; default without a model), null, graph (default with"
        " --crm-model), flat, package.module:factory, cmd:<command line> (a process called over stdio),"
        " or a2a:<url> (an A2A server).",
        metavar="NAME",
    ),
    Option(
        "crm_agent_inprocess",
        "Run a package.module:factory agent inside pytest's process instead of its own (for debugging with"
        " breakpoints): such a run is not gate-worthy, and the gates refuse it.",
        switch=True,
        ini="bool",
        default=False,
    ),
    Option(
        "crm_suite",
        "Run the benchmark shipped inside the installed crmbench package (its tasks, environments and"
        " graphs) instead of the project's tasks/, envs/ and agents/: for a model team's CI without a"
        " checkout.",
        switch=True,
        ini="bool",
        default=False,
    ),
    Option(
        "crm_seed", "Base seed; each item's seed derives from (base, task id, trial). Default 0.", integer, "N", "0"
    ),
    Option("crm_trials", "Run every selected task K times. Default 1.", positive_int, "K", "1"),
    Option(
        "crm_sample",
        "Run N of the selected tasks (after -k/-m): a subset stratified by domain and difficulty, drawn with"
        " --crm-seed (the same seed and selection give the same tasks), recorded in the manifest so"
        " --crm-resume keeps it. Default: every selected task.",
        positive_int,
        "N",
    ),
    Option("crm_max_turns", "End an episode after N user turns (a failure). Default 30.", positive_int, "N", "30"),
    Option("crm_max_iterations", "ReAct iterations per turn for model agents. Default 10.", positive_int, "N", "10"),
    Option(
        "crm_max_tool_calls",
        "Tool calls per user turn; later calls of the turn are refused with an error the model reads, and"
        " at twice N the episode ends as agent_error. Default 200.",
        positive_int,
        "N",
        "200",
    ),
    Option(
        "crm_timeout",
        "Per-task wall-clock limit in seconds (a failure). Default 1200.",
        positive_float,
        "SECONDS",
        "1200",
    ),
    # -- models ------------------------------------------------------------------------------
    Option(
        "crm_model",
        "Agent model: any litellm id (e.g. openai/gpt-5); gold or null select those agents.",
        metavar="MODEL",
    ),
    Option(
        "crm_api_base",
        "Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama) serving the agent model; the"
        " simulator and the judge use it too when they use the same model.",
        metavar="URL",
    ),
    Option(
        "crm_user_model",
        f"User simulator model (default {DEFAULT_ROLE_MODEL} with --crm-model; '{SCRIPTED_USER}': say the"
        " opening line only).",
        metavar="MODEL",
    ),
    Option("crm_user_api_base", "Base URL of the server serving the user simulator model.", metavar="URL"),
    Option(
        "crm_judge_model",
        f"Semantic judge model (default {DEFAULT_ROLE_MODEL} with --crm-model; '{NO_JUDGE}': leave reply"
        " criteria unjudged).",
        metavar="MODEL",
    ),
    Option("crm_judge_api_base", "Base URL of the server serving the judge model.", metavar="URL"),
    Option(
        "crm_no_preflight",
        "Skip the check, before the first task, that every role's model answers and its credentials work.",
        switch=True,
        ini="bool",
        default=False,
    ),
    Option("crm_temperature", "Sampling temperature of every model call (default: the provider's).", number, "T"),
    Option("crm_max_tokens", "Completion token limit of every model call (default: the provider's).", integer, "N"),
    Option(
        "crm_request_timeout", "Timeout of one model request in seconds. Default 120.", positive_float, "SECONDS", "120"
    ),
    Option(
        "crm_retries",
        "Retries of a rate-limited, failing or timed-out request before the task is infra (an"
        " authentication error is never retried). Default 4.",
        integer,
        "N",
        "4",
    ),
    Option(
        "crm_retry_backoff",
        "Seconds before the first retry (doubling after each). Default 2.",
        non_negative_float,
        default="2",
        flag=False,
    ),
    Option(
        "crm_concurrency",
        "Play up to N episodes at once in threads of each process (model runs; with -n, per worker). Default 1.",
        positive_int,
        "N",
        "1",
    ),
    Option(
        "crm_prices",
        "YAML/JSON price table {model: {input, output}} in USD per 1M tokens, for models litellm does not price.",
        metavar="FILE",
    ),
    Option(
        "crm_progress",
        "During a run, print a progress line (tasks done, success rate, infra, spend) at most every"
        " SECONDS; 0: never. Default 30.",
        non_negative_float,
        "SECONDS",
        "30",
    ),
    # -- where results go, and the gates -----------------------------------------------------
    Option(
        "crm_run_dir",
        "Write the run (manifest, results.jsonl, traces, leaderboard) to DIR. Default for non-gold agents and"
        " models: crm-runs/<UTC timestamp>-<model or agent>/.",
        metavar="DIR",
    ),
    Option(
        "crm_html",
        "Write report.html (leaderboard, figures, task pages) into the run directory at the end: yes or no."
        " Default yes.",
        yes_no,
        "yes|no",
        "yes",
    ),
    Option(
        "crm_html_every",
        "While the run goes on, rewrite report.html at most every SECONDS (when results came in; never more"
        " than about 2% of the run's time); 0: only at the end. Default 60.",
        non_negative_float,
        "SECONDS",
        "60",
    ),
    Option(
        "crm_resume",
        "Continue RUN_DIR with its own settings (agent, models, seed, trials, limits: read from its manifest;"
        " a different value given here is refused): skip items it already has, append to it, report both.",
        metavar="RUN_DIR",
        ini=None,
    ),
    Option(
        "crm_fail_under",
        "Fail the run (exit 1) if strict accuracy is below FRACTION (0.80 = 80 %); otherwise exit 0 even if"
        " tasks failed.",
        fraction,
        "FRACTION",
    ),
    Option(
        "crm_compare",
        "Fail the run if accuracy drops against BASELINE_RUN, overall or in a domain (see --crm-max-drop).",
        metavar="BASELINE_RUN",
    ),
    Option(
        "crm_max_drop",
        "Percentage points of allowed drop against --crm-compare. Default 0.",
        non_negative_float,
        "PP",
    ),
    Option(
        "crm_significance",
        "With --crm-compare: fail on a drop only when the paired test's p-value is below ALPHA (e.g. 0.05).",
        significance,
        "ALPHA",
    ),
    Option(
        "crm_max_infra",
        "Fail the run if more than N results are infra failures or errors; up to N are left out of the other"
        " gates, which otherwise count them as failures.",
        integer,
        "N",
    ),
    # -- where content is found (ini only) ---------------------------------------------------
    Option(
        "crm_task_files",
        "Globs (relative to the rootdir) of task files to collect.",
        default=["tasks/*.yaml"],
        flag=False,
        ini="linelist",
    ),
    Option(
        "crm_task_exclude",
        "Globs of YAML files under the task globs that are not task files.",
        default=["tasks/manifest.yaml"],
        flag=False,
        ini="linelist",
    ),
    Option(
        "crm_env_dirs",
        "Folders (relative to the rootdir) holding <domain>/environment.py.",
        default=["envs"],
        flag=False,
        ini="linelist",
    ),
    Option(
        "crm_graph_dirs",
        "Folders (relative to the rootdir) holding capability graphs <domain>.yaml.",
        default=["agents"],
        flag=False,
        ini="linelist",
    ),
)

BY_NAME: dict[str, Option] = {option.name: option for option in OPTIONS}


def declare(addoption: Callable[..., Any], addini: Callable[..., Any]) -> None:
    """Add every row: ``addoption`` is pytest's ``group.addoption``, ``addini`` ``parser.addini``."""
    for option in OPTIONS:
        if option.flag:
            add_flag(addoption, option, option.flag_name)
        if option.ini is not None:
            addini(option.name, option.help, type=option.ini, default=option.default)


def add_flag(addoption: Callable[..., Any], option: Option, flag: str) -> None:
    if option.switch:
        addoption(flag, dest=option.name, action="store_true", default=None, help=option.argparse_help)
    else:
        addoption(
            flag, dest=option.name, type=option.argparse_type(), metavar=option.metavar, help=option.argparse_help
        )


def add_cli_arguments(parser: argparse.ArgumentParser, *names: str) -> None:
    """Rows as ``crmbench`` arguments without the ``crm-`` prefix (``--fail-under``), dest = row name."""
    for name in names:
        option = BY_NAME[name]
        add_flag(parser.add_argument, option, "--" + option.flag_name.removeprefix(FLAG_PREFIX))
