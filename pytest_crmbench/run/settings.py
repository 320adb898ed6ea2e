"""RunSettings: every ``--crm-*`` flag and ``crm_*`` ini value, resolved once into a frozen object.

Engine modules receive a RunSettings, never a ``pytest.Config``; the CLI builds the same object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pytest_crmbench.core.taskfiles import TaskFiles
from pytest_crmbench.models.llm import ModelSettings
from pytest_crmbench.run.a2a_agent import is_a2a
from pytest_crmbench.run.episode import Limits
from pytest_crmbench.run.stdio_agent import is_command


@dataclass(frozen=True)
class RunSettings:
    agent: str = "gold"
    base_seed: int = 0
    limits: Limits = field(default_factory=Limits)
    trials: int = 1
    env_dirs: tuple[Path, ...] = ()
    content_root: Path = Path()
    """The folder task-file globs, environment and graph folders are relative to: the rootdir, or
    the shipped suite under ``--crm-suite``."""
    task_files: TaskFiles = field(default_factory=TaskFiles)
    models: ModelSettings = field(default_factory=ModelSettings)
    graph_dirs: tuple[Path, ...] = ()
    concurrency: int = 1
    agent_inprocess: bool = False
    """``--crm-agent-inprocess``: a ``package.module:factory`` agent runs in this process (not gate-worthy)."""

    @property
    def isolated(self) -> bool:
        """Whether the agent runs in its own process: a ``cmd:`` or ``a2a:`` agent always, a
        ``package.module:factory`` agent unless opted out (the built-in ones and those a hook or
        fixture builds are the project's own code)."""
        return self.outside or (":" in self.agent and not self.agent_inprocess)

    @property
    def outside(self) -> bool:
        """Whether the agent is one crmbench calls per turn and never runs here: ``cmd:``, ``a2a:``."""
        return is_command(self.agent) or is_a2a(self.agent)

    @property
    def gate_worthy(self) -> bool:
        """False when an agent under evaluation ran in pytest's process (``--crm-agent-inprocess``):
        it could reach everything there, so no gate may trust the run (issue 30). A ``cmd:`` or
        ``a2a:`` agent never runs there."""
        return ":" not in self.agent or self.outside or not self.agent_inprocess
