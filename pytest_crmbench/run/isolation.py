"""The agent under test in its own process (issue 30): nothing it does can touch the score.

An agent named ``--crm-agent=package.module:factory`` is imported, built and run in a child
process; the harness's process keeps the task, the environment, the referee, the tool trace and
the results. What crosses the boundary, both ways, is JSON over a pipe (never pickle from the
child: unpickling is code execution):

* parent -> child, once: the factory path and the :class:`AgentContext` fields (domain, tool
  schemas, policy, seed, limits, model config, graph folders), ``sys.path``, the working folder
  and the environment variables (an agent may need its own API key);
* parent -> child, per turn: the visible conversation and the turn index;
* child -> parent: ``route``, ``schemas``, ``call`` and ``time_left`` requests of the child's
  :class:`ChildToolBox`, each answered by the parent from the turn's real
  :class:`~pytest_crmbench.run.referee.ToolBox` (the call executes on the real environment, the
  referee records it, the child gets a copy of the result), and the turn's reply with the agent's
  usage (role ``agent``) and the warnings its code issued.

The parent enforces the limits. It waits for the child only until the task's deadline, then kills
it (a sleeping agent is stopped at the timeout). Whatever ends the child's turn other than a reply
is the agent's own scored failure (``agent_error``): an exception (``InfraError``,
``HarnessError`` and ``SystemExit`` included: an isolated agent cannot declare its own failures
unscored), an exit with any code, a signal, a fork, a malformed or oversized message. Each
episode gets a fresh process (no memory of earlier episodes), forked from a forkserver that has
imported nothing but crmbench's child side, and the harness's main script is not run again in it
(measured in ``benchmarks/bench_isolation.py``).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from dataclasses import fields as dataclass_fields
from decimal import Decimal
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from pytest_crmbench.core.errors import AgentAbort, AgentError, AgentTimedOut, HarnessError
from pytest_crmbench.core.evidence import Message, ToolCall, Usage
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.models.llm import ModelConfig, Price
from pytest_crmbench.run.episode import AgentContext, EndsEpisode, Limits, ToolBox

__all__ = ["START_METHOD", "IsolatedAgent", "probe_factory"]

START_METHOD = "forkserver"
"""How a child starts: ``forkserver`` (a clean server process forks one child per episode),
``spawn`` (a fresh interpreter per episode, slower) — never ``fork``, whose child would be a copy
of the harness holding every task of the session."""

MAX_MESSAGE = 16 * 1024 * 1024
"""The largest message the parent reads from a child (bytes); a longer one is a protocol violation."""
MAX_WARNINGS = 200
KILL_GRACE_S = 2.0
"""How long a child that was told to end gets before it is killed."""

PRELOADED = (__name__, "pytest_crmbench.run.factory", "pytest_crmbench.run.agentcode")
"""What the forkserver imports once, so that no child pays for it: crmbench's child side only."""


def _context(method: str) -> Any:
    context = multiprocessing.get_context(method)  # one per method and process, multiprocessing's own
    if method == "forkserver":
        # Only crmbench's child side: not the harness's __main__ (pytest), never a task. Takes
        # effect when the server starts (the first child of the process); later calls change nothing.
        context.set_forkserver_preload(list(PRELOADED))
    return context


_MAIN_SWAP = threading.Lock()


def _start_child(process: Any) -> None:
    """``process.start()`` without the harness's main script run again in the child.

    multiprocessing prepares every forkserver or spawn child by running the parent's ``__main__``
    again (``spawn.prepare``: a script by its path, a ``-m`` module by its name): under the
    ``pytest`` console script each agent's process imported pytest (an episode 64.8 against 9.4 ms,
    ``benchmarks/bench_isolation.py``), and an unguarded main of the user's would have run in the
    agent's process. It leaves the main module alone when ``__main__`` has neither a spec nor a
    ``__file__``, so for the moment of the start it sees a bare stand-in. (Python 3.11's forkserver
    ignores ``"__main__"`` in the preload list, which would otherwise run the main once in the
    server.) The lock keeps concurrent starts from saving each other's stand-in as the original.
    """
    with _MAIN_SWAP:
        main = sys.modules["__main__"]  # the interpreter always has one
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            process.start()
        finally:
            sys.modules["__main__"] = main


# -- the parent's side -----------------------------------------------------------------------


