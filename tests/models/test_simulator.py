"""The simulator's harness-side guards: early stops, invented facts, stop text (spec §A.1)."""

from __future__ import annotations

import json

import pytest

from pytest_crmbench.core.evidence import Message
from pytest_crmbench.core.spec import Task
from pytest_crmbench.models.llm import ModelClient, ModelConfig
from pytest_crmbench.models.simulator import LLMUser, facts


@pytest.fixture
def user(mini_tasks: dict[str, Task]) -> LLMUser:
    # The client is never called by validate().
    return LLMUser(mini_tasks["mini_transfer_retry_01"], ModelClient(ModelConfig("openai/x"), "user"))


def decision(action: str, message: str = "", evidence: str = "") -> str:
    return json.dumps({"action": action, "message": message, "stop_evidence": evidence})


CONVERSATION = (
    Message(role="user", content="Please send money.", turn=0),
    Message(role="assistant", content="I will send $50.00 to ACC-1 once you confirm.", turn=0),
)


def test_facts_normalise_amounts_and_ids() -> None:
    assert facts("Send $1,000.00 to ACC-1002, mail me at a.b@example.com, PIN 8274, 2 items") == {
        "1000",
        "acc-1002",
        "a.b@example.com",
        "8274",
    }


def test_continue_with_known_facts_is_accepted(user: LLMUser) -> None:
    made, problem = user.validate(decision("continue", "Yes, send $50.00 to ACC-1"), CONVERSATION)
    assert problem == "" and made is not None and made.message == "Yes, send $50.00 to ACC-1"


def test_invented_facts_are_sent_back(user: LLMUser) -> None:
    made, problem = user.validate(decision("continue", "My PIN is 8274"), CONVERSATION)
    assert made is None and "8274" in problem


def test_stop_needs_a_verbatim_quote_of_the_assistant(user: LLMUser) -> None:
    # "Early stop": the agent only proposed the transfer; the simulator claims it was done.
    made, problem = user.validate(decision("stop", "Thanks", "The transfer was completed"), CONVERSATION)
    assert made is None and "not a verbatim quote" in problem
    made, problem = user.validate(decision("stop", "Thanks", ""), CONVERSATION)
    assert made is None and "stop_evidence" in problem


def test_valid_stop_keeps_its_closing_message(user: LLMUser) -> None:
    made, _ = user.validate(decision("stop", "Thanks, bye", "I  will send $50.00"), CONVERSATION)
    assert made is not None and made.stop and made.message == "Thanks, bye"


@pytest.mark.parametrize("text", ["", "stop", '{"action": "maybe"}', decision("continue", "")])
def test_malformed_decisions_are_sent_back(user: LLMUser, text: str) -> None:
    made, problem = user.validate(text, CONVERSATION)
    assert made is None and problem


@pytest.mark.parametrize(
    ("instruction_says", "message"),
    [
        ("Send $1,000 from ACC-1 to ACC-2.", "Send 1,000 dollars please."),
        ("Send $1,000 from ACC-1 to ACC-2.", "Make it 1000."),
        ("Send 50 dollars from ACC-1 to ACC-2.", "Oh, sorry, I meant $50."),
        ("Send 1,000 dollars from ACC-1 to ACC-2.", "Then send $1,000.00 next week."),
    ],
)
def test_numbers_written_differently_are_the_same_fact(
    mini_tasks: dict[str, Task], instruction_says: str, message: str
) -> None:
    data = mini_tasks["mini_transfer_retry_01"].model_dump()
    data["user"] = {**data["user"], "goal": instruction_says, "known": [], "reactions": [], "opening": None}
    user = LLMUser(Task.model_validate(data), ModelClient(ModelConfig("openai/x"), "user"))
    made, problem = user.validate(decision("continue", message), ())
    assert problem == "" and made is not None


def test_grouped_numbers_are_one_fact() -> None:
    assert facts("Make it 1,234,567 or 1,000.") == {"1234567", "1000"}
