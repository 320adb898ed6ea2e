"""Concurrent first calls of one model: the first runs alone, the rest must not queue behind a lock."""

from __future__ import annotations

import threading
import uuid

from pytest_crmbench.models.fakellm import FakeLLM, completion
from pytest_crmbench.models.llm import ModelClient, ModelConfig


def test_threads_waiting_for_the_first_call_then_run_concurrently() -> None:
    # A bug once made every thread that queued behind the first call make its own call inside the
    # lock, serialising a whole 16-way wave (9 s of a 96-task benchmark). With the fix, at most
    # the very first request is alone at the server.
    model = f"openai/first-call-{uuid.uuid4().hex[:8]}"  # a key no other test has warmed
    with FakeLLM(lambda request: completion("hi"), latency_s=0.3, lifetime_s=60) as server:
        config = ModelConfig(model=model, api_base=server.base_url, timeout_s=10, retries=0)
        start = threading.Barrier(6)
        replies: list[str] = []

        def call() -> None:
            start.wait()
            replies.append(ModelClient(config, "agent").complete([{"role": "user", "content": "hello"}]).content)

        threads = [threading.Thread(target=call) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        config.transport.close()  # as a session does: no client's connections left open (issue 32)
        assert replies == ["hi"] * 6
        assert server.max_in_flight >= 2
