"""An agent in any language (issue 31): a subprocess crmbench calls per user turn, JSON lines over stdio.

``--crm-agent=cmd:<command line>`` (split as a shell would, :func:`shlex.split`, but run without
one) starts the command once per episode, in a session of its own. The protocol (version 1), one
JSON object per line, UTF-8; the agent's stdout carries nothing else (logs go to stderr):

crmbench -> agent (stdin)
    ``{"type": "start", "protocol": 1, "episode", "domain", "policy", "tools", "seed", "limits",
    "mcp_url", "model"}`` once: ``tools`` are the domain's OpenAI-style schemas, ``mcp_url`` the
    episode's MCP tool server (:mod:`.mcp_tools`), ``model`` ``{"base_url", "api_key", "model"}``
    of the model proxy (:mod:`.model_proxy`) or null without ``--crm-model``;
    ``{"type": "turn", "turn", "conversation": [{"role", "content", "turn"}], "time_left"}`` per
    user turn: the visible conversation so far, its last message the user's;
    ``{"type": "routed", "tools"}``: the answer to a ``route``;
    ``{"type": "end"}``: the episode is over (exit within a few seconds, or be killed).

agent -> crmbench (stdout)
    ``{"type": "ready", "name"?}`` once, after ``start``;
    ``{"type": "route", "node", "tools"?, "detail"?}`` (optional, during a turn): record a routing
    decision and narrow the MCP server's tools to ``tools`` (all for null); the server sends
    ``notifications/tools/list_changed``;
    ``{"type": "reply", "text"}``: the turn's visible reply, its last word;
    ``{"type": "error", "message"}``: the agent gives up with its own error (``agent_error``).

The same variables are in the agent's environment (``CRMBENCH_MCP_URL``,
``CRMBENCH_MODEL_BASE_URL``, ``CRMBENCH_MODEL_API_KEY``, ``CRMBENCH_MODEL``), so a framework that
reads its endpoints from the environment needs no code for them. Variables whose names hold
``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``, ``CREDENTIAL`` or ``AUTH`` are not passed: the
agent's model is reached through the proxy, with the harness's key.

The harness enforces the limits as for an isolated Python agent (:mod:`.isolation`): it waits for
a reply only until the task's deadline, then kills the agent's process group (``timeout``); an
exit, a signal, a line that is not a JSON object, an oversized line, an unknown message or a
second message after the reply are the agent's own scored failure (``agent_error``), with the
tail of its stderr. Tool calls go through the MCP server to the turn's real ToolBox, recorded by
the referee; a call outside a turn is refused. A failure of the agent's model that ends an episode
(:mod:`.model_proxy`) ends it here too, with its own termination (``infra``, ``agent_abort``).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import selectors
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from pytest_crmbench.core.errors import AgentError, AgentTimedOut, CrmbenchError
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.core.redaction import is_secret_name
from pytest_crmbench.run.episode import AgentContext, ToolBox
from pytest_crmbench.run.isolation import exit_phrase, kill_group, message_kind, reported_name, route_from
from pytest_crmbench.run.outside import PROTOCOL, OutsideAgent

__all__ = ["COMMAND_PREFIX", "PROTOCOL", "SubprocessAgent", "check_command", "command_of", "is_command"]

COMMAND_PREFIX = "cmd:"
MAX_LINE = 16 * 1024 * 1024
"""The longest line the harness reads from the agent (bytes); a longer one is a protocol violation."""
KILL_GRACE_S = 3.0
STDERR_TAIL = 20
"""How many of the agent's last stderr lines an error message shows."""


def is_command(name: str) -> bool:
    return name.startswith(COMMAND_PREFIX)


def command_of(name: str) -> list[str]:
    """The argument vector of a ``cmd:<command line>`` agent name (raises CrmbenchError)."""
    try:
        argv = shlex.split(name[len(COMMAND_PREFIX) :])
    except ValueError as exc:
        raise CrmbenchError(f"agent {name!r}: cannot split the command line: {exc}") from None
    if not argv:
        raise CrmbenchError(f"agent {name!r}: no command after {COMMAND_PREFIX!r}")
    return argv


def check_command(name: str) -> str | None:
    """What is wrong with a ``cmd:`` agent name, without running it (None: nothing)."""
    try:
        argv = command_of(name)
    except CrmbenchError as exc:
        return str(exc)
    if shutil.which(argv[0]) is None:
        return f"agent {name!r}: no executable {argv[0]!r} (not on PATH, or not executable)"
    return None


