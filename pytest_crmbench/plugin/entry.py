"""The pytest adapter: options, settings, task-file collection and the default agent hook.

Everything here delegates to engine modules; see ``docs/architecture.md`` for the data flow.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.loader import load_task_files
from pytest_crmbench.core.shipped import suite_root
from pytest_crmbench.core.spec import DIFFICULTIES
from pytest_crmbench.core.taskfiles import TaskFiles
from pytest_crmbench.plugin import fixtures, hookspec, options, optiontable, recorder, resumeoptions, sample
from pytest_crmbench.plugin.collect import TaskFile, register_markers
from pytest_crmbench.plugin.distribute import StaticSchedule
from pytest_crmbench.plugin.forget import ForgetFinished
from pytest_crmbench.plugin.livereport import LIVE_REPORT, LiveReport
from pytest_crmbench.plugin.modelcheck import PREFLIGHT, Preflight
from pytest_crmbench.plugin.optionvalue import option_value, required_value
from pytest_crmbench.plugin.recorder import RunRecorder
from pytest_crmbench.plugin.runahead import RunAhead
from pytest_crmbench.plugin.runoptions import record_settings_key, resolve_record_settings
from pytest_crmbench.plugin.startup import STARTUP, StartupLines
from pytest_crmbench.plugin.stash import registered_markers_key, settings_key
from pytest_crmbench.plugin.summary import RunSummary
from pytest_crmbench.plugin.warnpolicy import collect_at_exit
from pytest_crmbench.reference.catalog import BUILTIN_AGENTS, load_factory
from pytest_crmbench.run.a2a_agent import A2AAgent, check_url, is_a2a, url_of
from pytest_crmbench.run.episode import Agent, AgentContext, Limits
from pytest_crmbench.run.isolation import IsolatedAgent, probe_factory
from pytest_crmbench.run.settings import RunSettings
from pytest_crmbench.run.stdio_agent import SubprocessAgent, check_command, command_of, is_command


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspec)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crmbench", "crmbench: CRM agent benchmark")
    optiontable.declare(group.addoption, parser.addini)


def pytest_configure(config: pytest.Config) -> None:
    started = time.monotonic()
    resumeoptions.configure(config, is_worker(config))  # a resumed run's own settings, before they are resolved
    settings = resolve_settings(config)
    config.stash[settings_key] = settings
    config.stash[registered_markers_key] = set()
    options.configure(config)
    config.pluginmanager.register(fixtures, "crmbench-fixtures")
    config.pluginmanager.register(DefaultAgentHook(settings.agent_inprocess), "crmbench-default-agent")
    config.pluginmanager.register(ForgetFinished(), "crmbench-forget")
    record_settings = resolve_record_settings(config, settings)
    config.stash[record_settings_key] = record_settings
    recorder.configure(config, settings, record_settings, is_worker(config))
    sample.configure(
        config,
        option_value(config, "crm_sample"),
        settings.base_seed,
        None if is_worker(config) else config.stash[recorder.recorder_key],
    )
    lines: StartupLines | None = None
    if not is_worker(config):
        run_recorder = config.stash[recorder.recorder_key]
        lines = StartupLines(config)
        config.pluginmanager.register(lines, STARTUP)
        summary = RunSummary(config, run_recorder, required_value(config, "crm_progress"))
        config.pluginmanager.register(summary, "crmbench-summary")
        every = required_value(config, "crm_html_every")
        if run_recorder.run_dir is not None and record_settings.html and every and not config.option.collectonly:
            config.pluginmanager.register(LiveReport(run_recorder, every), LIVE_REPORT)
    if settings.concurrency > 1 and distributes(config):
        config.pluginmanager.register(StaticSchedule(), "crmbench-static-schedule")
    elif settings.concurrency > 1:
        config.pluginmanager.register(RunAhead(config, settings.concurrency), "crmbench-runahead")
    models = settings.models
    uses_models = bool(models.agent or models.user or models.judge)
    preflight = uses_models and not is_worker(config) and not option_value(config, "crm_no_preflight")
    if preflight:
        config.pluginmanager.register(Preflight(settings, distributed=distributes(config), lines=lines), PREFLIGHT)
    elif uses_models and not config.option.collectonly and not distributes(config):
        # The seconds litellm's import takes overlap collection instead of delaying the first call
        # (the preflight, when on, imports it on its own thread the same way).
        models.transport.import_in_background()
    for difficulty in DIFFICULTIES:
        config.addinivalue_line("markers", f"{difficulty}: crmbench task difficulty")
    if config.option.markers:
        list_task_markers(config)
    check_agent_name(config, settings)
    if option_value(config, "crm_suite") and config.args_source != pytest.Config.ArgsSource.ARGS:
        # No paths given: collect the shipped tasks (not the current directory's files).
        config.args[:] = [str(settings.content_root / "tasks")]
    if lines is not None:
        lines.set_up(time.monotonic() - started, setup_done(config, config.stash[recorder.recorder_key]))


def setup_done(config: pytest.Config, run_recorder: RunRecorder) -> list[str]:
    """What crmbench's set-up did, for its start-up line (:mod:`.startup`)."""
    done = []
    task_set = run_recorder.task_set() if run_recorder.run_dir is not None else None
    if task_set is not None:
        done.append(f"task set of {len(task_set.tasks)} tasks hashed")
    if run_recorder.options.resume is not None:
        done.append(f"{len(run_recorder.previous)} saved result(s) re-graded to resume")
        taken: dict[str, Any] = config.stash.get(resumeoptions.resumed_key, {})
        restored = resumeoptions.described(taken)
        if restored:
            done.append(f"settings from the run: {restored}")
    if run_recorder.run_dir is not None:
        done.append(f"run directory {shown(run_recorder.run_dir.path, config.invocation_params.dir)}")
    return done


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    # What the agents left (an unclosed socket in a reference cycle) is collected now, with warnings
    # shown: the session's end re-grades the saved run, whose allocations would otherwise trigger
    # that collection under the project's `error` filter.
    collect_at_exit(session.config)