class IsolatedAgent(EndsEpisode):
    """Stands in for the agent in the harness: each ``respond`` is served by the agent's process.

    The child starts on the first turn (its start-up and the factory count against the task's
    time, as the agent's own code) and ends with :meth:`close` at the end of the episode.
    """

    def __init__(self, factory: str, context: AgentContext, *, start_method: str = START_METHOD) -> None:
        self.factory = factory
        self._context = context
        self._start_method = start_method
        self._process: Any = None
        self._conn: Connection | None = None
        self._ledger = context.usage
        self._warned: dict[str, int] = {}
        self.name: str | None = None
        """The agent's own ``name``, as its process reported it (a label, nothing more)."""

    # The episode's entry point.
    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        with self._turn():
            if self._process is None:
                self._start(tools)
            self._send({"type": "respond", "turn": tools.turn, "conversation": [m.model_dump() for m in conversation]})
            return self._serve(tools)

    def end_episode(self) -> None:
        """End the agent's process and make sure it left nothing behind: no copy of itself still
        running in its process group, nothing written to the pipe after its last reply."""
        process, conn = self._process, self._conn
        if process is None or conn is None or self._failed is not None:
            return
        with contextlib.suppress(OSError, ValueError):
            conn.send_bytes(_encode({"type": "end"}))
        process.join(KILL_GRACE_S)
        survivor = _group_alive(process.pid)
        leftover = _leftover(conn)
        self.close()
        if survivor or (leftover is not None and leftover.startswith(b'{"type": "forked"')):
            raise AgentError("the agent forked a process that outlived it: isolated agents must not fork")
        if leftover is not None:
            raise _violation(f"a message after the agent's last reply ({leftover[:60]!r})")

    def close(self) -> None:
        """End the agent's process (and its process group) whatever state it is in."""
        process, conn = self._process, self._conn
        if process is None:
            return
        if conn is not None and process.is_alive():
            with contextlib.suppress(OSError, ValueError):
                conn.send_bytes(_encode({"type": "end"}))
            process.join(0.5)
        kill_group(process)
        process.join(KILL_GRACE_S)
        if conn is not None:
            conn.close()
        self._conn = None

    def __del__(self) -> None:  # a run interrupted mid-episode leaves no agent process behind
        try:
            if self._process is not None and self._process.is_alive():
                kill_group(self._process)
        except Exception:
            pass

    # -- the protocol --------------------------------------------------------------------------

    def _start(self, tools: ToolBox) -> None:
        context = _context(self._start_method)
        parent, child = context.Pipe(duplex=True)
        setup = {
            "factory": self.factory,
            "context": _context_fields(self._context),
            "sys_path": list(sys.path),
            "cwd": os.getcwd(),
            "environ": dict(os.environ),
        }
        process = context.Process(target=_child_main, args=(child, setup), daemon=True, name="crmbench-agent")
        _start_child(process)
        child.close()
        self._process, self._conn = process, parent
        ready = self._receive(tools)
        if ready.get("type") != "ready":
            raise _violation(f"expected the agent's first message to say it is ready, got {message_kind(ready)}")
        self.name = reported_name(ready)

    def _serve(self, tools: ToolBox) -> str:
        while True:
            message = self._receive(tools)
            kind = message.get("type")
            if kind == "reply":
                self._account(message)
                text = message.get("text")
                if not isinstance(text, str):
                    raise AgentError(
                        f"the agent's respond() returned {message.get('returned', 'no text')}, not the reply text"
                    )
                self._no_more()
                return text
            if kind == "raised":
                self._account(message)
                raise _raised(message)
            if kind == "route":
                route_from(tools, message)
                self._send({"type": "ok"})
            elif kind == "schemas":
                self._send({"type": "schemas", "schemas": tools.schemas()})
            elif kind == "time_left":
                self._send({"type": "time_left", "seconds": tools.time_left()})
            elif kind == "call":
                self._send(_call(tools, message))
            else:
                raise _violation(f"unexpected message {message_kind(message)}")

    def _account(self, message: Mapping[str, Any]) -> None:
        """The agent's usage and warnings so far, as its process counted them."""
        usage = message.get("usage")
        if usage is not None:
            try:
                self._ledger.replace("agent", Usage.model_validate(usage))
            except ValueError as exc:
                raise _violation(f"unreadable usage: {str(exc).splitlines()[0]}") from None
        warnings = message.get("warnings") or {}
        if not isinstance(warnings, dict):
            raise _violation("unreadable warnings")
        for line, count in list(warnings.items())[:MAX_WARNINGS]:
            if isinstance(line, str) and isinstance(count, int) and count > self._warned.get(line, 0):
                for _ in range(min(count - self._warned.get(line, 0), 10_000)):
                    self._ledger.warned(line[:400])
                self._warned[line] = count

    def _no_more(self) -> None:
        """A reply must be the last word of its turn: anything already behind it (a forked copy's
        duplicate reply, its fork notice) is a protocol violation."""
        assert self._conn is not None
        if self._conn.poll(0):
            message = self._read()
            if message.get("type") == "forked":
                raise AgentError(
                    f"the agent forked a process (pid {message.get('pid')}): isolated agents must not fork"
                )
            raise _violation(f"a second message after the turn's reply ({message_kind(message)})")

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self._conn is not None
        try:
            self._conn.send_bytes(_encode(message))
        except (OSError, ValueError) as exc:
            raise AgentError(
                f"the agent's process stopped listening ({type(exc).__name__}): {self._exit_phrase()}"
            ) from None

    def _receive(self, tools: ToolBox) -> dict[str, Any]:
        """The child's next message, or the agent's failure: its deadline, its exit, garbage."""
        assert self._conn is not None and self._process is not None
        remaining = tools.time_left()
        ready = wait([self._conn, self._process.sentinel], timeout=max(0.0, remaining))
        if self._conn in ready:
            message = self._read()
            if message.get("type") == "forked":
                raise AgentError(
                    f"the agent forked a process (pid {message.get('pid')}): isolated agents must not fork"
                )
            return message
        if ready:  # the sentinel: the process ended without a word
            self._process.join(KILL_GRACE_S)
            raise AgentError(f"the agent's process {self._exit_phrase()} before replying")
        kill_group(self._process)
        raise AgentTimedOut(
            f"the agent did not reply within the task's time limit (turn {tools.turn}); its process was killed"
        )

    def _read(self) -> dict[str, Any]:
        assert self._conn is not None
        try:
            data = self._conn.recv_bytes(MAX_MESSAGE)
        except EOFError:
            assert self._process is not None
            self._process.join(KILL_GRACE_S)
            raise AgentError(f"the agent's process {self._exit_phrase()} before replying") from None
        except OSError as exc:
            raise _violation(f"unreadable message ({exc}; at most {MAX_MESSAGE} bytes)") from None
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):
            raise _violation("a message that is not JSON") from None
        if not isinstance(message, dict):
            raise _violation("a message that is not a JSON object")
        return message

    def _exit_phrase(self) -> str:
        return exit_phrase(None if self._process is None else self._process.exitcode)


