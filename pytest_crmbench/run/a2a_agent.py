"""An agent crmbench calls over A2A (issue 31): a server at a URL, one message per user turn.

``--crm-agent=a2a:<url>`` names an A2A server by its base URL (http or https); its agent card is
at ``<url>/.well-known/agent-card.json`` and says where its JSON-RPC (or HTTP+JSON) endpoint is.
crmbench is the A2A client (the official ``a2a-sdk``, protocol 1.0) and sends, per user turn, one
blocking ``SendMessage`` (``message/send`` in A2A 0.3), all turns of an episode in one
``contextId``. Each message carries the user's text as a text part and a data part::

    {"crmbench": {"start": {...}, "turn": {...}}}

``start`` (the first message of the episode only) and ``turn`` are the very messages of the stdio
protocol (:mod:`.stdio_agent`, built by :class:`~pytest_crmbench.run.outside.OutsideAgent`): the
episode, domain, policy, tool schemas, seed, limits, the episode's MCP tool server (``mcp_url``)
and the model proxy (``model``: base URL, placeholder key, model id, or null), then the turn
index, the visible conversation and the time left. Numbers travel as protobuf ``Value`` doubles:
an SDK built on protobuf gives ``10.0`` for ``10``.

The reply is an agent ``Message`` (its text parts, joined by newlines) or a ``Task`` in state
``completed`` or ``input-required`` (its status message's text parts, else its artifacts'). A task
that is ``failed``, ``rejected`` or ``canceled``, an answer crmbench cannot read, an HTTP or
JSON-RPC error are the agent's own scored failure (``agent_error``, naming the URL). No answer by
the task's deadline is ``timeout``: the request is dropped and the context's unfinished tasks are
sent ``CancelTask`` (best effort). A failure of the agent's model through the proxy ends the
episode with its own termination, as for a ``cmd:`` agent.

Routing: a data part ``{"crmbench": {"route": {"node", "tools"?, "detail"?}}}`` in an answer
records a routing decision for the turn (validated as a stdio ``route``) and narrows the MCP
server's tools. An answer that carries a route and no text, as a ``Message`` or an
``input-required`` task, asks to go on with the turn: crmbench answers in the same context (and
task) with ``{"crmbench": {"routed": {"type": "routed", "tools"}}}`` and waits for the turn's
reply; an answer with text ends the turn (its route, if any, recorded first).

``a2a-sdk`` and ``httpx`` are imported only when an ``a2a:`` agent is used (the ``[a2a]`` extra).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import urllib.parse
import uuid
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pytest_crmbench.core.errors import AgentConfigError, AgentError, AgentTimedOut, CrmbenchError
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.run.episode import AgentContext, ToolBox
from pytest_crmbench.run.isolation import reported_name, route_from
from pytest_crmbench.run.mcp_tools import cancel_and_wait
from pytest_crmbench.run.outside import OutsideAgent

__all__ = ["A2A_PREFIX", "A2AAgent", "check_url", "is_a2a", "url_of"]

A2A_PREFIX = "a2a:"
EXTRA_HINT = "pip install 'crmbench[a2a]'"
CONNECT_TIMEOUT_S = 10.0
"""How long connecting to the agent's server may take (a request itself may take the task's time)."""
CARD_TIMEOUT_S = 10.0
CANCEL_GRACE_S = 2.0
"""How long cancelling a timed-out agent's tasks, and closing the client, may take."""
MAX_ROUTES = 50
"""Routing round trips in one turn; more is a protocol violation (an agent routing in a loop)."""

T = TypeVar("T")


def is_a2a(name: str) -> bool:
    return name.startswith(A2A_PREFIX)


def url_of(name: str) -> str:
    """The base URL of an ``a2a:<url>`` agent name (raises CrmbenchError)."""
    url = name[len(A2A_PREFIX) :].strip().rstrip("/")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CrmbenchError(f"agent {name!r}: expected an http or https URL after {A2A_PREFIX!r}, got {url!r}")
    return url


def check_url(name: str) -> str | None:
    """What is wrong with an ``a2a:`` agent name: its URL, the client package, its agent card (None:
    nothing). Fetches the card once."""
    try:
        url = url_of(name)
        return asyncio.run(_probe(url))
    except CrmbenchError as exc:
        return str(exc)


