"""The on-policy user simulator: a model plays the customer from the task's private instruction (spec §A.1).

It sees only its instruction and the visible conversation (never tool calls, results, routing or
state) and answers with a structured decision, ``{"action": "continue"|"stop", "message",
"stop_evidence"}``, never a magic substring. The harness, not only the prompt, guards against the
failure modes other benchmarks report:

* **Early stop** (stopping when the agent merely *proposed* the action): a stop must quote, in
  ``stop_evidence``, the assistant's own words showing the stop condition holds; the quote must
  occur verbatim in the assistant's messages, else the simulator is told so and asked again.
* **Invented facts** (a PIN, a second passenger): ids, e-mail addresses, amounts and long numbers
  in a user message must come from the instruction or the conversation; otherwise it is asked again.
* **Invented goals** when the scenario runs out: the instruction's goal is the only goal, and a
  stop is allowed (with evidence) as soon as the agent says it is done or cannot do it.
* **Text lost at a stop**: a closing message travels with the stop decision and is kept.

A simulator that cannot produce a valid decision after its attempts is an infrastructure failure
(it is not under test), never a failure of the agent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pytest_crmbench.core.errors import InfraError
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import UserDecision
from pytest_crmbench.models.llm import ModelClient, parse_json_object, structured_request

PROMPT = """You are playing a customer in a conversation with a customer-service assistant. \
Stay in character; the assistant is the other party.

Your private instruction:
<instruction>
{instruction}
</instruction>

Rules:
- Pursue exactly the goal of your instruction. Do not ask for anything else, even when the goal is \
done or turns out to be impossible.
- Use only facts from your instruction or from what the assistant said. If asked for something \
you do not know, say you do not know it. Never invent ids, numbers, PINs, names or e-mails.
- Say one thing at a time, briefly, like a real customer; share facts when they are asked for.
- Follow the reactions in your instruction when the situation they describe happens.
- Stop only when your stop condition holds because of what the assistant has actually said it \
did (not what it proposes or is about to do), or when the assistant has clearly said your goal \
cannot be met and your instruction gives no alternative. When you stop, put a short verbatim \
quote of the assistant's words that shows this in "stop_evidence"; you may add a closing \
"message" (it is delivered). When you continue, "message" is your next message and \
"stop_evidence" is "".

