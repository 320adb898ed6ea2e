"""Scripted model behaviour for the fake OpenAI server: one :class:`Scenario` per conversation.

Stateless like a real model: every answer is derived from the request alone (the turn from the
number of user messages, the step from the agent's calls since the last user message), so the
same script serves concurrent episodes. Faults are queued per role (consumed first, in order) or
set persistently.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_crmbench.models.fakellm import FakeRequest, HttpError, Reply, completion, json_completion

Args = dict[str, Any] | str | Callable[[FakeRequest], str]
"""Tool arguments: a mapping, a raw string (possibly malformed JSON), or computed from the request."""


@dataclass
class AgentTurn:
    """The agent's model calls in one user turn: each step is one call with these tool calls."""

    steps: list[list[tuple[str, Args]]] = field(default_factory=list)
    reply: str = ""


@dataclass
class Scenario:
    key: str
    """A substring of the conversation's opening line that identifies the scenario."""
    routes: list[str] = field(default_factory=list)
    """The router's answer per user turn (the last one repeats)."""
    agent: list[AgentTurn] = field(default_factory=list)
    """Per user turn (the last one repeats)."""
    user: list[str] = field(default_factory=list)
    """The simulator's message after each agent reply; when they run out it stops."""
    repeat_user: bool = False
    """Keep repeating the last user line instead of stopping (a conversation that never ends)."""


def from_result(key: str) -> Callable[[FakeRequest], str]:
    """Arguments ``{key: <value of key in the latest tool result holding it>}``."""

    def args(request: FakeRequest) -> str:
        for result in reversed(request.tool_results()):
            if isinstance(result, dict) and key in result:
                return json.dumps({key: result[key]})
        return "{}"

    return args


def with_result(base: dict[str, Any], key: str) -> Callable[[FakeRequest], str]:
    def args(request: FakeRequest) -> str:
        found = json.loads(from_result(key)(request))
        return json.dumps({**base, **found})

    return args