async def _probe(url: str) -> None:
    httpx = _httpx()
    async with httpx.AsyncClient(timeout=CARD_TIMEOUT_S) as http:
        await _client_for(http, url)


class A2AAgent(OutsideAgent):
    """Stands in for an A2A agent in the harness: each ``respond`` is one ``SendMessage`` (or a few,
    when the agent routes mid-turn). Its ``name`` is its agent card's.

    The MCP tool server, the model proxy, the client and its event loop (a thread of their own:
    the A2A client is async, a turn is not) start on the first turn and end with :meth:`close`.
    """

    def __init__(self, url: str, context: AgentContext) -> None:
        super().__init__(context)
        self.url = url
        self._context_id = str(uuid.uuid4())
        self._task_id: str | None = None
        """The task an ``input-required`` answer left open: the next message continues it."""
        self._start: dict[str, Any] | None = None
        self._loop: _Loop | None = None
        self._client: Any = None
        self._http: Any = None
        self._woken: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._closed = False
        self.canceled: list[str] = []
        """The tasks crmbench asked the agent to cancel when a turn ran out of time."""

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        with self._turn():
            if self._closed:
                raise AgentError(f"the A2A agent at {self.url}: its episode has ended")
            first = self._loop is None
            if first:
                self._begin(tools)
            with self._doors_open(tools) as server:
                data: dict[str, Any] = {"turn": self.turn_message(conversation, tools)}
                if first:
                    data = {"start": self._start, **data}
                answer = self._ask(conversation[-1].content if conversation else "", data, tools)
                for _ in range(MAX_ROUTES):
                    names = None
                    for route in answer.routes:
                        names = route_from(tools, route, self._violation)
                        server.routed()
                    if answer.text is not None or not answer.routes or not answer.waiting:
                        return answer.text or ""
                    answer = self._ask("", {"routed": {"type": "routed", "tools": names}}, tools)
                raise self._violation(f"more than {MAX_ROUTES} routing requests in one turn")

    def end_episode(self) -> None:
        """No A2A message ends an episode: its context is simply not used again."""
        if self._tools_server is not None:
            self._tools_server.finish()
        self.close()

    def close(self) -> None:
        """Close the client, its connections and its event loop, the MCP server and the proxy."""
        self._closed = True
        loop, self._loop = self._loop, None
        if loop is not None:
            with contextlib.suppress(Exception):
                loop.run(self._disconnect(), CANCEL_GRACE_S)
            loop.stop()
        self._close_doors()

    # -- the exchange --------------------------------------------------------------------------

    def _begin(self, tools: ToolBox) -> None:
        httpx = _httpx()  # before anything starts: a missing package is a configuration error
        self._loop = _Loop(f"crmbench-a2a-{self.episode}")
        model = self._open_doors()
        self._start = self.start_message(model)

        async def connect() -> Any:
            self._http = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=CONNECT_TIMEOUT_S))
            self._client, card = await _client_for(self._http, self.url, failure=AgentError)
            return card

        card = self._wait(connect(), tools)
        self.name = reported_name({"name": card.name})

    def _ask(self, text: str, data: Mapping[str, Any], tools: ToolBox) -> _Answer:
        """One blocking ``SendMessage`` in the episode's context; the agent's answer, read."""
        response = self._wait(self._send(text, data), tools)
        answer = _read(response, self.url)
        self._task_id = answer.task_id
        return answer

    async def _send(self, text: str, data: Mapping[str, Any]) -> Any:
        from a2a.client import A2AClientError
        from a2a.helpers import new_data_part, new_text_part
        from a2a.types import Message as A2AMessage
        from a2a.types import Role, SendMessageConfiguration, SendMessageRequest
        from a2a.utils.errors import A2AError

        parts = [new_text_part(text)] if text else []
        parts.append(new_data_part({"crmbench": dict(data)}))
        message = A2AMessage(
            role=Role.ROLE_USER,
            message_id=str(uuid.uuid4()),
            context_id=self._context_id,
            task_id=self._task_id or "",
            parts=parts,
        )
        request = SendMessageRequest(message=message, configuration=SendMessageConfiguration(return_immediately=False))
        try:
            answers = [answer async for answer in self._client.send_message(request)]
        except (A2AClientError, A2AError) as exc:
            raise AgentError(f"the A2A agent at {self.url} answered with an error: {_said(exc)}") from None
        except ValueError as exc:  # the SDK: "Response has neither task nor message"
            raise AgentError(f"the A2A agent at {self.url} sent an answer crmbench cannot read: {exc}") from None
        if len(answers) != 1:
            raise AgentError(f"the A2A agent at {self.url} sent {len(answers)} answers to one message")
        return answers[0]

    def _wait(self, work: Coroutine[Any, Any, T], tools: ToolBox) -> T:
        """``work``'s result on the client's loop, or the end of the episode: its deadline, a failure
        of the agent's model."""
        assert self._loop is not None
        future = self._loop.submit(work)
        either: list[concurrent.futures.Future[Any]] = [future, self._woken]
        done, _ = concurrent.futures.wait(
            either, timeout=max(0.0, tools.time_left()), return_when=concurrent.futures.FIRST_COMPLETED
        )
        if future in done and self._failure is None:  # a failed model ends the episode, whatever the agent said
            return future.result()
        future.cancel()  # the request is dropped; the agent's task is asked to stop
        self._cancel_tasks()
        if self._failure is not None:
            raise self._failure
        raise AgentTimedOut(
            f"the A2A agent at {self.url} did not reply within the task's time limit (turn {tools.turn});"
            f" CancelTask was sent for {len(self.canceled)} unfinished task(s) of its context"
        )

    def _cancel_tasks(self) -> None:
        """Best effort: ask the agent to cancel what is still running in the episode's context."""
        if self._loop is None or self._client is None:
            return

        async def cancel() -> None:
            from a2a.types import CancelTaskRequest, ListTasksRequest

            ids = [self._task_id] if self._task_id else []
            with contextlib.suppress(Exception):  # ListTasks is optional for a server
                listed = await self._client.list_tasks(ListTasksRequest(context_id=self._context_id))
                ids += [task.id for task in listed.tasks if _state_name(task.status.state) not in _FINAL]
            for task_id in dict.fromkeys(ids):
                with contextlib.suppress(Exception):
                    await self._client.cancel_task(CancelTaskRequest(id=task_id))
                    self.canceled.append(task_id)

        with contextlib.suppress(Exception):
            self._loop.run(cancel(), CANCEL_GRACE_S)

    async def _disconnect(self) -> None:
        client, http, self._client, self._http = self._client, self._http, None, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()
        if http is not None:
            await http.aclose()

    def _wake(self) -> None:
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            self._woken.set_result(None)

    def _violation(self, what: str) -> AgentError:
        return AgentError(f"the A2A agent at {self.url} broke crmbench's protocol: {what}")