def _leftover(conn: Connection) -> bytes | None:
    """What is left in the pipe once the agent's process has ended (None: nothing, only its end)."""
    try:
        return conn.recv_bytes(MAX_MESSAGE) if conn.poll(0.05) else None
    except EOFError:
        return None
    except OSError:
        return b"(unreadable)"


def _group_alive(pgid: int | None) -> bool:
    """Whether a process of the agent's process group is still running (its leader has exited)."""
    if pgid is None:
        return False
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError, OSError):
        return False
    return True


def kill_group(process: Any) -> None:
    """SIGKILL the process's group (it leads its own: its children go too), then the process."""
    pid = process.pid
    if pid is None:
        return
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)  # the child leads its own group: its own children go too
    with contextlib.suppress(OSError, AttributeError, ValueError):
        process.kill()


def _violation(what: str) -> AgentError:
    return AgentError(f"the agent's process broke the protocol: {what}")


def exit_phrase(code: int | None) -> str:
    """How an agent's process ended, from its exit code (negative: the signal), for error messages."""
    if code is None:
        return "is still running"
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def message_kind(message: Mapping[str, Any]) -> str:
    """A message's ``type`` as an error message shows it."""
    kind = message.get("type")
    return repr(kind)[:60] if kind is not None else "without a type"


def reported_name(ready: Mapping[str, Any]) -> str | None:
    """The name an agent's process gave in its ``ready`` message (a label, nothing more)."""
    name = ready.get("name")
    return name[:100] if isinstance(name, str) and name else None


def _raised(message: Mapping[str, Any]) -> AgentError | AgentAbort:
    kind = str(message.get("kind") or "an exception")[:100]
    text = str(message.get("message") or "")[:2000]
    trace = str(message.get("traceback") or "")[:20_000]
    where = "building the agent raised" if message.get("building") else "the agent raised"
    if kind == "AgentAbort" and not message.get("building"):
        return AgentAbort(text)
    note = ""
    if kind in ("InfraError", "HarnessError"):
        note = " (an isolated agent cannot declare its own failures unscored: it is the agent's failure)"
    error = AgentError(f"{where} {kind}: {text}{note}", traceback=trace)
    return error


