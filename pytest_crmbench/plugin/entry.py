"""The pytest adapter: options, settings, task-file collection and the default agent hook.

Everything here delegates to engine modules; see ``docs/architecture.md`` for the data flow.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.spec import DIFFICULTIES
from pytest_crmbench.plugin import fixtures, hookspec, options, recorder
from pytest_crmbench.plugin.collect import TaskFile, register_markers
from pytest_crmbench.plugin.optionvalue import required_value
from pytest_crmbench.plugin.runahead import RunAhead
from pytest_crmbench.plugin.stash import registered_markers_key, settings_key
from pytest_crmbench.reference.agents import load_factory
from pytest_crmbench.run.episode import Agent, AgentContext, Limits
from pytest_crmbench.run.settings import RunSettings


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspec)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crmbench", "crmbench: CRM agent benchmark")
    group.addoption(
        "--crm-agent",
        dest="crm_agent",
        metavar="NAME",
        help="Agent to evaluate: gold (replay gold paths; default without a model), null, graph (default with"
        " --crm-model), flat, or package.module:factory.",
    )
    group.addoption(
        "--crm-seed",
        dest="crm_seed",
        type=int,
        metavar="N",
        help="Base seed; each item's seed derives from (base, task id, trial). Default 0.",
    )
    group.addoption(
        "--crm-max-turns",
        dest="crm_max_turns",
        type=int,
        metavar="N",
        help="End an episode after N user turns (a failure). Default 30.",
    )
    group.addoption(
        "--crm-max-iterations",
        dest="crm_max_iterations",
        type=int,
        metavar="N",
        help="ReAct iterations per turn for model agents. Default 10.",
    )
    group.addoption(
        "--crm-timeout",
        dest="crm_timeout",
        type=float,
        metavar="SECONDS",
        help="Per-task wall-clock limit (a failure). Default 1200.",
    )
    recorder.add_options(parser)
    parser.addini("crm_agent", "Default agent (see --crm-agent).", default="")
    parser.addini("crm_seed", "Default base seed (see --crm-seed).", default="0")
    parser.addini("crm_max_turns", "Default user-turn limit.", default="30")
    parser.addini("crm_max_iterations", "Default ReAct iterations per turn.", default="10")
    parser.addini("crm_timeout", "Default per-task limit in seconds.", default="1200")
    parser.addini(
        "crm_task_files",
        "Globs (relative to rootdir) of task files to collect.",
        type="linelist",
        default=["tasks/*.yaml"],
    )
    parser.addini(
        "crm_task_exclude",
        "Globs of YAML files under the task globs that are not task files.",
        type="linelist",
        default=["tasks/manifest.yaml"],
    )
    parser.addini(
        "crm_env_dirs",
        "Folders (relative to rootdir) holding <domain>/environment.py.",
        type="linelist",
        default=["envs"],
    )
    options.addoption(parser)


def pytest_configure(config: pytest.Config) -> None:
    settings = resolve_settings(config)
    config.stash[settings_key] = settings
    config.stash[registered_markers_key] = set()
    options.configure(config)
    config.pluginmanager.register(fixtures, "crmbench-fixtures")
    config.pluginmanager.register(DefaultAgentHook(), "crmbench-default-agent")
    recorder.configure(config, settings, is_worker(config))
    if settings.concurrency > 1:
        config.pluginmanager.register(RunAhead(config, settings.concurrency), "crmbench-runahead")
    for difficulty in DIFFICULTIES:
        config.addinivalue_line("markers", f"{difficulty}: crmbench task difficulty")
    if config.option.markers:
        list_task_markers(config)
    check_agent_name(config, settings.agent)


def list_task_markers(config: pytest.Config) -> None:
    """``pytest --markers`` runs before collection: read the task files now so their domains and
    capability tags are listed too (only then: it costs a parse of every task file)."""
    settings = config.stash[settings_key]
    files = {path for pattern in settings.task_globs for path in config.rootpath.glob(pattern)}
    for path in sorted(p for p in files if is_task_file(config, p)):
        try:
            records = load_task_file(path)
        except CrmbenchError:
            continue  # a broken file is reported where it is collected, not here
        for record in records:
            register_markers(config, record.task)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> TaskFile | None:
    if file_path.suffix in (".yaml", ".yml") and is_task_file(parent.config, file_path):
        return TaskFile.from_parent(parent, path=file_path)
    return None


def resolve_settings(config: pytest.Config) -> RunSettings:
    """Command line over ini over defaults, validated once."""

    limits = Limits(
        max_user_turns=required_value(config, "crm_max_turns", int),
        max_react_iterations=required_value(config, "crm_max_iterations", int),
        task_timeout_s=required_value(config, "crm_timeout", float),
    )
    if limits.max_user_turns < 1 or limits.max_react_iterations < 1 or limits.task_timeout_s <= 0:
        raise pytest.UsageError(
            "crmbench limits must be positive (--crm-max-turns, --crm-max-iterations, --crm-timeout)"
        )
    chosen = options.resolve(config, config.getoption("crm_agent") or config.getini("crm_agent") or None)
    return RunSettings(
        agent=chosen.agent,
        models=chosen.models,
        graph_dirs=chosen.graph_dirs,
        concurrency=chosen.concurrency,
        base_seed=required_value(config, "crm_seed", int),
        limits=limits,
        trials=recorder.resolve_trials(config),
        env_dirs=tuple(config.rootpath / d for d in config.getini("crm_env_dirs")),
        task_globs=tuple(config.getini("crm_task_files")),
        task_exclude=tuple(config.getini("crm_task_exclude")),
    )


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (only the controller reports and writes files)."""
    return hasattr(config, "workerinput")


def check_agent_name(config: pytest.Config, name: str) -> None:
    """Fail fast on an agent no implementation can build (rather than once per item)."""
    if len(config.pluginmanager.hook.pytest_crmbench_make_agent.get_hookimpls()) > 1:
        return  # a conftest or plugin may know the name
    try:
        load_factory(name)
    except CrmbenchError as exc:
        raise pytest.UsageError(f"--crm-agent: {exc}") from None


def is_task_file(config: pytest.Config, path: Path) -> bool:
    if not path.is_relative_to(config.rootpath):
        return False
    settings = config.stash[settings_key]
    relative = path.relative_to(config.rootpath).as_posix()
    return any(glob_match(relative, g) for g in settings.task_globs) and not any(
        glob_match(relative, g) for g in settings.task_exclude
    )


@functools.lru_cache(maxsize=64)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"(\*\*/|\*\*|\*|\?)", pattern)
    wildcards = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(wildcards.get(part, re.escape(part)) for part in parts) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    """Glob match on a relative posix path: ``*`` and ``?`` stay within one folder, ``**`` crosses folders."""
    return _glob_regex(pattern).match(path) is not None


class DefaultAgentHook:
    """The built-in agents; registered as a plugin so conftest implementations run first."""

    @pytest.hookimpl(trylast=True)
    def pytest_crmbench_make_agent(self, name: str, context: AgentContext) -> Agent:
        return load_factory(name)(context)