# -- reading an answer ---------------------------------------------------------------------------

_FINAL = frozenset({"completed", "failed", "canceled", "rejected"})
_FAILED = frozenset({"failed", "canceled", "rejected"})
_REPLIES = frozenset({"completed", "input-required"})


@dataclass(frozen=True)
class _Answer:
    text: str | None
    """The answer's text parts joined (None: it had none)."""
    routes: list[Mapping[str, Any]] = field(default_factory=list)
    waiting: bool = False
    """A Message or an input-required task: the agent may be answered in the same turn."""
    task_id: str | None = None
    """The input-required task the next message continues."""


def _read(response: Any, url: str) -> _Answer:
    """The turn's answer from a ``SendMessage`` response: an agent Message, or a Task that replied."""
    if response.HasField("message"):
        parts = list(response.message.parts)
        return _Answer(_text_of(parts), _routes_of(parts, url), waiting=True)
    if not response.HasField("task"):
        raise AgentError(f"the A2A agent at {url} sent an answer crmbench cannot read: neither a message nor a task")
    task = response.task
    state = _state_name(task.status.state)
    said = list(task.status.message.parts)
    made = [part for artifact in task.artifacts for part in artifact.parts]
    if state in _FAILED:
        reason = _text_of(said) or _text_of(made) or "no reason given"
        raise AgentError(f"the A2A agent at {url} answered with a {state} task: {reason[:2000]}")
    if state not in _REPLIES:
        raise AgentError(
            f"the A2A agent at {url} answered a blocking request with a task in state {state!r}"
            " (crmbench reads a completed or input-required task, or a message)"
        )
    text = _text_of(said)
    waiting = state == "input-required"
    return _Answer(
        text if text is not None else _text_of(made),
        _routes_of(said + made, url),
        waiting=waiting,
        task_id=task.id if waiting else None,
    )


