"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for offline tests and benchmarks.

Requests travel the real path (litellm -> openai SDK -> httpx -> HTTP), so retries, timeouts,
error mapping and response parsing are exercised; only the model is scripted. ``GET /v1/models``
lists ``served`` (404 when not given, like servers without a listing), and with ``api_key`` set
every request without ``Authorization: Bearer <api_key>`` gets a 401. A *responder*
``(FakeRequest) -> Reply`` decides every answer; :func:`role_of` tells which crmbench role asked
(router, agent, user, judge, the preflight's probes) from the structured-output name, the prompt's
schema instruction or the tools; ``refuses`` names request features (``json_schema``,
``json_object``, ``tools``) the server answers with a 500, as servers without them do, and the
preflight's probes get a healthy answer otherwise. Faults are replies too:
:class:`HttpError` (429 with ``Retry-After``, 500, ...), :class:`Malformed` (a non-JSON body) and
``FakeRequest``-independent latency.

Bounded by construction: stdlib ``ThreadingHTTPServer`` with daemon threads, a socket timeout per
request, and a lifetime after which the server shuts itself down even if nobody calls ``stop()``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

FakeRole = Literal["router", "agent", "user", "judge", "preflight", "other"]
RESPONSE_FORMAT_ROLES: dict[str, FakeRole] = {
    "crm_route": "router",
    "crm_user_decision": "user",
    "crm_judge": "judge",
    "crm_preflight": "preflight",
}
Shape = Literal["json_schema", "json_object", "tools"]
"""Request features a server may not support (``FakeLLM(refuses=...)``)."""


@dataclass(frozen=True)
class FakeRequest:
    body: dict[str, Any]
    headers: Mapping[str, str]
    """Lower-cased names."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = self.body.get("messages", [])
        return messages if isinstance(messages, list) else []

    @property
    def role(self) -> FakeRole:
        return role_of(self.body)

    def texts(self, role: str) -> list[str]:
        return [str(m.get("content") or "") for m in self.messages if m.get("role") == role]

    def tool_results(self) -> list[Any]:
        """Decoded tool messages since the last user message (this turn's observations so far)."""
        found: list[Any] = []
        for message in self.messages:
            if message.get("role") == "user":
                found = []
            elif message.get("role") == "tool":
                try:
                    found.append(json.loads(str(message.get("content"))))
                except json.JSONDecodeError:
                    found.append(message.get("content"))
        return found


def shapes_of(body: Mapping[str, Any]) -> set[Shape]:
    """The request features of ``body`` a server may refuse."""
    found: set[Shape] = {"tools"} if body.get("tools") else set()
    response_format = body.get("response_format")
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind in ("json_schema", "json_object"):
        found.add(kind)
    return found


def role_of(body: Mapping[str, Any]) -> FakeRole:
    response_format = body.get("response_format")
    if isinstance(response_format, dict):
        name = (response_format.get("json_schema") or {}).get("name")
        if name in RESPONSE_FORMAT_ROLES:
            return RESPONSE_FORMAT_ROLES[name]
    messages = body.get("messages") or []
    # Without a json_schema response format (a server that takes only json_object, or none), the
    # schema's name is in the system prompt's instruction (models/llm.py, structured_request).
    system = str(messages[0].get("content") or "") if messages and messages[0].get("role") == "system" else ""
    for name, role in RESPONSE_FORMAT_ROLES.items():
        if f"JSON schema ({name})" in system:
            return role
    tools = body.get("tools") or []
    if tools and all((tool.get("function") or {}).get("name") == "ping" for tool in tools):
        return "preflight"  # the preflight's tool-calling probe (models/preflight.py)
    if body.get("tools") or (messages and messages[0].get("role") == "system"):
        return "agent"
    return "other"


@dataclass(frozen=True)
class HttpError:
    status: int
    message: str = "injected failure"
    headers: Mapping[str, str] = field(default_factory=dict)
    code: str | None = None
    """The error body's ``code`` (``content_filter``, say); the status as text by default."""


@dataclass(frozen=True)
class Malformed:
    """A 200 whose body is not a chat completion."""

    text: str = "<html>not json</html>"


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds``, then give ``then`` (a client timeout shorter than the wait sees a timeout)."""

    seconds: float
    then: Reply


Reply = dict[str, Any] | HttpError | Malformed | Delay
Responder = Callable[[FakeRequest], Reply]


def completion(
    content: str | None = None,
    tool_calls: Sequence[tuple[str, str]] = (),
    *,
    prompt_tokens: int = 100,
    completion_tokens: int = 10,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``chat.completion`` body; ``tool_calls`` are (name, raw arguments string) pairs."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
            for i, (name, arguments) in enumerate(tool_calls)
        ]
    message.update(extra or {})
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def json_completion(value: Any, **kwargs: Any) -> dict[str, Any]:
    return completion(json.dumps(value), **kwargs)


class FakeLLM:
    """The server. ``with FakeLLM(responder) as server: ... server.base_url ...``."""

    def __init__(
        self,
        responder: Responder,
        *,
        latency_s: float = 0.0,
        lifetime_s: float = 600.0,
        served: Sequence[str] | None = None,
        api_key: str | None = None,
        refuses: Sequence[Shape] = (),
        answers_probes: bool = True,
    ) -> None:
        self.responder = responder
        self.refuses = frozenset(refuses)
        """Features answered with a 500 (llama.cpp's server refuses ``json_schema`` so)."""
        self.answers_probes = answers_probes
        """Whether the preflight's probes get a healthy answer (False: the responder decides)."""
        self.served = list(served) if served is not None else None
        self.api_key = api_key
        self.unauthorised = 0
        """Requests refused with a 401 (counted, not recorded in ``requests``)."""
        self.latency_s = latency_s
        self.lifetime_s = lifetime_s
        self.requests: list[FakeRequest] = []
        self.counts: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self.max_recorded = 10_000
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeLLM:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if self._timer is not None:
            self._timer.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def by_role(self, role: FakeRole) -> list[FakeRequest]:
        with self._lock:
            return [r for r in self.requests if r.role == role]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.counts.clear()
            self.max_in_flight = 0

    def _answer(self, request: FakeRequest) -> Reply:
        with self._lock:
            if len(self.requests) < self.max_recorded:
                self.requests.append(request)
            self.counts[request.role] += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency_s:
                time.sleep(self.latency_s)
            refused = shapes_of(request.body) & self.refuses
            if refused:
                return HttpError(500, f"{', '.join(sorted(refused))} is not supported by this server")
            if request.role == "preflight" and self.answers_probes:
                # The preflight's probes get a healthy answer from any script: what a server
                # refuses is said by `refuses`, as a real server's capabilities would.
                return json_completion({"ok": True}, prompt_tokens=1, completion_tokens=1)
            return self.responder(request)
        finally:
            with self._lock:
                self.in_flight -= 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 resets connections under 16+ concurrent clients
    fake: FakeLLM

    def server_bind(self) -> None:
        # Header and body go out in separate sends; without NODELAY, Nagle + delayed ACK add ~40 ms.
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().server_bind()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # a stuck client cannot hold a handler thread forever
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _authorised(self) -> bool:
        key = self.server.fake.api_key
        if key is None or self.headers.get("authorization") == f"Bearer {key}":
            return True
        with self.server.fake._lock:
            self.server.fake.unauthorised += 1
        message = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "401"}}
        self._send(401, json.dumps(message).encode())
        return False

    def do_GET(self) -> None:
        served = self.server.fake.served
        if not self._authorised():
            return
        if not self.path.rstrip("/").endswith("/models") or served is None:
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        models = [{"id": name, "object": "model", "owned_by": "fake"} for name in served]
        self._send(200, json.dumps({"object": "list", "data": models}).encode())

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if not self._authorised():
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send(400, b'{"error": {"message": "invalid JSON"}}')
            return
        try:
            reply = self.server.fake._answer(FakeRequest(body, {k.lower(): v for k, v in self.headers.items()}))
        except Exception as exc:  # a broken script must show up as a server error, not a hang
            reply = HttpError(500, f"responder crashed: {type(exc).__name__}: {exc}")
        while isinstance(reply, Delay):
            time.sleep(reply.seconds)
            reply = reply.then
        if isinstance(reply, HttpError):
            payload = {"error": {"message": reply.message, "type": "fake", "code": reply.code or str(reply.status)}}
            self._send(reply.status, json.dumps(payload).encode(), reply.headers)
        elif isinstance(reply, Malformed):
            self._send(200, reply.text.encode())
        else:
            self._send(200, json.dumps(reply).encode())

    def _send(self, status: int, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout); nothing to tell it
