"""crmbench: a pytest-native benchmark for LLM agents doing stateful, multi-turn CRM work.

The public API for environment and agent authors. Importing it never imports litellm.
"""

from __future__ import annotations

from pytest_crmbench.core.errors import AgentAbort, CrmbenchError, InfraError, SpecError
from pytest_crmbench.core.evidence import Evidence, Message, ToolCall
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser, User, UserDecision
from pytest_crmbench.env.dry_run import dry_run
from pytest_crmbench.env.environment import ToolEnvironment, tool
from pytest_crmbench.env.kit import Violation, invariant
from pytest_crmbench.env.rejection import Rejection, require
from pytest_crmbench.env.state import Record, Ref, StateError
from pytest_crmbench.env.values import ZERO, Amount, IsoDate, Money, NonBlank, Required, Timestamp, YearMonth, norm
from pytest_crmbench.grading import grade
from pytest_crmbench.grading.verdict import CheckVerdict, TaskVerdict
from pytest_crmbench.run.baselines import GoldAgent, NullAgent
from pytest_crmbench.run.episode import Agent, AgentContext, Limits, ToolBox, run_episode

__version__ = "0.1.0"

__all__ = [
    "ZERO",
    "Agent",
    "AgentAbort",
    "AgentContext",
    "Amount",
    "CheckVerdict",
    "CrmbenchError",
    "Evidence",
    "GoldAgent",
    "InfraError",
    "IsoDate",
    "Limits",
    "Message",
    "Money",
    "NonBlank",
    "NullAgent",
    "Record",
    "Ref",
    "Rejection",
    "Required",
    "ScriptedUser",
    "SpecError",
    "StateError",
    "Task",
    "TaskVerdict",
    "Timestamp",
    "ToolBox",
    "ToolCall",
    "ToolEnvironment",
    "User",
    "UserDecision",
    "Violation",
    "YearMonth",
    "dry_run",
    "grade",
    "invariant",
    "norm",
    "require",
    "run_episode",
    "tool",
]