def _text_of(parts: Sequence[Any]) -> str | None:
    texts = [part.text for part in parts if part.HasField("text")]
    return "\n".join(texts) if texts else None


def _routes_of(parts: Sequence[Any], url: str) -> list[Mapping[str, Any]]:
    """The routing requests among an answer's data parts (``{"crmbench": {"route": {...}}}``)."""
    from a2a.helpers import get_data_parts

    routes: list[Mapping[str, Any]] = []
    for data in get_data_parts(parts):
        ours = data.get("crmbench") if isinstance(data, dict) else None
        if ours is None:
            continue  # the agent's own data, not for crmbench
        route = ours.get("route") if isinstance(ours, dict) else None
        if not isinstance(route, dict):
            raise AgentError(
                f"the A2A agent at {url} broke crmbench's protocol: a 'crmbench' data part without a route"
            )
        routes.append(route)
    return routes


def _state_name(state: int) -> str:
    """``TASK_STATE_INPUT_REQUIRED`` as the A2A specification writes it: ``input-required``."""
    from a2a.types import TaskState

    try:
        name = str(TaskState.Name(state))
    except ValueError:
        return f"unknown ({state})"
    return name.removeprefix("TASK_STATE_").lower().replace("_", "-")


def _said(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0][:500]


# -- the client ----------------------------------------------------------------------------------


def _httpx() -> Any:
    """httpx, once a2a-sdk is known to be there (a missing package is a configuration error)."""
    try:
        import a2a.client  # noqa: F401
        import httpx
    except ImportError:
        raise AgentConfigError(f"an a2a: agent needs the a2a extra: {EXTRA_HINT}") from None
    return httpx


async def _client_for(http: Any, url: str, failure: type[CrmbenchError] = AgentConfigError) -> tuple[Any, Any]:
    """The agent's card from its well-known path and a client for it; ``failure`` names the URL and
    what came back when there is no A2A agent there."""
    from a2a.client import A2ACardResolver, AgentCardResolutionError, ClientConfig, ClientFactory
    from a2a.utils.constants import TransportProtocol

    try:
        card = await A2ACardResolver(http, url).get_agent_card()
    except AgentCardResolutionError as exc:
        raise failure(f"agent 'a2a:{url}': no A2A agent card: {_said(exc)}") from None
    except Exception as exc:  # whatever the transport raised: no card there is the user's to fix
        raise failure(f"agent 'a2a:{url}': no A2A agent card: {type(exc).__name__}: {_said(exc)}") from None
    if not card.name or not card.supported_interfaces:
        raise failure(f"agent 'a2a:{url}': its agent card has no name or no supportedInterfaces: not an A2A card")
    bindings = [TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON]
    config = ClientConfig(streaming=False, httpx_client=http, supported_protocol_bindings=list(bindings))
    try:
        client = ClientFactory(config).create(card)
    except ValueError as exc:
        offered = sorted({i.protocol_binding for i in card.supported_interfaces})
        raise failure(
            f"agent 'a2a:{url}': {exc} (its card offers {offered}; crmbench speaks JSONRPC, HTTP+JSON)"
        ) from None
    return client, card


class _Loop:
    """An event loop on a thread of its own, for the async client of a synchronous harness."""

    def __init__(self, name: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def submit(self, work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(work, self._loop)

    def run(self, work: Coroutine[Any, Any, T], timeout_s: float) -> T:
        return self.submit(work).result(timeout_s)

    def stop(self) -> None:
        """Cancel what is left on the loop, stop it and wait for its thread."""
        with contextlib.suppress(Exception):
            self.run(_cancel_left(), CANCEL_GRACE_S)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CANCEL_GRACE_S + 1.0)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        finally:
            self._loop.close()


async def _cancel_left() -> None:
    await cancel_and_wait(task for task in asyncio.all_tasks() if task is not asyncio.current_task())
