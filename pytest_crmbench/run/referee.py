"""The referee of an episode: the only way from the agent to the environment, and the keeper of the evidence.

An agent under evaluation runs in the harness's process, so nothing can be made truly unreachable
(Python introspection reaches everything). The referee makes the supported paths safe and the
other ones detectable (issue 11 item 11):

* The agent's :class:`ToolBox` holds closures over the referee, not the environment: no attribute
  leads to the live state, the trace, the RNG or the clock.
* The referee keeps its own copies of every tool call and of the routing log; the evidence is built
  from those, not from the environment's trace, and the agent gets copies too.
* It remembers the world (state, id source, clock) after every tool call and compares it at the
  next call and at the end of the episode: any change made outside a tool call ends the episode as
  ``tampered``, a failure that reports say out loud. So does an edited environment trace.
* A tool that crashes is a bug in the domain, not a move of the agent: the episode ends as
  ``harness_error``, even if the agent swallows the exception it is handed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from pytest_crmbench.core.errors import AgentError, CrmbenchError, HarnessError
from pytest_crmbench.core.evidence import RoutingDecision, Termination, ToolCall
from pytest_crmbench.env.environment import ToolEnvironment, clone


class EpisodeTampered(CrmbenchError):
    """Raised into the agent when the referee finds the world changed outside a tool call."""


class _World:
    """What the referee remembers of the environment between two tool calls."""

    def __init__(self, env: ToolEnvironment, known: dict[str, Any]) -> None:
        # A read tool leaves the state alone: comparing is cheaper than copying, so the copy the
        # referee already holds (the last one, or its initial state) is kept when nothing changed.
        self.state: dict[str, Any] = known if env.state == known else clone(env.state)
        self.rng = env.rng.getstate()
        self.ticks = env._ticks
        self.ids = frozenset(env._issued_ids)

    def differences(self, env: ToolEnvironment) -> list[str]:
        found = []
        if env.state != self.state:
            found.append("the state")
        if env.rng.getstate() != self.rng:
            found.append("the id source")
        if env._ticks != self.ticks:
            found.append("the clock")
        if frozenset(env._issued_ids) != self.ids:
            found.append("the issued ids")
        return found


class Referee:
    """Owns one episode's environment, tool trace and routing log."""

    def __init__(self, env: ToolEnvironment, *, max_tool_calls: int = 200) -> None:
        self._env = env
        self.max_tool_calls = max_tool_calls
        """Tool calls per user turn; later calls of the turn are refused (recorded, not run)."""
        self._per_turn: dict[int, int] = {}
        self.overrun: str | None = None
        """Why the agent's episode ended at twice the tool-call limit (it ignored the refusals)."""
        self.calls: list[ToolCall] = []
        self.routing: list[RoutingDecision] = []
        self.initial_state: dict[str, Any] = env.initial_state_copy()
        self.tampering: str | None = None
        self.crash: ToolCall | None = None
        self._world = _World(env, self.initial_state)

    # -- what the agent's ToolBox reaches --------------------------------------------------------

    def toolbox(self, turn: int, deadline: float, clock: Callable[[], float]) -> ToolBox:
        # Closures, not bound methods: a bound method's __self__ would lead straight back here.
        return ToolBox(
            lambda *args: self._route(*args),
            lambda *args: self._schemas(*args),
            lambda *args: self._call(*args),
            turn=turn,
            deadline=deadline,
            clock=clock,
        )

    def _route(self, turn: int, node: str, detail: str | None) -> None:
        self.routing.append(RoutingDecision(turn=turn, node=node, detail=detail))

    def _schemas(self, exposed: Collection[str] | None) -> list[dict[str, Any]]:
        return type(self._env).tool_schemas(exposed)

    def _call(
        self, name: str, arguments: Any, turn: int, node: str | None, exposed: Collection[str] | None
    ) -> ToolCall:
        if self.crash is not None:
            raise HarnessError(f"tool {self.crash.name} crashed earlier in this episode; no further calls")
        self.check(f"before tool call #{len(self.calls)}")
        if self.tampering is not None:
            raise EpisodeTampered(self.tampering)
        made = self._per_turn.get(turn, 0)
        self._per_turn[turn] = made + 1
        if made >= 2 * self.max_tool_calls:
            self.overrun = (
                f"the agent made {made + 1} tool calls in turn {turn}, twice the limit of {self.max_tool_calls}"
                " (--crm-max-tool-calls) after its calls were refused"
            )
            raise AgentError(self.overrun)
        refused = None
        if made >= self.max_tool_calls:
            refused = {
                "type": "tool_call_limit",
                "message": f"Tool call limit reached: at most {self.max_tool_calls} tool calls per user turn."
                " This call was not run; answer the user now.",
            }
        # The referee's copy of the world is the write's rollback snapshot: verified equal above,
        # so the environment need not copy the state a second time.
        call = self._env.call(
            name, arguments, turn=turn, node=node, exposed=exposed, state_copy=self._world.state, refused=refused
        )
        self.calls.append(_copy(call))
        self._world = _World(self._env, self._world.state)
        if call.status == "error" and (call.error or {}).get("type") == "internal_error":
            self.crash = self.calls[-1]
            error = call.error or {}
            raise HarnessError(
                f"tool {call.name} crashed: {error.get('message')}", traceback=error.get("traceback", "")
            )
        return _copy(call)  # the agent's own: editing it changes nothing here

    # -- the harness's side ---------------------------------------------------------------------

    def check(self, when: str) -> None:
        """Record tampering if the world or the environment's trace changed since the last call."""
        if self.tampering is not None:
            return
        changed = self._world.differences(self._env)
        if len(self._env.trace) != len(self.calls) or (when == "at the end" and self._env.trace != self.calls):
            changed.append("the environment's tool trace")
        if changed:
            self.tampering = f"{' and '.join(changed)} changed outside a tool call (found {when})"

    def final_state(self) -> dict[str, Any]:
        """The world as the tool calls left it. After tampering that is the last state the referee
        saw at a tool-call boundary, not what the agent wrote: evidence holds only what the tool
        calls did, so a replay of them reproduces it."""
        self.check("at the end")
        # Untampered, the environment's own state is the world (a private tree of this episode's
        # environment, shared with nothing else); tampered, the referee's last copy.
        return self._world.state if self.tampering is not None else self._env.state

    def verdict(self, termination: Termination) -> Termination:
        """The episode's termination once the referee has had its say: tampering, then a tool crash."""
        self.check("at the end")
        if self.tampering is not None:
            return Termination(reason="tampered", detail=self.tampering)
        if self.crash is not None:
            error = self.crash.error or {}
            detail = f"tool {self.crash.name} crashed: {error.get('message')}\n{error.get('traceback', '')}".rstrip()
            return Termination(reason="harness_error", detail=detail)
        if self.overrun is not None:
            return Termination(reason="agent_error", detail=self.overrun)
        return termination


