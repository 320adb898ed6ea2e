"""An agent outside pytest's process that crmbench calls per user turn (issue 31): what its two
channels share.

A ``cmd:`` agent (:mod:`.stdio_agent`, JSON lines over stdio) and an ``a2a:`` agent
(:mod:`.a2a_agent`, an A2A server) differ only in how a turn reaches them and how their reply
comes back. Everything else is the same and lives here, in :class:`OutsideAgent`:

* the episode's doors, opened on the first turn: its tools over MCP (:mod:`.mcp_tools`) and, with
  ``--crm-model``, its model through the proxy (:mod:`.model_proxy`), each opened for a turn and
  closed after it, stopped by :meth:`OutsideAgent.close`;
* a failure of the agent's model that ends the episode (``infra``, ``agent_abort``), reported by
  the proxy's thread and raised on the harness's thread;
* the two messages both channels send, built once: ``start`` (what the agent may know of the
  episode: :meth:`OutsideAgent.start_message`) and ``turn`` (the visible conversation:
  :meth:`OutsideAgent.turn_message`). A ``cmd:`` agent reads them as lines, an A2A agent in a
  message's data part.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.run.episode import AgentContext, EndsEpisode, ToolBox
from pytest_crmbench.run.mcp_tools import EpisodeToolServer

__all__ = ["PROTOCOL", "PROXY_KEY", "OutsideAgent"]

PROTOCOL = 1
"""The version of the ``start`` / ``turn`` messages (and of the stdio protocol around them)."""
PROXY_KEY = "crmbench-proxy"
"""The API key an outside agent is given for the proxy: a placeholder (the provider's key stays here)."""


class OutsideAgent(EndsEpisode):
    """The harness's side of an agent in another process or host: the doors it reaches back through.

    Subclasses call :meth:`_open_doors` on the first turn, run each turn inside :meth:`_doors_open`,
    and end with :meth:`_close_doors`; :meth:`_wake` is how a model failure interrupts their wait.
    """

    def __init__(self, context: AgentContext) -> None:
        self._context = context
        self.episode = f"{context.domain}-{context.seed}-{secrets.token_hex(4)}"
        self._tools_server: EpisodeToolServer | None = None
        self._proxy: Any = None
        self._failure: CrmbenchError | None = None
        self.name: str | None = None
        """The agent's own name, as it reported it (a label, nothing more)."""

    # -- the messages --------------------------------------------------------------------------

    def start_message(self, model: Mapping[str, Any] | None) -> dict[str, Any]:
        """What the agent may know of its episode, once, before its first turn."""
        context = self._context
        assert self._tools_server is not None, "the doors are not open"
        return {
            "type": "start",
            "protocol": PROTOCOL,
            "episode": self.episode,
            "domain": context.domain,
            "policy": context.policy,
            "tools": [dict(schema) for schema in context.tools],
            "seed": context.seed,
            "limits": asdict(context.limits),
            "mcp_url": self._tools_server.url,
            "model": None if model is None else dict(model),
        }

    @staticmethod
    def turn_message(conversation: Sequence[Message], tools: ToolBox) -> dict[str, Any]:
        """One user turn: the visible conversation so far (the user's new message last)."""
        return {
            "type": "turn",
            "turn": tools.turn,
            "conversation": [m.model_dump() for m in conversation],
            "time_left": round(max(0.0, tools.time_left()), 3),
        }

    # -- the doors -----------------------------------------------------------------------------

    def _open_doors(self) -> dict[str, Any] | None:
        """Start the MCP tool server and, with a model, the proxy; the ``model`` the agent is given
        (the proxy's endpoint and placeholder key, None without a model)."""
        context = self._context
        self._tools_server = EpisodeToolServer(_schemas_of(context), episode=self.episode).start()
        if context.model is None:
            return None
        from pytest_crmbench.run.model_proxy import ModelProxy

        self._proxy = ModelProxy(context.model, context.usage, on_failure=self._model_failed).start()
        return {"base_url": self._proxy.base_url, "api_key": PROXY_KEY, "model": context.model.model}

    @contextlib.contextmanager
    def _doors_open(self, tools: ToolBox) -> Iterator[EpisodeToolServer]:
        """Serve this turn's ToolBox over MCP and count its model requests, until the turn ends."""
        assert self._tools_server is not None, "the doors are not open"
        server = self._tools_server
        server.open_turn(tools)
        if self._proxy is not None:
            self._proxy.open_turn(tools.deadline)
        try:
            yield server
        finally:
            server.close_turn()
            if self._proxy is not None:
                self._proxy.close_turn()

    def _close_doors(self) -> None:
        """Stop the MCP server and the proxy, whatever state they are in."""
        if self._tools_server is not None:
            self._tools_server.stop()
            self._tools_server = None
        if self._proxy is not None:
            self._proxy.stop()
            self._proxy = None

    def _model_failed(self, failure: CrmbenchError) -> None:
        """The proxy's thread: the agent's model failed for good; wake the harness's thread."""
        if self._failure is None:
            self._failure = failure
        self._wake()

    def _wake(self) -> None:
        """Interrupt the harness's wait for the agent (called from the proxy's thread)."""


def _schemas_of(context: AgentContext) -> Any:
    """The MCP server's schemas: the domain's, narrowed to the exposed names (all for None)."""
    every = [dict(schema) for schema in context.tools]

    def schemas(exposed: frozenset[str] | None) -> list[dict[str, Any]]:
        if exposed is None:
            return [dict(schema) for schema in every]
        return [dict(s) for s in every if (s.get("function") or s).get("name") in exposed]

    return schemas
