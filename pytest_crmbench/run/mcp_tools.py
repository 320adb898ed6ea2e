"""One episode's tools over the Model Context Protocol (issue 31): the door an outside agent's MCP client uses.

:class:`EpisodeToolServer` serves, on 127.0.0.1, a fresh port and an unguessable path
(``/mcp/<token>``), the tools of the turn's :class:`~pytest_crmbench.run.referee.ToolBox` with the
schemas the ToolBox gives (MCP streamable HTTP, the official SDK's low-level server). Nothing
crosses but JSON:

* ``tools/list``: the schemas of the tools the turn exposes (every domain tool until the agent
  routes; between turns, the last turn's);
* ``tools/call``: runs through the turn's real ToolBox, so the episode's referee records it with
  the turn and node the harness knows (never what the client says). The result is the text the
  reference agent shows its model (:meth:`ToolCall.output`, JSON), and, as ``structuredContent``
  and ``_meta``, the call's outcome stamped with the episode, turn, node and index. A business
  rejection (403/404/409/422 with its code and reason), a malformed call, an unknown tool are all
  results with ``isError: true`` the model can recover from; so is a call outside an open turn or
  after the episode finished (refused, not run, not recorded).
* when routing narrows (or widens) the exposed tools, the clients are told: a session of the
  handshake era (protocol 2025-*) gets ``notifications/tools/list_changed``; a client of the
  2026-07-28 protocol, which has no standing stream, gets the same event on each open
  ``subscriptions/listen`` stream that asked for ``toolsListChanged``.

The harness's thread opens and closes turns (:meth:`open_turn`, :meth:`close_turn`) and the
server's thread runs the calls; a lock keeps the environment to one thread at a time, so a turn
closes only once its last call has finished. The server runs in its own thread with its own event
loop (uvicorn), one per episode; :meth:`stop` ends it. ``mcp`` and ``uvicorn`` are imported when a
server starts (the ``[mcp]`` extra), never by importing this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pytest_crmbench.core.errors import AgentConfigError, HarnessError
from pytest_crmbench.core.evidence import jsonable
from pytest_crmbench.run.referee import ToolBox

__all__ = ["EpisodeToolServer", "cancel_and_wait", "mcp_installed"]

START_TIMEOUT_S = 20.0


def mcp_installed() -> bool:
    try:
        import mcp.server.lowlevel  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return False
    return True


class EpisodeToolServer:
    """The MCP server of one episode. ``schemas(exposed)`` gives the domain's schemas (all for None)."""

    def __init__(self, schemas: Callable[[frozenset[str] | None], list[dict[str, Any]]], *, episode: str) -> None:
        self.episode = episode
        self._schemas = schemas
        self._token = secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._tools: ToolBox | None = None
        self._exposed: frozenset[str] | None = None
        self._finished = False
        self._sessions: dict[str, Any] = {}
        """The latest server session of each MCP session id (the handshake-era clients to notify)."""
        self._listeners: Any = None
        """The subscription bus of the 2026-07-28 clients' ``subscriptions/listen`` streams."""
        self._listen: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._port = 0
        self.refused = 0
        """Calls refused because no turn was open or the episode had finished."""

    @property
    def url(self) -> str:
        """The streamable-HTTP endpoint; its path holds the episode's token."""
        return f"http://127.0.0.1:{self._port}/mcp/{self._token}"

    # -- the harness's side --------------------------------------------------------------------

    def start(self) -> EpisodeToolServer:
        try:
            import uvicorn
        except ImportError:
            raise AgentConfigError(
                "serving an episode's tools over MCP needs the mcp extra: pip install 'crmbench[mcp]'"
            ) from None
        app = self._app()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="error", lifespan="on", access_log=False, timeout_graceful_shutdown=1)
        server = uvicorn.Server(config)
        self._server = server

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(server.serve(sockets=[sock]))
                # What the server left running (sse-starlette's shutdown watcher) is cancelled and
                # awaited, so no "Task was destroyed but it is pending" line is logged.
                loop.run_until_complete(cancel_and_wait(asyncio.all_tasks(loop)))
            finally:
                with contextlib.suppress(Exception):
                    loop.close()
                sock.close()

        self._thread = threading.Thread(target=serve, name=f"crmbench-mcp-{self.episode}", daemon=True)
        self._thread.start()
        started = time.monotonic()
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() - started > START_TIMEOUT_S:
                raise HarnessError("the episode's MCP tool server did not start")
            time.sleep(0.005)
        return self

    def open_turn(self, tools: ToolBox) -> None:
        """Serve ``tools`` (this turn's ToolBox) until :meth:`close_turn`."""
        with self._lock:
            self._tools = tools
            changed = self._set_exposed(tools.exposed)
        if changed:
            self._announce()

    def routed(self) -> None:
        """The turn's ToolBox was routed: tell the clients when its exposed tools changed."""
        with self._lock:
            changed = self._tools is not None and self._set_exposed(self._tools.exposed)
        if changed:
            self._announce()

    def close_turn(self) -> None:
        """No more calls for this turn; waits for a call still running."""
        with self._lock:
            self._tools = None

    def finish(self) -> None:
        """The episode is over: every later call is refused."""
        with self._lock:
            self._tools = None
            self._finished = True

    def stop(self) -> None:
        self.finish()
        server, thread = self._server, self._thread
        if self._listen is not None and self._loop is not None:
            # Open listen streams end gracefully first: uvicorn waits for open responses.
            with contextlib.suppress(Exception):
                self._loop.call_soon_threadsafe(self._listen.close)
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(5.0)
            if thread.is_alive() and server is not None:
                server.force_exit = True
                thread.join(2.0)
        self._server = self._thread = None

    # -- the server's side ---------------------------------------------------------------------

    def _set_exposed(self, exposed: frozenset[str] | None) -> bool:
        changed = exposed != self._exposed
        self._exposed = exposed
        return changed

    def _announce(self) -> None:
        loop = self._loop
        if loop is None:
            return
        futures = [
            asyncio.run_coroutine_threadsafe(_notify(session), loop) for session in list(self._sessions.values())
        ]
        if self._listeners is not None:
            futures.append(asyncio.run_coroutine_threadsafe(_publish_tools_changed(self._listeners), loop))
        for future in futures:
            with contextlib.suppress(Exception):
                future.result(timeout=2.0)

    def _seen(self, context: Any) -> None:
        session = getattr(context, "session", None)
        request = getattr(context, "request", None)
        key = getattr(request, "headers", {}).get("mcp-session-id") if request is not None else None
        if session is not None:
            self._sessions[str(key)] = session

    def _listed(self) -> list[dict[str, Any]]:
        with self._lock:
            exposed = self._exposed
        return self._schemas(exposed)

    def _run(self, name: str, arguments: Any) -> tuple[Any, bool, dict[str, Any]]:
        """(what the model is shown, whether it is an error, the stamp) of one call."""
        with self._lock:
            tools = self._tools
            if tools is None:
                self.refused += 1
                why = "the episode has finished" if self._finished else "no user turn is open"
                message = f"Refused: {why}; tools can be called only while the agent answers a user turn."
                return {"error": {"outcome": "refused", "message": message}}, True, {"episode": self.episode}
            try:
                call = tools.call(name, arguments)
            except HarnessError as exc:  # a tool crashed: the referee ends the episode as harness_error
                return {"error": {"outcome": "error", "message": str(exc)}}, True, {"episode": self.episode}
            stamp = {"episode": self.episode, "turn": call.turn, "node": call.node, "index": call.index}
        return call.output(), call.status != "ok", {**stamp, "status": call.status}

    def _app(self) -> Any:
        import mcp_types as types
        from mcp.server.lowlevel import NotificationOptions, Server
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        async def list_tools(context: Any, params: Any) -> Any:
            self._seen(context)
            return types.ListToolsResult(tools=[_tool(types, schema) for schema in self._listed()])

        async def call_tool(context: Any, params: Any) -> Any:
            self._seen(context)
            arguments = params.arguments
            shown, is_error, stamp = self._run(params.name, arguments if arguments is not None else {})
            text = json.dumps(jsonable(shown), ensure_ascii=False)
            structured = shown if isinstance(shown, dict) else {"result": shown}
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)],
                structured_content=jsonable(structured),
                is_error=is_error,
                _meta={"crmbench": stamp},
            )

        self._listeners = InMemorySubscriptionBus()
        self._listen = ListenHandler(self._listeners)
        server: Any = Server(
            "crmbench",
            version="1",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_subscriptions_listen=self._listen,
        )
        original = server.get_capabilities

        def capabilities(notification_options: Any = None, *args: Any, **kwargs: Any) -> Any:
            return original(NotificationOptions(tools_changed=True), *args, **kwargs)

        server.get_capabilities = capabilities
        return server.streamable_http_app(streamable_http_path=f"/mcp/{self._token}", host="127.0.0.1")


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until each has ended (what a loop's owner does before closing it)."""
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _notify(session: Any) -> None:
    with contextlib.suppress(Exception):  # a client that went away
        await session.send_tool_list_changed()


async def _publish_tools_changed(bus: Any) -> None:
    from mcp.server.subscriptions import ToolsListChanged

    await bus.publish(ToolsListChanged())


def _tool(types: Any, schema: Mapping[str, Any]) -> Any:
    function = schema.get("function", schema)
    return types.Tool(
        name=function["name"],
        description=function.get("description") or "",
        input_schema=dict(function.get("parameters") or {"type": "object", "properties": {}}),
    )