class SubprocessAgent(OutsideAgent):
    """Stands in for a ``cmd:`` agent in the harness: each ``respond`` is one turn of the protocol.

    The process, the MCP tool server and the model proxy start on the first turn (their start-up
    counts against the task's time) and end with :meth:`close`. Its ``name`` is the one its
    ``ready`` message gave.
    """

    def __init__(self, argv: Sequence[str], context: AgentContext) -> None:
        super().__init__(context)
        self.argv = list(argv)
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: _Lines | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._wake_r, self._wake_w = -1, -1
        self._drainer: threading.Thread | None = None
        self._closed = False

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        with self._turn():
            if self._closed:
                raise AgentError("the agent's process has ended")
            if self._process is None:
                self._start(tools)
            with self._doors_open(tools):
                self._send(self.turn_message(conversation, tools), tools.time_left())
                return self._serve(tools)

    def end_episode(self) -> None:
        """Tell the agent the episode is over; anything it writes to stdout after its last reply is
        a protocol violation."""
        process, lines = self._process, self._lines
        if process is None or lines is None or self._failed is not None:
            return
        if self._tools_server is not None:
            self._tools_server.finish()
        with contextlib.suppress(OSError, ValueError):
            self._send({"type": "end"})
            assert process.stdin is not None
            process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(KILL_GRACE_S)
        leftover = lines.rest()
        self.close()
        if leftover.strip():
            raise self._violation(f"output after the agent's last reply ({bytes(leftover[:60])!r})")

    def close(self) -> None:
        """End the agent's process group, the MCP server and the proxy, whatever state they are in."""
        process = self._process
        if process is not None and not self._closed:
            self._closed = True
            kill_group(process)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(KILL_GRACE_S)
            if self._drainer is not None:
                self._drainer.join(KILL_GRACE_S)  # the group is dead: its stderr ends
            for stream in (process.stdin, process.stdout, process.stderr):
                with contextlib.suppress(OSError, ValueError):
                    if stream is not None:
                        stream.close()
        self._close_doors()
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._wake_r = self._wake_w = -1

    def __del__(self) -> None:  # an interrupted run leaves no agent process behind
        try:
            if self._process is not None and self._process.poll() is None:
                kill_group(self._process)
        except Exception:
            pass

    # -- the protocol --------------------------------------------------------------------------

    def _start(self, tools: ToolBox) -> None:
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        model = self._open_doors()
        start = self.start_message(model)
        environ = _child_environment(start["mcp_url"], model)
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=environ,
                start_new_session=True,  # its own process group: the harness ends its children too
                bufsize=0,
            )
        except OSError as exc:
            raise AgentError(f"cannot start the agent's command {self.argv[0]!r}: {exc}") from None
        self._process = process
        assert process.stdout is not None and process.stderr is not None
        self._lines = _Lines(process.stdout, self._wake_r)
        self._drainer = threading.Thread(target=_drain, args=(process.stderr, self._stderr), daemon=True)
        self._drainer.start()
        self._send(start, tools.time_left())
        ready = self._receive(tools)
        if ready.get("type") != "ready":
            raise self._violation(f"expected the agent's first message to say it is ready, got {message_kind(ready)}")
        self.name = reported_name(ready)

    def _serve(self, tools: ToolBox) -> str:
        while True:
            message = self._receive(tools)
            kind = message.get("type")
            if kind == "reply":
                text = message.get("text")
                if not isinstance(text, str):
                    raise self._violation("a reply without a 'text' string")
                assert self._lines is not None
                if self._lines.has_line():
                    raise self._violation("a second message after the turn's reply")
                return text
            if kind == "route":
                names = route_from(tools, message, self._violation)
                assert self._tools_server is not None
                self._tools_server.routed()
                self._send({"type": "routed", "tools": names}, tools.time_left())
            elif kind == "error":
                raise AgentError(f"the agent gave up: {str(message.get('message') or '')[:2000]}")
            else:
                raise self._violation(f"unexpected message {message_kind(message)}")

    def _receive(self, tools: ToolBox) -> dict[str, Any]:
        """The agent's next message, or the end of the episode: its deadline, its exit, garbage,
        a failure of its model."""
        assert self._lines is not None and self._process is not None
        try:
            line = self._lines.next(tools.time_left())
        except _Woken:
            assert self._failure is not None
            kill_group(self._process)
            raise self._failure from None
        except TimeoutError:
            kill_group(self._process)
            raise AgentTimedOut(
                f"the agent did not reply within the task's time limit (turn {tools.turn}); its process was killed"
            ) from None
        except _TooLong:
            raise self._violation(f"a line longer than {MAX_LINE} bytes") from None
        if line is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(KILL_GRACE_S)
            raise AgentError(f"the agent's process {self._exit_phrase()} before replying{self._stderr_tail()}")
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            raise self._violation(f"a line that is not JSON ({bytes(line[:80])!r})") from None
        if not isinstance(message, dict):
            raise self._violation("a line that is not a JSON object")
        return message

    def _send(self, message: Mapping[str, Any], time_left: float = KILL_GRACE_S) -> None:
        """One line to the agent's stdin; an agent that does not read it by the deadline is timed out."""
        process = self._process
        assert process is not None and process.stdin is not None
        data = json.dumps(message, ensure_ascii=False, allow_nan=False, default=str).encode("utf-8") + b"\n"
        try:
            _write_all(process.stdin, data, time.monotonic() + max(0.0, time_left))
        except TimeoutError:
            kill_group(process)
            raise AgentTimedOut(
                "the agent did not read its input within the task's time limit; its process was killed"
            ) from None
        except (OSError, ValueError):
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(KILL_GRACE_S)
            raise AgentError(
                f"the agent's process stopped reading its input: it {self._exit_phrase()}{self._stderr_tail()}"
            ) from None

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")  # the reader's selector wakes up (_Lines)

    def _violation(self, what: str) -> AgentError:
        return AgentError(f"the agent's process broke the protocol: {what}{self._stderr_tail()}")

    def _exit_phrase(self) -> str:
        return exit_phrase(None if self._process is None else self._process.poll())

    def _stderr_tail(self) -> str:
        lines = list(self._stderr)
        return "; its last stderr lines:\n" + "\n".join(lines) if lines else ""