@pytest.hookimpl(tryfirst=True)  # before pytest's last collection of unraisable exceptions
def pytest_unconfigure(config: pytest.Config) -> None:
    collect_at_exit(config)
    settings = config.stash.get(settings_key, None)
    if settings is not None:
        settings.models.transport.close()  # undo the offline environment litellm was imported with


def list_task_markers(config: pytest.Config) -> None:
    """``pytest --markers`` runs before collection: read the task files now so their domains and
    capability tags are listed too (only then: it costs a parse of every task file)."""
    settings = config.stash[settings_key]
    # A broken file is reported where it is collected, not here.
    for record in load_task_files(settings.task_files.find(settings.content_root)).records:
        register_markers(config, record.task)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> TaskFile | None:
    if file_path.suffix in (".yaml", ".yml") and is_task_file(parent.config, file_path):
        return TaskFile.from_parent(parent, path=file_path)
    return None


def resolve_settings(config: pytest.Config) -> RunSettings:
    """Command line over ini over defaults, validated once."""
    limits = Limits(
        max_user_turns=required_value(config, "crm_max_turns"),
        max_react_iterations=required_value(config, "crm_max_iterations"),
        task_timeout_s=required_value(config, "crm_timeout"),
        max_tool_calls=required_value(config, "crm_max_tool_calls"),
    )
    root = content_root(config)
    chosen = options.resolve(config, option_value(config, "crm_agent"), root)
    return RunSettings(
        agent=chosen.agent,
        models=chosen.models,
        graph_dirs=chosen.graph_dirs,
        concurrency=chosen.concurrency,
        agent_inprocess=bool(option_value(config, "crm_agent_inprocess")),
        base_seed=required_value(config, "crm_seed"),
        limits=limits,
        trials=required_value(config, "crm_trials"),
        env_dirs=tuple(root / d for d in option_value(config, "crm_env_dirs")),
        content_root=root,
        task_files=TaskFiles(
            tuple(option_value(config, "crm_task_files")), tuple(option_value(config, "crm_task_exclude"))
        ),
    )


def content_root(config: pytest.Config) -> Path:
    """Where tasks, environments and graphs are: the rootdir, or the shipped suite (``--crm-suite``)."""
    if not option_value(config, "crm_suite"):
        return config.rootpath
    try:
        return suite_root()
    except CrmbenchError as exc:
        raise pytest.UsageError(f"--crm-suite: {exc}") from None


def distributes(config: pytest.Config) -> bool:
    """Whether this process is an xdist controller handing items to workers (it plays none itself)."""
    return not is_worker(config) and getattr(config.option, "dist", "no") != "no"


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (only the controller reports and writes files)."""
    return hasattr(config, "workerinput")


def check_agent_name(config: pytest.Config, settings: RunSettings) -> None:
    """Fail fast on an agent no implementation can build (rather than once per item).

    An isolated agent's module is imported in a child process, never in this one (issue 30): its
    import runs the agent's code."""
    name = settings.agent
    if len(config.pluginmanager.hook.pytest_crmbench_make_agent.get_hookimpls()) > 1:
        return  # a conftest or plugin may know the name
    if is_command(name):
        problem = check_command(name)
        if problem is not None:
            raise pytest.UsageError(f"--crm-agent: {problem}")
        return
    if is_a2a(name):
        problem = None if is_worker(config) else check_url(name)  # the controller fetched its card
        if problem is not None:
            raise pytest.UsageError(f"--crm-agent: {problem}")
        return
    if settings.isolated and ":" in name:
        if is_worker(config):
            return  # the controller checked it
        problem = probe_factory(name)
        if problem is not None:
            raise pytest.UsageError(f"--crm-agent: {problem}")
        return
    try:
        load_factory(name)
    except CrmbenchError as exc:
        raise pytest.UsageError(f"--crm-agent: {exc}") from None


def is_task_file(config: pytest.Config, path: Path) -> bool:
    settings = config.stash[settings_key]
    return settings.task_files.is_task_file(path, settings.content_root)


class DefaultAgentHook:
    """The built-in agents; registered as a plugin so conftest implementations run first.

    A ``package.module:factory`` agent is built and run in its own process (issue 30), unless
    ``--crm-agent-inprocess`` asked for this one; a ``cmd:<command line>`` agent is that command,
    called per user turn over stdio (issue 31), never in this process; an ``a2a:<url>`` agent is
    the A2A server at that URL, sent a message per user turn."""

    def __init__(self, inprocess: bool = False) -> None:
        self.inprocess = inprocess

    @pytest.hookimpl(trylast=True)
    def pytest_crmbench_make_agent(self, name: str, context: AgentContext) -> Agent:
        if is_command(name):
            return SubprocessAgent(command_of(name), context)
        if is_a2a(name):
            return A2AAgent(url_of(name), context)
        if name not in BUILTIN_AGENTS and not self.inprocess:
            load_factory_name_checked(name)
            return IsolatedAgent(name, context)
        return load_factory(name)(context)


def load_factory_name_checked(name: str) -> None:
    """A ``package.module:factory`` name's shape, checked without importing anything."""
    module_name, sep, attr = name.partition(":")
    if not sep or not module_name or not attr:
        load_factory(name)  # raises the usual AgentConfigError