Answer with a JSON object only: {{"action": "continue" | "stop", "message": "...", "stop_evidence": "..."}}"""

DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["continue", "stop"]},
        "message": {"type": "string"},
        "stop_evidence": {"type": "string"},
    },
    "required": ["action", "message", "stop_evidence"],
    "additionalProperties": False,
}

# Fact-like tokens a simulator must not invent: ids (ACC-1002, TXN-WLV0C0), e-mails, amounts and
# numbers of three or more digits (PINs, card numbers). Small counts ("2 payments") are free.
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
"""``1,000`` whole (never its ``000``), ``1234``, ``15.50``."""
_FACTS = re.compile(
    r"[\w.+-]+@[\w-]+\.[\w.-]+"
    r"|\b[A-Z]{2,}-[A-Z0-9-]*\d[A-Z0-9-]*\b"
    rf"|\$\s?(?:{_NUMBER})"
    rf"|(?<![\w.])(?<!\d,)(?:{_NUMBER})(?!\w|,\d{{3}}|\.\d)"
)
_KNOWN = re.compile(rf"[\w.+-]+@[\w-]+\.[\w.-]+|\b[A-Z]{{2,}}-[A-Z0-9-]*\d[A-Z0-9-]*\b|(?<![\w.])(?<!\d,)(?:{_NUMBER})")


def normalise_fact(token: str) -> str:
    """``$1,000.00`` and ``1000`` are the same fact."""
    text = token.lower().replace("$", "").replace(",", "").strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        text = text.rstrip("0").rstrip(".") if "." in text else text
    return text


def facts(text: str) -> set[str]:
    """The facts a message states: ids, e-mails, amounts, and numbers of three or more digits."""
    found = set()
    for match in _FACTS.finditer(text):
        token, value = match.group(0), normalise_fact(match.group(0))
        if value.isdigit() and len(value) < 3 and not token.startswith("$"):
            continue  # small counts ("2 payments") are free
        found.add(value)
    return found


def known_facts(text: str) -> set[str]:
    """Everything a text makes known: every number whatever its length ("50 dollars"), ids, e-mails."""
    return {normalise_fact(m.group(0)) for m in _KNOWN.finditer(text)}


def squash(text: str) -> str:
    return " ".join(text.split()).lower()


class LLMUser:
    """A :class:`~pytest_crmbench.core.users.User` played by a model. One instance per episode."""

    def __init__(self, task: Task, client: ModelClient, *, attempts: int = 3) -> None:
        self._instruction = task.user.text()
        self._opening = task.user.opening
        self._client = client
        self._attempts = attempts
        self.rejected: list[str] = []
        """Why earlier decisions were sent back (kept for diagnostics)."""

    def open(self) -> str:
        # A scripted opening is said verbatim: cheaper and keeps turn 0 identical across models.
        if self._opening:
            return self._opening
        return self._decide([]).message or ""

    def respond(self, conversation: Sequence[Message]) -> UserDecision:
        return self._decide(conversation)

    def _decide(self, conversation: Sequence[Message]) -> UserDecision:
        structured = structured_request(self._client.config.output_mode, "crm_user_decision", DECISION_SCHEMA)
        system = structured.system(PROMPT.format(instruction=self._instruction))
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        # Flipped roles: the assistant's words are what this model is told; its own are its replies.
        messages.extend(
            {"role": "user" if m.role == "assistant" else "assistant", "content": m.content} for m in conversation
        )
        if not conversation:
            messages.append({"role": "user", "content": "(The conversation starts. Write your first message.)"})
        problem = ""
        for _ in range(self._attempts):
            completion = self._client.complete(messages, response_format=structured.response_format)
            decision, problem = self.validate(completion.content, conversation)
            if decision is not None:
                return decision
            self.rejected.append(problem)
            messages.append({"role": "assistant", "content": completion.content})
            messages.append(
                {"role": "user", "content": f"[harness] Your answer was not accepted: {problem} Answer again."}
            )
        raise InfraError(f"user simulator gave no valid decision in {self._attempts} attempts: {problem}")

    def validate(self, text: str, conversation: Sequence[Message]) -> tuple[UserDecision | None, str]:
        """The decision in ``text``, or None and what is wrong with it (said back to the simulator)."""
        data = parse_json_object(text)
        if data is None or data.get("action") not in ("continue", "stop"):
            return (
                None,
                'Reply with a JSON object {"action": "continue" | "stop", "message": ..., "stop_evidence": ...}.',
            )
        message = data.get("message")
        message = message.strip() if isinstance(message, str) else ""
        heard = " ".join(m.content for m in conversation)
        invented = sorted(facts(message) - known_facts(self._instruction) - known_facts(heard))
        if invented:
            return None, (
                f"your message mentions {', '.join(invented)}, which is neither in your instruction nor in the "
                "conversation. Do not invent facts: say you do not know."
            )
        if data["action"] == "continue":
            if not message:
                return None, "a continue decision needs a non-empty message."
            return UserDecision.say(message), ""
        evidence = data.get("stop_evidence")
        said = [squash(m.content) for m in conversation if m.role == "assistant"]
        if not isinstance(evidence, str) or not evidence.strip():
            return (
                None,
                "a stop needs stop_evidence: a verbatim quote of the assistant showing your stop condition holds.",
            )
        if not any(squash(evidence) in text for text in said):
            return None, (
                "stop_evidence is not a verbatim quote of the assistant. If the assistant has not yet said it did "
                "what your stop condition requires, continue the conversation instead."
            )
        return UserDecision.end(message or None), ""