class _Woken(Exception):
    """The model proxy reported a failure that ends the episode."""


class _TooLong(Exception):
    pass


class _Lines:
    """The agent's stdout, line by line, waiting at most until a deadline."""

    def __init__(self, stream: IO[bytes], wake: int) -> None:
        self._fd = stream.fileno()
        os.set_blocking(self._fd, False)
        self._buffer = bytearray()
        self._eof = False
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._fd, selectors.EVENT_READ, "out")
        self._selector.register(wake, selectors.EVENT_READ, "wake")

    def has_line(self) -> bool:
        with contextlib.suppress(_Woken):  # the wake byte stays in its pipe for the next read
            self._fill(0.0)  # a later one is found at the next read or at the end of the episode
        return b"\n" in self._buffer

    def next(self, timeout_s: float) -> bytearray | None:
        """The next line (without its newline), or None at the end of the stream."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = self._buffer[:newline]
                del self._buffer[: newline + 1]
                return line
            if len(self._buffer) > MAX_LINE:
                raise _TooLong
            if self._eof:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self._fill(remaining)

    def rest(self) -> bytearray:
        """Whatever the agent wrote that was not read yet (the stream is at its end or stalled)."""
        with contextlib.suppress(_Woken):
            self._fill(0.2)
        rest, self._buffer = self._buffer, bytearray()
        return rest

    def _fill(self, timeout_s: float) -> None:
        for key, _ in self._selector.select(timeout_s):
            if key.data == "wake":
                raise _Woken
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                self._buffer.extend(chunk)
            else:
                self._eof = True
                with contextlib.suppress(KeyError, ValueError):
                    self._selector.unregister(self._fd)


def _write_all(stream: IO[bytes], data: bytes, deadline: float) -> None:
    fd = stream.fileno()
    os.set_blocking(fd, False)
    view = memoryview(data)
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_WRITE)
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                written = 0
            view = view[written:]
            if view:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                selector.select(remaining)


def _drain(stream: IO[bytes], tail: collections.deque[str]) -> None:
    """Keep the agent's last stderr lines (for error messages); never let its stderr fill up."""
    with contextlib.suppress(OSError, ValueError):
        for raw in iter(stream.readline, b""):
            tail.append(raw.decode("utf-8", "replace").rstrip()[:500])


def _child_environment(mcp_url: str, model: Mapping[str, Any] | None) -> dict[str, str]:
    environ = {name: value for name, value in os.environ.items() if not is_secret_name(name)}
    environ.setdefault("PYTHONUNBUFFERED", "1")
    environ["CRMBENCH_PROTOCOL"] = str(PROTOCOL)
    environ["CRMBENCH_MCP_URL"] = mcp_url
    if model is not None:
        environ["CRMBENCH_MODEL_BASE_URL"] = str(model["base_url"])
        environ["CRMBENCH_MODEL_API_KEY"] = str(model["api_key"])
        environ["CRMBENCH_MODEL"] = str(model["model"])
    return environ
