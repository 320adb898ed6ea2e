"""crmbench: a pytest-native benchmark for LLM agents doing stateful, multi-turn CRM work.

The public API for environment and agent authors. Importing it never imports litellm.
"""

from __future__ import annotations

from pytest_crmbench.core.errors import AgentAbort, CrmbenchError, InfraError, SpecError
from pytest_crmbench.core.evidence import Evidence, Message, ToolCall
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser, User, UserDecision
from pytest_crmbench.env.environment import Rejection, ToolEnvironment, tool
from pytest_crmbench.env.registry import register_environment
from pytest_crmbench.grading import grade
from pytest_crmbench.grading.verdict import CheckVerdict, TaskVerdict
from pytest_crmbench.run.agents import GoldAgent, NullAgent
from pytest_crmbench.run.episode import Agent, AgentContext, Limits, ToolBox, run_episode

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentAbort",
    "AgentContext",
    "CheckVerdict",
    "CrmbenchError",
    "Evidence",
    "GoldAgent",
    "InfraError",
    "Limits",
    "Message",
    "NullAgent",
    "Rejection",
    "ScriptedUser",
    "SpecError",
    "Task",
    "TaskVerdict",
    "ToolBox",
    "ToolCall",
    "ToolEnvironment",
    "User",
    "UserDecision",
    "grade",
    "register_environment",
    "run_episode",
    "tool",
]