def route_from(
    tools: ToolBox, message: Mapping[str, Any], violation: Callable[[str], AgentError] = _violation
) -> list[str] | None:
    """Record an agent process's routing request (``node``, ``tools``, ``detail``) on the turn's
    ToolBox; the tools it narrowed to (None: all). A malformed request is ``violation``."""
    node, names, detail = message.get("node"), message.get("tools"), message.get("detail")
    if not isinstance(node, str) or not (
        names is None or (isinstance(names, list) and all(isinstance(n, str) for n in names))
    ):
        raise violation("a routing request without a node name or with tools that are not names")
    tools.route(node[:200], tools=names, detail=detail if isinstance(detail, str) else None)
    return None if names is None else list(names)


def _call(tools: ToolBox, message: Mapping[str, Any]) -> dict[str, Any]:
    name, arguments = message.get("name"), message.get("arguments")
    if not isinstance(name, str):
        raise _violation("a tool call without a tool name")
    try:
        call = tools.call(name, arguments)
    except HarnessError as exc:
        # A tool crashed: the referee has recorded it and ends the episode as ``harness_error``
        # whatever the agent does with the exception it is handed.
        return {"type": "harness_error", "message": str(exc)}
    except Exception as exc:  # EpisodeTampered cannot happen from a child; any other is ours
        return {"type": "harness_error", "message": f"{type(exc).__name__}: {exc}"}
    return {"type": "result", "call": call.model_dump(mode="json")}


def _encode(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, allow_nan=False, default=str).encode("utf-8")


def _context_fields(context: AgentContext) -> dict[str, Any]:
    return {
        "domain": context.domain,
        "tools": [dict(schema) for schema in context.tools],
        "policy": context.policy,
        "seed": context.seed,
        "limits": asdict(context.limits),
        "model": _model_fields(context.model),
        "graph_dirs": [str(path) for path in context.graph_dirs],
    }


def _model_fields(model: ModelConfig | None) -> dict[str, Any] | None:
    """The agent's model config as JSON: every field but the session's transport (the child makes
    its own), prices as decimal strings."""
    if model is None:
        return None
    fields = {f.name: getattr(model, f.name) for f in dataclass_fields(model) if f.name != "transport"}
    fields["prices"] = {
        name: [str(price.input_per_token), str(price.output_per_token)] for name, price in model.prices.items()
    }
    return fields


def _model_config(fields: Mapping[str, Any] | None) -> ModelConfig | None:
    if fields is None:
        return None
    prices = {name: Price(Decimal(i), Decimal(o)) for name, (i, o) in dict(fields.get("prices") or {}).items()}
    return ModelConfig(**{**fields, "prices": prices})


def probe_factory(factory: str, *, start_method: str = START_METHOD, timeout_s: float = 60.0) -> str | None:
    """Import ``factory`` in a child process (never here) and say what is wrong with it (None: nothing)."""
    context = _context(start_method)
    parent, child = context.Pipe(duplex=True)
    setup = {"factory": factory, "sys_path": list(sys.path), "cwd": os.getcwd(), "environ": dict(os.environ)}
    process = context.Process(target=_probe_main, args=(child, setup), daemon=True, name="crmbench-agent-probe")
    _start_child(process)
    child.close()
    try:
        if not parent.poll(timeout_s):
            return f"importing {factory!r} took longer than {timeout_s:g}s"
        answer = json.loads(parent.recv_bytes(MAX_MESSAGE))
        return answer.get("problem") if isinstance(answer, dict) else "the probe answered nonsense"
    except (EOFError, OSError, ValueError):
        process.join(KILL_GRACE_S)
        return f"importing {factory!r} ended its process (exit code {process.exitcode})"
    finally:
        kill_group(process)
        process.join(KILL_GRACE_S)
        parent.close()


# -- the child's side ------------------------------------------------------------------------


