from decimal import Decimal
from pathlib import Path

from pydantic import create_model

from pytest_crmbench.core.hashing import canonical_json, combined_hash, content_hash, file_hash
from pytest_crmbench.core.loader import parse_task_text

TASK = "- id: d_x_01\n  domain: d\n  capabilities: [x]\n  difficulty: easy\n  user: {persona: p, goal: g, stop: s}\n  contract: {expected_state: {a: 1.50}}\n  gold: {reply: r}\n"
REFORMATTED = """
- domain: d      # keys in another order, block style, a comment
  id: d_x_01
  difficulty: easy
  capabilities:
    - x
  user:
    goal: g
    persona: p
    stop: s
  gold:
    reply: r
  contract:
    expected_state:
      a: 1.50
"""


def test_formatting_does_not_change_a_task_hash() -> None:
    (a,) = parse_task_text(TASK, path=Path("a.yaml"))
    (b,) = parse_task_text(REFORMATTED, path=Path("b.yaml"))
    assert content_hash(a.task) == content_hash(b.task)
    (c,) = parse_task_text(TASK.replace("goal: g", "goal: h"), path=Path("c.yaml"))
    assert content_hash(c.task) != content_hash(a.task)


def test_canonical_json_is_exact_and_sorted() -> None:
    assert canonical_json({"b": Decimal("1.50"), "a": [1, "é"]}) == '{"a":[1,"é"],"b":"1.5"}'


def test_combined_hash_ignores_order(tmp_path: Path) -> None:
    assert combined_hash({"a": "1", "b": "2"}) == combined_hash({"b": "2", "a": "1"})
    path = tmp_path / "f"
    path.write_bytes(b"x")
    assert file_hash(path) == "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"


def test_equal_decimals_hash_alike() -> None:
    assert canonical_json({"a": Decimal("130.00")}) == canonical_json({"a": Decimal("130.0")}) == '{"a":"130"}'
    assert canonical_json([Decimal("1E+2")]) == '["100"]'
    assert content_hash({"a": Decimal("130.01")}) != content_hash({"a": Decimal("130.1")})


def test_a_field_the_schema_gains_with_a_default_does_not_change_a_task_hash() -> None:
    # Adding a field (with a default that keeps today's meaning) must not relock every task.
    (record,) = parse_task_text(TASK, path=Path("a.yaml"))
    task = record.task
    grown = create_model("GrownTask", __base__=type(task), review_notes=(str, ""))
    assert content_hash(grown.model_validate(task.model_dump())) == content_hash(task)
    assert content_hash(grown.model_validate({**task.model_dump(), "review_notes": "x"})) != content_hash(task)