class Script:
    """The responder: routes each request to its role's behaviour."""

    def __init__(self, scenarios: Sequence[Scenario] = ()) -> None:
        self.scenarios = list(scenarios)
        self.faults: dict[str, list[Reply]] = {}
        self.always: dict[str, Reply] = {}
        self.judge_mode = "pass"
        self.judge_contradiction = False
        self._lock = threading.Lock()

    def queue(self, role: str, *replies: Reply) -> None:
        with self._lock:
            self.faults.setdefault(role, []).extend(replies)

    def __call__(self, request: FakeRequest) -> Reply:
        role = request.role
        with self._lock:
            queued = self.faults.get(role)
            if queued:
                return queued.pop(0)
        if role in self.always:
            return self.always[role]
        if role == "judge":
            return self.judge(request)
        if role == "other":  # the preflight's one-token request
            return completion("ok", prompt_tokens=1, completion_tokens=1)
        scenario = self.scenario(request)
        if role == "router":
            turn = len(request.texts("user")) - 1
            return json_completion({"node": scenario.routes[min(turn, len(scenario.routes) - 1)]})
        if role == "user":
            return self.user(request, scenario)
        return self.agent(request, scenario)

    def scenario(self, request: FakeRequest) -> Scenario:
        text = " ".join(str(m.get("content") or "") for m in request.messages[:3])
        for scenario in self.scenarios:
            if scenario.key in text:
                return scenario
        raise LookupError(f"no scenario for {text[:200]!r}")

    def agent(self, request: FakeRequest, scenario: Scenario) -> Reply:
        messages = request.messages
        last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
        turn = len(request.texts("user")) - 1
        script = scenario.agent[min(turn, len(scenario.agent) - 1)]
        step = sum(1 for m in messages[last_user:] if m.get("role") == "assistant")
        if step < len(script.steps):
            calls = [
                (name, args(request) if callable(args) else args if isinstance(args, str) else json.dumps(args))
                for name, args in script.steps[step]
            ]
            return completion(None, calls, extra={"reasoning_content": f"turn {turn} step {step}"})
        return completion(script.reply)

    def user(self, request: FakeRequest, scenario: Scenario) -> Reply:
        # The simulator's view is flipped: the agent's replies arrive as "user" messages.
        heard = request.texts("user")
        index = len(heard) - 1
        if index < len(scenario.user) or (scenario.repeat_user and scenario.user):
            line = scenario.user[min(index, len(scenario.user) - 1)]
            return json_completion({"action": "continue", "message": line, "stop_evidence": ""})
        last = heard[-1]
        return json_completion({"action": "stop", "message": "Thanks, bye!", "stop_evidence": last[:40]})

    def judge(self, request: FakeRequest) -> Reply:
        content = str(request.messages[1].get("content") or "")  # the judge input (retries append after it)
        criteria = content.split("<criteria>\n", 1)[1].split("\n</criteria>", 1)[0].splitlines()
        transcript = json.loads(content.split("<untrusted_transcript>\n", 1)[1].split("\n</untrusted_transcript>")[0])
        said = [entry["assistant"] for entry in transcript if entry["assistant"]]
        verdicts = []
        for index, criterion in enumerate(criteria):
            words = set(criterion.lower().split())
            best = max(said, key=lambda s: len(words & set(s.lower().split())), default="")
            verdicts.append({"criterion": index, "decision": "pass", "quote": best, "explanation": "stated"})
        if self.judge_mode == "short":
            verdicts = verdicts[:-1]
        elif self.judge_mode == "unquoted":
            verdicts = [{**v, "quote": "words nobody said"} for v in verdicts]
        elif self.judge_mode == "empty_quote":
            verdicts = [{**v, "quote": ""} for v in verdicts]
        elif self.judge_mode == "malformed":
            return completion("Sure! All criteria pass.")
        return json_completion({"verdicts": verdicts, "contradiction_found": self.judge_contradiction})


def rate_limited(seconds: str = "0") -> HttpError:
    return HttpError(429, "rate limited", {"Retry-After": seconds})


# -- the spec's cases on the payments tasks -------------------------------------------------------

CASE_A = Scenario(
    key="transfer $1,000 from my account ACC-1002",
    routes=["transfer"],
    agent=[
        AgentTurn(
            steps=[
                [("verify_identity", {"account_id": "ACC-1002", "email": "dan.okafor@example.com"})],
                [("get_account_balance", {"account_id": "ACC-1002"})],
                [("validate_transfer", {"from_account": "ACC-1002", "to_account": "ACC-1001", "amount": 1000})],
            ],
            reply="I can't make the $1,000 transfer: validation says insufficient funds, your balance is $180.00.",
        ),
        AgentTurn(
            steps=[
                [("validate_transfer", {"from_account": "ACC-1002", "to_account": "ACC-1001", "amount": 50})],
                [("execute_transfer", {"from_account": "ACC-1002", "to_account": "ACC-1001", "amount": 50})],
            ],
            reply="Done: the $50.00 transfer to ACC-1001 was completed; your new balance is $130.00.",
        ),
    ],
    user=["Oh, sorry, I meant $50"],
)

_PAY = {
    "account_id": "ACC-1002",
    "amount": 15.50,
    "payment_method_id": "PM-2003",
    "merchant": "Blue Bottle Coffee",
    "description": "coffee subscription",
}
_CHAIN = [
    [("process_payment", _PAY)],
    [("send_receipt", with_result({"account_id": "ACC-1002"}, "transaction_id"))],
    [("award_loyalty_points", with_result({"account_id": "ACC-1002"}, "transaction_id"))],
    [("log_transaction", from_result("transaction_id"))],
]

