"""The model proxy (issue 31): an outside agent's requests reach the run's model through litellm,
measured per turn as role agent; what it refuses never reaches a model."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pytest_crmbench.core.errors import CrmbenchError, InfraError
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.models.fakellm import FakeLLM, HttpError, completion
from pytest_crmbench.models.llm import ModelConfig, Transport, litellm_module
from pytest_crmbench.run.model_proxy import ModelProxy

pytestmark = pytest.mark.filterwarnings(r"ignore::UserWarning:pydantic\._internal\._generate_schema")
HI = {"model": "anything", "messages": [{"role": "user", "content": "hi"}], "temperature": 1.7}


TRANSPORT = Transport()
"""One session's door to litellm for the module's models, closed at the module's end."""


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> Iterator[None]:
    litellm_module()
    yield
    TRANSPORT.close()  # litellm's cached clients and the loop it set on this thread: no ResourceWarning later


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM(lambda request: completion("hello", [("get_balance", "{}")], prompt_tokens=7), lifetime_s=60) as f:
        yield f


def proxy_for(fake: FakeLLM, failures: list[CrmbenchError]) -> tuple[ModelProxy, UsageLedger]:
    ledger = UsageLedger()
    config = ModelConfig(model="openai/run-model", api_base=fake.base_url, retries=0, timeout_s=10, transport=TRANSPORT)
    return ModelProxy(config, ledger, on_failure=failures.append).start(), ledger


def post(url: str, body: Any) -> httpx.Response:
    return httpx.post(f"{url}/chat/completions", json=body, timeout=20)


def test_requests_reach_the_runs_model_and_are_counted(fake: FakeLLM) -> None:
    failures: list[CrmbenchError] = []
    proxy, ledger = proxy_for(fake, failures)
    try:
        assert post(proxy.base_url, HI).status_code == 409  # no turn open: no model called
        proxy.open_turn(time.monotonic() + 60)
        answer = post(proxy.base_url, HI).json()
        streamed = post(proxy.base_url, {**HI, "stream": True})
        proxy.close_turn()
        proxy.open_turn(time.monotonic() + 60)
        post(proxy.base_url, HI)
        bad = [
            post(proxy.base_url, body).status_code for body in ({"messages": []}, [1], {"messages": [{"role": "x"}]})
        ]
        wrong = httpx.post(proxy.base_url.replace("/v1", "x/v1") + "/chat/completions", json=HI, timeout=20)
    finally:
        proxy.stop()
    message = answer["choices"][0]["message"]
    assert message["content"] == "hello" and message["tool_calls"][0]["function"]["name"] == "get_balance"
    assert answer["usage"]["prompt_tokens"] == 7
    assert streamed.headers["content-type"] == "text/event-stream"
    chunks = [line[6:] for line in streamed.text.splitlines() if line.startswith("data: ")]
    assert chunks[-1] == "[DONE]" and json.loads(chunks[0])["choices"][0]["delta"]["content"] == "hello"
    # The run's model, not the request's; the run's sampling settings, not the request's.
    assert {r.body["model"] for r in fake.requests} == {"run-model"}
    assert all("temperature" not in r.body for r in fake.requests)
    assert (bad, wrong.status_code, proxy.refused) == ([400, 400, 400], 404, 1)
    agent = ledger.get("agent")
    assert agent is not None and (agent.calls, agent.prompt_tokens) == (3, 21)
    assert failures == []


def test_a_provider_outage_ends_the_episode_and_a_bad_request_does_not(fake: FakeLLM) -> None:
    failures: list[CrmbenchError] = []
    proxy, _ = proxy_for(fake, failures)
    try:
        proxy.open_turn(time.monotonic() + 60)
        fake.responder = lambda request: HttpError(400, "messages are malformed")
        refused = post(proxy.base_url, HI)
        assert (refused.status_code, failures) == (400, [])  # the agent's own request: its to handle
        fake.responder = lambda request: HttpError(503, "overloaded")
        outage = post(proxy.base_url, HI)
    finally:
        proxy.stop()
    assert outage.status_code == 502 and "crmbench ends this episode" in outage.json()["error"]["message"]
    assert len(failures) == 1 and isinstance(failures[0], InfraError)