def _copy(call: ToolCall) -> ToolCall:
    """A copy of a call whose trees are copies too (``clone``: much cheaper than ``deepcopy``)."""
    return call.model_copy(
        update={
            "arguments": clone(call.arguments),
            "effective_arguments": clone(call.effective_arguments),
            "result": clone(call.result),
            "error": clone(call.error),
        }
    )


class ToolBox:
    """What an agent may touch during one user turn: routing and the tools of the chosen node.

    It holds functions of the episode's :class:`Referee`, never the environment itself.
    """

    def __init__(
        self,
        route: Callable[[int, str, str | None], None],
        schemas: Callable[[Collection[str] | None], list[dict[str, Any]]],
        call: Callable[[str, Any, int, str | None, Collection[str] | None], ToolCall],
        *,
        turn: int,
        deadline: float,
        clock: Callable[[], float],
    ) -> None:
        self.__route, self.__schemas, self.__call, self.__clock = route, schemas, call, clock
        self.turn = turn
        self.deadline = deadline
        self.node: str | None = None
        self.exposed: frozenset[str] | None = None

    def route(self, node: str, *, tools: Collection[str] | None = None, detail: str | None = None) -> None:
        """Record a routing decision and expose only ``tools`` (None: every domain tool)."""
        self.__route(self.turn, node, detail)
        self.node = node
        self.exposed = None if tools is None else frozenset(tools)

    def schemas(self) -> list[dict[str, Any]]:
        """JSON schemas of the exposed tools."""
        return self.__schemas(self.exposed)

    def call(self, name: str, arguments: str | Mapping[str, Any] | None = None) -> ToolCall:
        """Attempt a tool call; the referee records it whatever happens."""
        return self.__call(name, arguments, self.turn, self.node, self.exposed)

    def time_left(self) -> float:
        return self.deadline - self.__clock()