CASE_B = Scenario(
    key="pay $15.50 to Blue Bottle Coffee",
    routes=["checkout"],
    agent=[
        AgentTurn(
            steps=[
                [("verify_identity", {"account_id": "ACC-1002", "full_name": "Daniel Okafor"})],
                [("list_payment_methods", {"account_id": "ACC-1002"})],
                *_CHAIN,
            ],
            reply="Payment done. You earned 155 loyalty points from this $15.50 transaction.",
        ),
        AgentTurn(reply="I apologise: those earlier results were fabricated, nothing was actually processed."),
        AgentTurn(steps=list(_CHAIN), reply="All set now: the payment went through and the points were added."),
        AgentTurn(reply="You're welcome!"),
    ],
    user=[
        "Great. What is the exact timestamp and the confirmation code?",
        "Then please make the payment properly.",
        "Thanks.",
    ],
)

CASE_C = Scenario(
    key="how much money is in my account? It's ACC-1001",
    routes=["balance"],
    agent=[
        AgentTurn(
            steps=[[("verify_identity", {"account_id": "ACC-1001"})]],
            reply="I could not verify you. Please give me your PIN.",
        )
    ],
    user=["I don't have a PIN. My name is Maria Delgado."],
    repeat_user=True,
)

PAYMENTS_SCENARIOS = [CASE_A, CASE_B, CASE_C]


# -- a model that plays each task's gold path (the endpoint tests, issue 31) ----------------------


class GoldScript:
    """The agent's model asks for each task's gold path, one call per step, then says the gold reply.

    The task is found by its opening line; ``paths`` replaces a task's path (a wrong one). The
    simulator stops after the agent's first reply; the judge passes each criterion with the
    agent's closest sentence (:meth:`Script.judge`). Values a gold step takes ``$from`` an earlier
    result are read from the tool messages the agent sent back, as a real model would read them.
    """

    def __init__(self, tasks: Sequence[Any], paths: dict[str, list[tuple[str, dict[str, Any]]]] | None = None) -> None:
        self.tasks = {task.user.opening or task.user.goal: task for task in tasks}
        self.paths = paths or {}
        self._judge = Script()

    def __call__(self, request: FakeRequest) -> Reply:
        from pytest_crmbench.core.evidence import jsonable
        from pytest_crmbench.core.spec import REPLY_REFERENCE
        from pytest_crmbench.run.baselines import GoldAgent

        role = request.role
        if role == "judge":
            return self._judge.judge(request)
        if role == "user":
            return json_completion({"action": "stop", "message": "Thanks, bye!", "stop_evidence": "done"})
        if role != "agent":
            return completion("ok", prompt_tokens=1, completion_tokens=1)
        opening = next(str(m.get("content")) for m in request.messages if m.get("role") == "user")
        task = self.tasks[opening]
        results = request.tool_results()
        if task.id in self.paths:
            path = self.paths[task.id]
            if len(results) < len(path):
                name, args = path[len(results)]
                return _step(task.id, len(results), name, json.dumps(jsonable(args)))
            return completion("Done.", prompt_tokens=50, completion_tokens=5)
        steps = task.gold.path
        if len(results) < len(steps):
            gold = steps[len(results)]
            args = {name: GoldAgent._resolve(value, results) for name, value in gold.args.items()}
            return _step(task.id, len(results), gold.tool, json.dumps(jsonable(args)))
        reply = REPLY_REFERENCE.sub(
            lambda m: str(GoldAgent._resolve({"$from": m.group(1) + m.group(2)}, results)), task.gold.reply
        )
        return completion(reply, prompt_tokens=50, completion_tokens=5)


def _step(task_id: str, step: int, name: str, arguments: str) -> dict[str, Any]:
    """One tool call with an id of its own, as a real model gives (frameworks refuse a reused id)."""
    reply = completion(None, [(name, arguments)], prompt_tokens=50, completion_tokens=5)
    reply["choices"][0]["message"]["tool_calls"][0]["id"] = f"call_{task_id}_{step}"
    return reply
