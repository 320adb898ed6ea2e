"""The agent's model through the harness (issue 31): an OpenAI-compatible proxy for an outside agent.

:class:`ModelProxy` serves ``POST /<token>/v1/chat/completions`` on 127.0.0.1 (a fresh port, an
unguessable path; stdlib HTTP server, one per episode). Each request is forwarded through
:class:`~pytest_crmbench.models.llm.ModelClient` to the run's ``--crm-model``, as the reference
agents' calls are, so:

* the provider's key stays in the harness's process (the agent never sees one);
* the model, its server and its sampling settings are the run's: the request's ``model``,
  ``temperature`` or ``api_base`` are ignored; only ``messages``, ``tools``, ``tool_choice`` and
  ``response_format`` are forwarded;
* every request's tokens, cost and latency land in the episode's ledger as role ``agent`` (the
  episode splits them by user turn, :attr:`Evidence.agent_turn_usage`);
* provider failures are classified as for the reference agents: an outage after retries or a
  missing key is :class:`InfraError`, a context overflow or a refusal is the agent's
  :class:`AgentAbort`, a crash of our code is a :class:`HarnessError`. Each of those ends the
  episode: the proxy answers the agent with an error and hands the failure to ``on_failure``
  (the endpoint then ends the turn with it). A request the provider refuses for its shape (a 400)
  is the agent's own error: it gets the error back and the episode goes on.

A request outside an open turn is refused (409) and reaches no model. ``"stream": true`` is
answered as a server-sent-events stream of one chunk (the completion is not streamed from the
provider).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pytest_crmbench.core.errors import AgentAbort, AgentError, CrmbenchError, HarnessError, InfraError
from pytest_crmbench.core.evidence import Usage
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.models.llm import Completion, ModelClient, ModelConfig

__all__ = ["ModelProxy"]

MAX_REQUEST = 16 * 1024 * 1024
"""The largest request body the proxy reads (bytes); a longer one is refused with a 413."""
ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


class ModelProxy:
    """The model proxy of one episode; ``on_failure`` is told of a failure that ends it."""

    def __init__(
        self, config: ModelConfig, ledger: UsageLedger, *, on_failure: Callable[[CrmbenchError], None]
    ) -> None:
        self.config = config
        self._ledger = ledger
        self._on_failure = on_failure
        self._token = secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._deadline: float | None = None
        """The open turn's deadline; None between turns (requests are refused)."""
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.refused = 0
        """Requests refused because no turn was open."""

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as its base URL (``.../v1``)."""
        assert self._server is not None, "proxy not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/{self._token}/v1"

    def start(self) -> ModelProxy:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.proxy = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="crmbench-model-proxy", daemon=True
        )
        self._thread.start()
        return self

    def open_turn(self, deadline: float) -> None:
        with self._lock:
            self._deadline = deadline

    def close_turn(self) -> None:
        with self._lock:
            self._deadline = None

    def stop(self) -> None:
        self.close_turn()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    # -- the server's side ---------------------------------------------------------------------

    def path_ok(self, path: str) -> bool:
        return path.split("?", 1)[0].rstrip("/") == f"/{self._token}/v1/chat/completions"

    def answer(self, body: Any) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON body) for one chat-completions request."""
        with self._lock:
            deadline = self._deadline
        if deadline is None:
            with self._lock:
                self.refused += 1
            return 409, _error("refused: no user turn is open; the model is served only while the agent answers one")
        problem = _problem(body)
        if problem is not None:
            return 400, _error(f"invalid request: {problem}", "invalid_request_error")
        own = UsageLedger()
        client = ModelClient(self.config, "agent", own, outside=True)
        try:
            completion = client.complete(
                body["messages"],
                tools=body.get("tools") or None,
                tool_choice=body.get("tool_choice"),
                response_format=body.get("response_format"),
                deadline=deadline,
            )
        except AgentError as exc:  # the provider refused the agent's own request: its to handle
            return 400, _error(str(exc), "invalid_request_error")
        except (InfraError, AgentAbort, HarnessError) as exc:
            self._on_failure(exc)
            status = 400 if isinstance(exc, AgentAbort) else 502
            return status, _error(f"crmbench ends this episode: {exc}", "crmbench_episode_ended")
        finally:
            self._count(own.get("agent"))
        return 200, _chat_completion(completion, self.config.model, own.get("agent"))

    def _count(self, usage: Usage | None) -> None:
        if usage is not None:
            self._ledger.merge("agent", usage)


def _problem(body: Any) -> str | None:
    """What is wrong with a request body before any model sees it (None: nothing)."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty list"
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            return f"'messages[{index}]' must be an object whose role is one of {', '.join(sorted(ROLES))}"
    tools = body.get("tools")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, dict) for t in tools)):
        return "'tools' must be a list of objects"
    if not isinstance(body.get("tool_choice"), (str, dict, type(None))):
        return "'tool_choice' must be a string or an object"
    if not isinstance(body.get("response_format"), (dict, type(None))):
        return "'response_format' must be an object"
    return None


def _error(message: str, kind: str = "crmbench_refused") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}


def _chat_completion(completion: Completion, model: str, usage: Usage | None) -> dict[str, Any]:
    prompt = usage.prompt_tokens if usage is not None else 0
    produced = usage.completion_tokens if usage is not None else 0
    return {
        "id": f"chatcmpl-crmbench-{secrets.token_hex(6)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": dict(completion.message), "finish_reason": completion.finish_reason}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": produced, "total_tokens": prompt + produced},
    }


def _chunks(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """A chat completion as the chunks of a stream: the whole message in one delta, then the usage."""
    choice = answer["choices"][0]
    message = dict(choice["message"])
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
    base = {
        "id": answer["id"],
        "object": "chat.completion.chunk",
        "created": answer["created"],
        "model": answer["model"],
    }
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": choice["finish_reason"]}]},
        {**base, "choices": [], "usage": answer["usage"]},
    ]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    proxy: ModelProxy


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._send(404, _error("not found"))

    def do_POST(self) -> None:
        proxy = self.server.proxy
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            length = -1
        if not proxy.path_ok(self.path):
            self._send(404, _error("not found"))
            return
        if length < 0 or length > MAX_REQUEST:
            self.close_connection = True
            self._send(413, _error(f"a request body holds at most {MAX_REQUEST} bytes", "invalid_request_error"))
            return
        try:
            body = json.loads(self.rfile.read(length))
        except (ValueError, RecursionError):
            self._send(400, _error("the body is not JSON", "invalid_request_error"))
            return
        status, answer = proxy.answer(body)
        if status == 200 and isinstance(body, dict) and body.get("stream"):
            self._stream(answer)
        else:
            self._send(status, answer)

    def _stream(self, answer: dict[str, Any]) -> None:
        payload = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in _chunks(answer)) + "data: [DONE]\n\n"
        self._send_bytes(200, payload.encode(), "text/event-stream")

    def _send(self, status: int, answer: dict[str, Any]) -> None:
        self._send_bytes(status, json.dumps(answer, default=str).encode(), "application/json")

    def _send_bytes(self, status: int, payload: bytes, kind: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the agent gave up on its request
