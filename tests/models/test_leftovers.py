"""What litellm leaves open after a session's calls is closed with the session (issue 32 item 3)."""

from __future__ import annotations

import asyncio
import gc
import threading
import warnings
from typing import Any

import pytest

from pytest_crmbench.models.fakellm import FakeLLM, completion
from pytest_crmbench.models.leftovers import thread_loop
from pytest_crmbench.models.llm import Transport


def call(transport: Transport, server: FakeLLM) -> None:
    transport.send(
        {
            "model": "openai/leftover-model",
            "api_base": server.base_url,
            "api_key": "not-needed",
            "messages": [{"role": "user", "content": "hi"}],
            "max_retries": 0,
            "timeout": 30,
        }
    )


def sync_clients(transport: Transport) -> list[Any]:
    cache = transport.litellm().in_memory_llm_clients_cache
    return [c for c in cache.cache_dict.values() if type(c).__name__ == "OpenAI"]


@pytest.fixture
def server() -> Any:
    with FakeLLM(lambda request: completion("ok"), lifetime_s=60) as fake:
        yield fake


def test_the_session_end_closes_litellm_s_client_and_the_loop_it_left(server: FakeLLM) -> None:
    transport = Transport()
    result: dict[str, Any] = {}

    def on_a_fresh_thread() -> None:
        # A thread without a loop, as pytest's main thread is before the first call: litellm's
        # service logger then sets one there for good.
        asyncio.set_event_loop(None)
        call(transport, server)
        result["loop"] = thread_loop()

    worker = threading.Thread(target=on_a_fresh_thread)
    worker.start()
    worker.join()
    clients = sync_clients(transport)
    assert clients, "litellm cached no client: the test no longer exercises the leak"
    pools = [client._client for client in clients]
    assert not any(pool.is_closed for pool in pools)
    transport.close()
    assert all(pool.is_closed for pool in pools)
    assert not sync_clients(transport)
    loop = result["loop"]
    assert loop is None or loop.is_closed()
    del clients, pools, loop
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        gc.collect()
    assert not [w for w in seen if issubclass(w.category, ResourceWarning)]


def test_a_loop_that_was_there_before_the_call_is_left_alone(server: FakeLLM) -> None:
    transport = Transport()
    mine = asyncio.new_event_loop()
    previous = thread_loop()
    asyncio.set_event_loop(mine)
    try:
        call(transport, server)
        transport.close()
        assert not mine.is_closed()
        assert thread_loop() is mine
    finally:
        asyncio.set_event_loop(previous)
        mine.close()
