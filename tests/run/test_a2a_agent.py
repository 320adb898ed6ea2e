"""An ``a2a:`` agent (issue 31): an A2A server crmbench sends a message per user turn, its tools
over MCP, its model through the proxy. Against real a2a-sdk servers on 127.0.0.1 whose executors
are scripted here: what is sent, how the reply is read, routing, what ends it, what is left after."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import importlib.util
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest

from pytest_crmbench.core.evidence import Evidence
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.core.users import ScriptedUser, User
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import grade
from pytest_crmbench.models.fakellm import FakeLLM, HttpError, Responder, completion
from pytest_crmbench.models.judge import LLMJudge
from pytest_crmbench.run.episode import Limits, run_episode
from tests import outside_agents
from tests.conftest import ListUser
from tests.llm_script import GoldScript
from tests.outside_agents import (
    GOLD_TASKS,
    REPO,
    InProcess,
    fake_servers,
    litellm_for_the_module,
    model_of,
    shipped,
)

pytest.importorskip("a2a.server.routes")
pytest.importorskip("mcp.client.client")

from a2a.helpers import get_data_parts, get_text_parts, new_data_part, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Message, Role, TaskState, TaskStatus
from a2a.types import Task as A2ATask
from mcp.client.client import Client as MCPClient
from starlette.applications import Starlette
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from pytest_crmbench.run.a2a_agent import A2AAgent, check_url

# litellm's first call in the proxy's thread builds pydantic adapters that warn (plugin/options.py).
pytestmark = pytest.mark.filterwarnings(r"ignore::UserWarning:pydantic\._internal\._generate_schema")

Script = Callable[[RequestContext, EventQueue], Awaitable[None]]
"""What a scripted agent does with one message: publish its answer on the queue."""


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> Iterator[None]:
    yield from litellm_for_the_module()


@pytest.fixture
def fake() -> Iterator[Callable[[Responder], FakeLLM]]:
    yield from fake_servers()


@pytest.fixture(scope="module")
def example() -> Any:
    """examples/agents/a2a_agent.py, imported: its executor served by the test's server."""
    pytest.importorskip("openai")
    spec = importlib.util.spec_from_file_location("a2a_example", REPO / "examples" / "agents" / "a2a_agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Scripted(AgentExecutor):
    """An executor that runs ``script`` per message and keeps what it was sent."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.received: list[dict[str, Any]] = []
        self.canceled: list[str] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        self.received.append(
            {
                "context_id": context.context_id,
                "task_id": context.task_id,
                "text": get_text_parts(context.message.parts),
                "data": get_data_parts(context.message.parts),
            }
        )
        await self.script(context, event_queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.canceled.append(str(context.task_id))
        updater = TaskUpdater(event_queue, str(context.task_id), str(context.context_id))
        await updater.cancel()


class A2AServer:
    """A real a2a-sdk server (JSON-RPC, its agent card at the well-known path) on a thread."""

    def __init__(self, executor: AgentExecutor | None, *, routes: list[Route] | None = None) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        card = AgentCard(
            name="scripted-a2a",
            description="a scripted test agent",
            version="1.0",
            supported_interfaces=[
                AgentInterface(url=f"{self.url}/", protocol_binding="JSONRPC", protocol_version="1.0")
            ],
            capabilities=AgentCapabilities(streaming=False),
            default_input_modes=["text/plain", "application/json"],
            default_output_modes=["text/plain", "application/json"],
            skills=[AgentSkill(id="crm", name="CRM support", description="answers a CRM turn", tags=["crm"])],
        )
        app_routes = list(routes or [])
        handler = None
        if executor is not None:
            handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
            app_routes += [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")]

        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            yield
            if handler is not None:
                await handler.aclose()  # the executors still running: none left pending

        import uvicorn

        self._server = uvicorn.Server(
            uvicorn.Config(Starlette(routes=app_routes, lifespan=lifespan), log_level="error")
        )
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._server.serve(sockets=[self._sock]))
        finally:
            loop.close()
            self._sock.close()

    def __enter__(self) -> A2AServer:
        self._thread.start()
        while not self._server.started:
            assert self._thread.is_alive(), "the test's A2A server did not start"
            time.sleep(0.005)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)


def play(
    url: str,
    task: Task,
    env_class: type[ToolEnvironment],
    user: User,
    server: FakeLLM | None = None,
    limits: Limits | None = None,
) -> tuple[Evidence, A2AAgent]:
    return outside_agents.play(functools.partial(A2AAgent, url), task, env_class, user, server, limits)


def agent_message(context: RequestContext, *parts: Any) -> Message:
    return Message(
        role=Role.ROLE_AGENT, message_id=f"m-{time.monotonic_ns()}", context_id=context.context_id, parts=parts
    )


def reply(text: str) -> Script:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        await queue.enqueue_event(agent_message(context, new_text_part(text)))

    return script


def a_task(state: TaskState, *, status_text: str | None = None, artifact_text: str | None = None) -> Script:
    """A task that ends in ``state``, with a status message and an artifact."""

    async def script(context: RequestContext, queue: EventQueue) -> None:
        task_id, context_id = str(context.task_id), str(context.context_id)
        await queue.enqueue_event(
            A2ATask(id=task_id, context_id=context_id, status=TaskStatus(state="TASK_STATE_SUBMITTED"))
        )
        updater = TaskUpdater(queue, task_id, context_id)
        if artifact_text is not None:
            await updater.add_artifact([new_text_part(artifact_text)])
        said = agent_message(context, new_text_part(status_text)) if status_text is not None else None
        await updater.update_status(state, message=said)

    return script


def test_each_turn_is_one_message_in_one_context_with_the_stdio_messages_as_data(
    fake: Callable[[Responder], FakeLLM],
    monkeypatch: pytest.MonkeyPatch,
    mini_tasks: dict[str, Task],
    mini_env_class: type[ToolEnvironment],
) -> None:
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "sk-do-not-pass-me-on-0123456789")
    model = fake(lambda request: completion("unused"))
    executor = Scripted(reply("Noted."))
    with A2AServer(executor) as server:
        evidence, agent = play(
            server.url, mini_tasks["mini_balance_only_01"], mini_env_class, ListUser(["one", "two"]), model
        )
    assert evidence.termination.reason == "user_stop", evidence.termination.detail
    assert [m.content for m in evidence.messages] == ["one", "Noted.", "two", "Noted.", "Thanks, bye."]
    first, second = executor.received
    assert (first["text"], second["text"]) == (["one"], ["two"])
    assert first["context_id"] == second["context_id"] and first["context_id"]
    (data_1,), (data_2,) = first["data"], second["data"]
    assert sorted(data_1["crmbench"]) == ["start", "turn"] and sorted(data_2["crmbench"]) == ["turn"]
    start = data_1["crmbench"]["start"]
    assert (start["type"], start["protocol"], start["domain"], start["seed"]) == ("start", 1, "mini", 1)
    assert start["mcp_url"].startswith("http://127.0.0.1:") and "/mcp/" in start["mcp_url"]
    assert start["model"]["api_key"] == "crmbench-proxy" and start["model"]["model"] == "openai/agent-model"
    assert start["model"]["base_url"].startswith("http://127.0.0.1:")
    assert {t["function"]["name"] for t in start["tools"]} >= {"get_balance"}
    assert start["limits"]["task_timeout_s"] == Limits().task_timeout_s
    turns = [data_1["crmbench"]["turn"], data_2["crmbench"]["turn"]]
    assert [(t["type"], t["turn"]) for t in turns] == [("turn", 0), ("turn", 1)]
    assert [[m["content"] for m in t["conversation"]] for t in turns] == [["one"], ["one", "Noted.", "two"]]
    assert 0 < turns[1]["time_left"] <= turns[0]["time_left"]
    assert "sk-do-not-pass-me" not in json.dumps(executor.received)  # credentials stay in the harness
    assert agent.name == "scripted-a2a"  # its agent card's


@pytest.mark.parametrize(
    ("script", "text", "continued"),
    [
        pytest.param(reply("ACC-2 holds $2,450.75."), "ACC-2 holds $2,450.75.", False, id="message"),
        pytest.param(
            a_task(TaskState.TASK_STATE_COMPLETED, status_text="ACC-2 holds $2,450.75.", artifact_text="(a table)"),
            "ACC-2 holds $2,450.75.",
            False,
            id="completed-task-status",
        ),
        pytest.param(
            a_task(TaskState.TASK_STATE_COMPLETED, artifact_text="ACC-2 holds $2,450.75."),
            "ACC-2 holds $2,450.75.",
            False,
            id="completed-task-artifact",
        ),
        pytest.param(
            a_task(TaskState.TASK_STATE_INPUT_REQUIRED, status_text="Which account?"),
            "Which account?",
            True,
            id="input-required-task",
        ),
    ],
)
def test_the_reply_is_a_message_or_a_task_that_answered(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment], script: Script, text: str, continued: bool
) -> None:
    executor = Scripted(script)
    with A2AServer(executor) as server:
        evidence, _ = play(server.url, mini_tasks["mini_balance_only_01"], mini_env_class, ListUser(["one", "two"]))
    assert evidence.termination.reason == "user_stop", evidence.termination.detail
    assert [m.content for m in evidence.messages if m.role == "assistant"] == [text, text]
    # An input-required task is continued by the next message (its task id); a finished one is not.
    assert (executor.received[1]["task_id"] == executor.received[0]["task_id"]) == continued


def routing(context: RequestContext, queue: EventQueue) -> Awaitable[None]:
    """Routes first (a data part, no text), then lists and calls its tools over MCP, then replies."""

    async def script() -> None:
        data = get_data_parts(context.message.parts)[0]["crmbench"] if context.message else {}
        task_id, context_id = str(context.task_id), str(context.context_id)
        updater = TaskUpdater(queue, task_id, context_id)
        if "start" in data:
            SEEN["mcp_url"] = data["start"]["mcp_url"]
        if "routed" not in data:
            await queue.enqueue_event(
                A2ATask(id=task_id, context_id=context_id, status=TaskStatus(state="TASK_STATE_SUBMITTED"))
            )
            route = {"node": "balance", "tools": ["get_balance"], "detail": "the user asks for a balance"}
            await updater.requires_input(agent_message(context, new_data_part({"crmbench": {"route": route}})))
            return
        SEEN["routed"] = data["routed"]
        async with MCPClient(SEEN["mcp_url"], mode="legacy") as tools:
            SEEN["listed"] = sorted(tool.name for tool in (await tools.list_tools()).tools)
            result = await tools.call_tool("get_balance", {"account_id": "ACC-2"})
            SEEN["is_error"] = result.is_error
        await updater.complete(agent_message(context, new_text_part("ACC-2 holds $2,450.75.")))

    return script()


SEEN: dict[str, Any] = {}


def test_a_route_mid_turn_is_recorded_and_narrows_the_mcp_tools(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    SEEN.clear()
    executor = Scripted(routing)
    task = mini_tasks["mini_balance_only_01"]
    with A2AServer(executor) as server:
        evidence, _ = play(server.url, task, mini_env_class, ScriptedUser(task))
    assert evidence.termination.reason == "user_stop", evidence.termination.detail
    assert [(r.turn, r.node, r.detail) for r in evidence.routing] == [(0, "balance", "the user asks for a balance")]
    assert SEEN["routed"] == {"type": "routed", "tools": ["get_balance"]}
    assert SEEN["listed"] == ["get_balance"]  # the MCP server exposes only the routed tools
    assert [(c.turn, c.node, c.name, c.status) for c in evidence.tool_calls] == [(0, "balance", "get_balance", "ok")]
    # The routing answer continued the agent's input-required task, in the same context.
    first, routed = executor.received
    assert (routed["task_id"], routed["context_id"]) == (first["task_id"], first["context_id"])
    assert grade(task, evidence).outcome in ("success", "not_judged")


def test_a_route_in_the_reply_is_recorded_for_its_turn(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        route = new_data_part({"crmbench": {"route": {"node": "small_talk", "tools": []}}})
        await queue.enqueue_event(agent_message(context, new_text_part("Hello!"), route))

    with A2AServer(Scripted(script)) as server:
        evidence, _ = play(server.url, mini_tasks["mini_balance_only_01"], mini_env_class, ListUser(["hi"]))
    assert evidence.termination.reason == "user_stop", evidence.termination.detail
    assert [(r.turn, r.node) for r in evidence.routing] == [(0, "small_talk")]
    assert evidence.messages[1].content == "Hello!"


def working_forever(context: RequestContext, queue: EventQueue) -> Awaitable[None]:
    async def script() -> None:
        task_id, context_id = str(context.task_id), str(context.context_id)
        await queue.enqueue_event(
            A2ATask(id=task_id, context_id=context_id, status=TaskStatus(state="TASK_STATE_WORKING"))
        )
        await asyncio.sleep(60)

    return script()


def bad_route(context: RequestContext, queue: EventQueue) -> Awaitable[None]:
    route = new_data_part({"crmbench": {"route": {"tools": "get_balance"}}})
    return queue.enqueue_event(agent_message(context, new_text_part("x"), route))


def no_route(context: RequestContext, queue: EventQueue) -> Awaitable[None]:
    return queue.enqueue_event(agent_message(context, new_text_part("x"), new_data_part({"crmbench": "hello"})))


async def raises(context: RequestContext, queue: EventQueue) -> None:
    raise RuntimeError("my planner is down")


@pytest.mark.parametrize(
    ("script", "detail"),
    [
        (
            a_task(TaskState.TASK_STATE_FAILED, status_text="cannot reach my planner"),
            "answered with a failed task: cannot reach my planner",
        ),
        (a_task(TaskState.TASK_STATE_REJECTED), "answered with a rejected task: no reason given"),
        (a_task(TaskState.TASK_STATE_CANCELED, artifact_text="stopped"), "answered with a canceled task: stopped"),
        (a_task(TaskState.TASK_STATE_AUTH_REQUIRED), "a task in state 'auth-required'"),
        (raises, "answered with "),
        (bad_route, "broke crmbench's protocol: a routing request without a node name"),
        (no_route, "broke crmbench's protocol: a 'crmbench' data part without a route"),
    ],
)
def test_what_the_agent_answers_wrongly_is_its_own_failure(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment], script: Script, detail: str
) -> None:
    task = mini_tasks["mini_override_01"]
    with A2AServer(Scripted(script)) as server:
        evidence, _ = play(server.url, task, mini_env_class, ListUser(["one"]), limits=Limits(task_timeout_s=20))
    assert evidence.termination.reason == "agent_error", evidence.termination.detail
    assert (evidence.termination.detail or "").startswith(f"the A2A agent at {server.url} "), (
        evidence.termination.detail
    )
    assert detail in (evidence.termination.detail or ""), evidence.termination.detail
    assert grade(task, evidence).outcome == "failure"  # scored, never unscored


def test_an_http_error_from_the_agent_is_its_own_failure(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    url_box: list[str] = []

    async def card(request: Any) -> Response:
        interface = {"url": f"{url_box[0]}/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        return JSONResponse({"name": "broken", "supportedInterfaces": [interface], "version": "1"})

    async def rpc(request: Any) -> Response:
        return Response("upstream exploded", status_code=503)

    routes = [Route("/.well-known/agent-card.json", card), Route("/rpc", rpc, methods=["POST"])]
    with A2AServer(None, routes=routes) as server:
        url_box.append(server.url)
        evidence, _ = play(server.url, mini_tasks["mini_override_01"], mini_env_class, ListUser(["one"]))
    assert evidence.termination.reason == "agent_error"
    assert (evidence.termination.detail or "").startswith(f"the A2A agent at {server.url} answered with an error:")
    assert "503" in (evidence.termination.detail or ""), evidence.termination.detail


def test_a_slow_agent_times_out_at_the_deadline_and_its_task_is_canceled(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    executor = Scripted(working_forever)
    started = time.monotonic()
    with A2AServer(executor) as server:
        evidence, agent = play(
            server.url,
            mini_tasks["mini_override_01"],
            mini_env_class,
            ListUser(["one"]),
            limits=Limits(task_timeout_s=3),
        )
        took = time.monotonic() - started
    assert evidence.termination.reason == "timeout"
    assert (evidence.termination.detail or "").startswith(
        f"the A2A agent at {server.url} did not reply within the task's time limit (turn 0)"
    )
    assert took < 3 + 4, took  # the deadline, the cancellation's grace, the server's start and stop
    assert len(agent.canceled) == 1 and executor.canceled == agent.canceled  # found by ListTasks in its context


def test_a_failure_of_the_agents_model_ends_the_episode_as_for_a_command_agent(
    fake: Callable[[Responder], FakeLLM], mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    import httpx

    async def script(context: RequestContext, queue: EventQueue) -> None:
        model = get_data_parts(context.message.parts)[0]["crmbench"]["start"]["model"] if context.message else {}
        async with httpx.AsyncClient() as http:
            answer = await http.post(
                f"{model['base_url']}/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]}
            )
        await queue.enqueue_event(agent_message(context, new_text_part(f"the model said {answer.status_code}")))

    server_model = fake(lambda request: HttpError(401, "Incorrect API key provided"))
    with A2AServer(Scripted(script)) as server:
        evidence, _ = play(
            server.url, mini_tasks["mini_balance_only_01"], mini_env_class, ListUser(["one"]), server_model
        )
    assert evidence.termination.reason == "infra"
    assert (evidence.termination.detail or "").startswith("agent model openai/agent-model: AuthenticationError")


def test_an_unreachable_url_or_a_page_that_is_no_agent_card_is_a_clear_error(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{closed.getsockname()[1]}"
    assert "expected an http or https URL after 'a2a:', got 'ftp://x'" in (check_url("a2a:ftp://x") or "")
    assert (check_url(f"a2a:{nobody}") or "").startswith(
        f"agent 'a2a:{nobody}': no A2A agent card: Network communication error"
    )

    async def not_a_card(request: Any) -> Response:
        return JSONResponse({"hello": "world"})

    with A2AServer(None, routes=[Route("/.well-known/agent-card.json", not_a_card)]) as server:
        assert (check_url(f"a2a:{server.url}") or "").endswith("not an A2A card")
    with A2AServer(None) as server:
        assert "(HTTP 404)" in (check_url(f"a2a:{server.url}/") or "")
    with A2AServer(Scripted(reply("hi"))) as server:
        assert check_url(f"a2a:{server.url}") is None
    # During a run (the server went away after the start-up check): the agent's own failure.
    evidence, _ = play(nobody, mini_tasks["mini_override_01"], mini_env_class, ListUser(["one"]))
    assert evidence.termination.reason == "agent_error"
    assert (evidence.termination.detail or "").startswith(f"agent 'a2a:{nobody}': no A2A agent card:")


def test_whatever_the_card_fetch_raises_is_a_clear_error_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    # In a long pytest process a raw httpcore.ConnectError once escaped the SDK's own handling and
    # the start-up check crashed pytest (INTERNALERROR) instead of naming the URL.
    from a2a.client import A2ACardResolver

    async def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionResetError("the peer reset the connection")

    monkeypatch.setattr(A2ACardResolver, "get_agent_card", broken)
    assert check_url("a2a:http://127.0.0.1:9") == (
        "agent 'a2a:http://127.0.0.1:9': no A2A agent card: ConnectionResetError: the peer reset the connection"
    )


def test_nothing_is_left_running_after_close(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    before = {thread.ident for thread in threading.enumerate()}
    with A2AServer(Scripted(reply("ok"))) as server:
        evidence, agent = play(server.url, mini_tasks["mini_balance_only_01"], mini_env_class, ListUser(["one", "two"]))
    assert evidence.termination.reason == "user_stop"
    gc.collect()  # an unclosed socket or client would warn here, and warnings are errors
    left = [t.name for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    assert left == []  # the client's loop, the MCP server, the test's server: all ended
    assert (agent._loop, agent._client, agent._tools_server, agent._proxy) == (None, None, None, None)
    agent.close()  # a second close is harmless


@pytest.mark.parametrize(("domain", "task_id"), sorted(GOLD_TASKS.items()))
def test_a_gold_path_through_the_example_agent_scores_success(
    fake: Callable[[Responder], FakeLLM], example: Any, domain: str, task_id: str
) -> None:
    task, env_class = shipped(domain, task_id)
    model = fake(GoldScript([task]))
    with A2AServer(example.CrmAgent()) as server:
        evidence, agent = play(server.url, task, env_class, ScriptedUser(task), model)
    assert evidence.termination.reason == "user_stop", evidence.termination.detail
    assert [(c.name, c.status) for c in evidence.tool_calls] == [(g.tool, g.expect) for g in task.gold.path]
    judge = LLMJudge(model_of(model, "openai/judge-model")).bind(UsageLedger())  # type: ignore[arg-type]
    verdict = grade(task, evidence, judge)
    assert verdict.outcome == "success", [c for c in verdict.checks if c.status != "passed"]
    requests = len(task.gold.path) + 1  # one model call per gold step and the reply, through the proxy
    assert (evidence.usage["agent"].calls, evidence.usage["agent"].prompt_tokens) == (requests, 50 * requests)
    answered = len(evidence.assistant_messages())
    assert [usage.calls for usage in evidence.agent_turn_usage] == [requests] + [0] * (answered - 1)
    assert agent.name == "scripted-a2a"  # the test server's card


def test_a_wrong_path_fails_the_same_checks_as_in_process(fake: Callable[[Responder], FakeLLM], example: Any) -> None:
    task, env_class = shipped("retail", GOLD_TASKS["retail"])
    skipped_verification = [(g.tool, dict(g.args)) for g in task.gold.path[1:]]  # no identity check
    model = fake(GoldScript([task], paths={task.id: skipped_verification}))
    with A2AServer(example.CrmAgent()) as server:
        over_a2a, _ = play(server.url, task, env_class, ScriptedUser(task), model)
    in_process = run_episode(
        task, env_class(seed=1), InProcess(skipped_verification), ScriptedUser(task), agent_name="x"
    )
    failed = [sorted(c.name for c in grade(task, e).checks if c.status == "failed") for e in (over_a2a, in_process)]
    assert failed[0] == failed[1] and failed[0], failed
    assert [c.name for c in over_a2a.tool_calls] == [c.name for c in in_process.tool_calls]
