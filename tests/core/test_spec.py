import json

import pytest
from pydantic import ValidationError

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.families.actions import required_counts
from pytest_crmbench.core.spec import Contract, Task, task_json_schema

BASE = {
    "id": "d_x_01",
    "domain": "d",
    "capabilities": ["x"],
    "difficulty": "easy",
    "user": {"persona": "p", "goal": "g", "stop": "s"},
    "contract": {"reply_criteria": ["c"]},
    "gold": {"reply": "r"},
}


def task(**changes: object) -> Task:
    return Task.model_validate({**BASE, **changes})


def test_expected_action_shorthand_and_counts() -> None:
    contract = Contract.model_validate({"expected_actions": ["a", "a", {"tool": "b", "count": 3}, {"tool": "a"}]})
    assert required_counts(contract) == {"a": 3, "b": 3}


def test_single_order_mapping_becomes_a_list() -> None:
    contract = Contract.model_validate({"action_order": {"tools": ["a", "b"]}})
    assert [o.mode for o in contract.action_order] == ["subsequence"]


@pytest.mark.parametrize(
    "changes",
    [
        {"capabilities": []},
        {"capabilities": ["a", "b", "c", "d", "e"]},
        {"capabilities": ["a", "a"]},
        {"capabilities": ["Not-A-Marker"]},
        {"id": "has space"},
        {"difficulty": "trivial"},
        {"contract": {"expected_actions": [{"tool": "a", "count": 0}]}},
        {"contract": {"expected_params": [{"tool": "a", "args": {}}]}},
        {"contract": {"action_order": {"tools": ["a"]}}},
        {"contract": {"expected_state": {"a..b": 1}}},
        {"contract": {"forbidden": {"protected": ["has space.x"]}}},
        {"gold": {"reply": "r", "path": [{"tool": "a", "expect": "maybe"}]}},
        {"surprise": 1},
        {"contract": {}},
        {"contract": {"forbidden": {}, "expected_actions": []}},
    ],
)
def test_invalid_records_are_rejected(changes: dict) -> None:
    with pytest.raises(ValidationError):
        task(**changes)


def test_markers_are_domain_difficulty_tags_and_marks_without_repeats() -> None:
    assert task(capabilities=["x", "d"], marks=["policy", "x"]).markers() == ["d", "easy", "x", "policy"]


def test_positive_checks() -> None:
    assert not task().contract.has_positive_check()
    assert not task(contract={"reply_criteria": ["c"], "forbidden": {"actions": ["a"]}}).contract.has_positive_check()
    assert task(contract={"expected_state": {"a": 1}}).contract.has_positive_check()


def test_user_text_carries_every_part() -> None:
    user = task(
        user={
            "persona": "P",
            "goal": "G",
            "opening": "O",
            "known": ["K"],
            "unknown": ["U"],
            "reactions": ["R"],
            "stop": "S",
        }
    ).user
    assert user.text().splitlines() == [
        "Persona: P",
        "Goal: G",
        "Opening message: O",
        "You know: K",
        "You do not know: U",
        "Reactions: R",
        "Stop when: S",
    ]


def test_schema_command_prints_the_task_file_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema == json.loads(json.dumps(task_json_schema()))
    assert schema["type"] == "array"
    assert schema["$defs"]["Task"]["additionalProperties"] is False
    assert set(schema["$defs"]["Contract"]["properties"]) == {
        "expected_actions",
        "expected_params",
        "action_order",
        "reply_criteria",
        "expected_state",
        "forbidden",
        "conduct",
    }
    assert set(schema["$defs"]["ConductTerms"]["properties"]) == {"exempt", "allowed_writes", "authorised"}


def test_schema_lists_the_mutation_audit_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    task = schema["$defs"]["Task"]["properties"]
    assert {"alternatives", "counterexamples", "mutation_waivers"} <= set(task)
    assert schema["$defs"]["MutationWaiver"]["required"] == ["mutation", "reason"]
    assert schema["$defs"]["Trajectory"]["required"] == ["reason"]


def test_trajectories_and_waivers() -> None:
    record = task(
        alternatives=[
            {"reason": "reads twice", "path": [{"tool": "a"}, {"tool": "b", "args": {"x": {"$from": "0.id"}}}]}
        ],
        mutation_waivers=[{"mutation": "drop:1:b", "reason": "equivalent here"}],
    )
    assert record.alternatives[0].path[1].args == {"x": {"$from": "0.id"}}
    with pytest.raises(ValidationError, match="waived twice"):
        task(mutation_waivers=[{"mutation": "m", "reason": "a"}, {"mutation": "m", "reason": "b"}])
    with pytest.raises(ValidationError, match="expected to be rejected"):
        task(
            counterexamples=[
                {
                    "reason": "r",
                    "path": [{"tool": "a", "expect": "rejected"}, {"tool": "b", "args": {"x": {"$from": "0.id"}}}],
                }
            ]
        )


def test_order_entries_may_constrain_arguments() -> None:
    contract = Contract.model_validate({"action_order": {"tools": ["a", {"tool": "b", "args": {"to": "X"}}]}})
    (order,) = contract.action_order
    assert order.names() == ["a", "b"]
    assert [step.text() for step in order.tools] == ["a", "b(to=X)"]
    with pytest.raises(ValidationError):
        Contract.model_validate({"action_order": {"tools": ["a", {"tool": "b", "args": {"to": {"$bogus": 1}}}]}})


def test_schema_command_prints_the_trajectory_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--kind", "trajectory"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert {"messages", "routing", "tool_calls", "final_state", "termination"} <= set(schema["properties"])


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        ({"path": [{"tool": "a", "args": {"x": {"$from": "0.id"}}}], "reply": "r"}, "must name an earlier step"),
        (
            {"path": [{"tool": "a"}, {"tool": "b", "args": {"x": {"$from": "first.id"}}}], "reply": "r"},
            "needs the form",
        ),
        (
            {
                "path": [{"tool": "a", "expect": "rejected"}, {"tool": "b", "args": {"x": {"$from": "0.id"}}}],
                "reply": "r",
            },
            "expected to be rejected",
        ),
        ({"path": [{"tool": "a"}], "reply": "see ${1.id}"}, "must name a step of the path"),
    ],
)
def test_gold_references_are_validated(gold: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        task(gold=gold)


def test_valid_gold_references() -> None:
    gold = task(
        gold={"path": [{"tool": "a"}, {"tool": "b", "args": {"x": {"$from": "0.ids.0"}}}], "reply": "id ${0.ids.0}"}
    ).gold
    assert gold.path[1].args == {"x": {"$from": "0.ids.0"}}