class _Channel:
    """The child's end of the pipe: one request, one answer."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def send(self, message: Mapping[str, Any]) -> None:
        self.conn.send_bytes(_encode(message))

    def ask(self, message: Mapping[str, Any]) -> dict[str, Any]:
        self.send(message)
        answer = json.loads(self.conn.recv_bytes())
        if answer.get("type") == "end":
            os._exit(0)
        return answer  # type: ignore[no-any-return]


class ChildToolBox:
    """The agent's ToolBox in its own process: every method travels to the harness."""

    def __init__(self, channel: _Channel, turn: int) -> None:
        self.__channel = channel
        self.turn = turn
        self.node: str | None = None
        self.exposed: frozenset[str] | None = None

    def route(self, node: str, *, tools: Sequence[str] | None = None, detail: str | None = None) -> None:
        names = None if tools is None else [str(t) for t in tools]
        self.__channel.ask({"type": "route", "node": str(node), "tools": names, "detail": detail})
        self.node = node
        self.exposed = None if names is None else frozenset(names)

    def schemas(self) -> list[dict[str, Any]]:
        return list(self.__channel.ask({"type": "schemas"})["schemas"])

    def call(self, name: str, arguments: str | Mapping[str, Any] | None = None) -> ToolCall:
        try:
            _encode({"arguments": arguments})
            sent: Any = arguments
        except (TypeError, ValueError):
            sent = repr(arguments)  # what the environment makes of it: undecodable arguments
        answer = self.__channel.ask({"type": "call", "name": str(name), "arguments": sent})
        if answer.get("type") == "harness_error":
            raise HarnessError(str(answer.get("message")))
        return ToolCall.model_validate(answer["call"])

    def time_left(self) -> float:
        return float(self.__channel.ask({"type": "time_left"})["seconds"])

    @property
    def deadline(self) -> float:
        return time.monotonic() + self.time_left()


def _prepare(setup: Mapping[str, Any]) -> None:
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)  # its own process group, so the harness can end it with its children
    sys.path[:] = list(setup["sys_path"])
    os.environ.clear()
    os.environ.update(setup["environ"])
    with contextlib.suppress(OSError):
        os.chdir(setup["cwd"])


def _probe_main(conn: Connection, setup: Mapping[str, Any]) -> None:
    _prepare(setup)
    from pytest_crmbench.core.errors import CrmbenchError
    from pytest_crmbench.run.factory import import_factory

    try:
        import_factory(setup["factory"])
        problem = None
    except CrmbenchError as exc:
        problem = str(exc)
    except BaseException as exc:  # importing the user's module ran its code
        problem = f"importing it raised {type(exc).__name__}: {exc}"
    conn.send_bytes(_encode({"problem": problem}))


def _child_main(conn: Connection, setup: Mapping[str, Any]) -> None:
    _prepare(setup)
    channel = _Channel(conn)
    parent_pid = os.getpid()

    def forked() -> None:  # in a copy the agent made of this process
        with contextlib.suppress(Exception):
            channel.send({"type": "forked", "pid": os.getpid(), "parent": parent_pid})

    os.register_at_fork(after_in_child=forked)
    from pytest_crmbench.run.agentcode import agent_code
    from pytest_crmbench.run.factory import import_factory

    fields = dict(setup["context"])
    ledger = UsageLedger()
    context = AgentContext(
        domain=fields["domain"],
        tools=tuple(fields["tools"]),
        policy=fields["policy"],
        seed=fields["seed"],
        limits=Limits(**fields["limits"]),
        model=_model_config(fields["model"]),
        usage=ledger,
        graph_dirs=tuple(Path(p) for p in fields["graph_dirs"]),
    )
    agent: Any = None
    building: BaseException | None = None
    try:
        with agent_code(ledger):
            agent = import_factory(setup["factory"])(context)
    except BaseException as exc:
        building = exc
    name = getattr(agent, "name", None)
    channel.send({"type": "ready", "name": name if isinstance(name, str) and name else None})
    while True:
        request = json.loads(conn.recv_bytes())
        if request.get("type") != "respond":
            os._exit(0)
        if building is not None:
            channel.send(_raised_message(building, ledger, building=True))
            continue
        conversation = tuple(Message.model_validate(m) for m in request["conversation"])
        try:
            with agent_code(ledger):
                reply = agent.respond(conversation, ChildToolBox(channel, int(request["turn"])))
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the agent's own doing
            channel.send(_raised_message(exc, ledger))
            continue
        answer = {"type": "reply", **_accounts(ledger)}
        if isinstance(reply, str):
            answer["text"] = reply
        else:
            answer["returned"] = type(reply).__name__
        channel.send(answer)


def _accounts(ledger: UsageLedger) -> dict[str, Any]:
    usage = ledger.get("agent")
    return {"usage": None if usage is None else usage.model_dump(mode="json"), "warnings": ledger.warnings()}


def _raised_message(exc: BaseException, ledger: UsageLedger, *, building: bool = False) -> dict[str, Any]:
    return {
        "type": "raised",
        "kind": type(exc).__name__,
        "message": str(exc),
        "traceback": "".join(traceback.format_exception(exc)),
        "building": building,
        **_accounts(ledger),
    }
