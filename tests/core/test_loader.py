import time
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_crmbench.core import loader
from pytest_crmbench.core.errors import SpecErrors
from pytest_crmbench.core.loader import (
    format_loc,
    line_of,
    line_tree,
    load_task_file,
    load_task_files,
    parse_task_text,
)
from tests.conftest import DATA


def errors_of(name: str) -> list[str]:
    with pytest.raises(SpecErrors) as excinfo:
        load_task_file(DATA / "bad" / name, display_path=f"tasks/{name}")
    return [e.render() for e in excinfo.value.errors]


def test_mini_file_loads_with_record_lines(mini_records: list) -> None:
    assert [r.task.id for r in mini_records][:2] == ["mini_transfer_retry_01", "mini_checkout_chain_01"]
    assert mini_records[0].line == 2  # the comment takes line 1
    text = (DATA / "tasks" / "mini.yaml").read_text().splitlines()
    for record in mini_records:
        assert text[record.line - 1].startswith(f"- id: {record.task.id}")


def test_unknown_field_names_file_line_task_and_field() -> None:
    assert errors_of("unknown_field.yaml") == [
        "tasks/unknown_field.yaml:8: task 'mini_typo_01': field 'contract.expected_stat': unknown field (check the spelling; see `crmbench schema`)"
    ]


def test_all_problems_of_a_file_are_reported_together() -> None:
    errors = errors_of("bad_operator.yaml")
    assert len(errors) == 2
    assert errors[0].startswith(
        "tasks/bad_operator.yaml:11: task 'mini_operator_01': field 'difficulty': Input should be 'easy', 'medium' or 'hard'"
    )
    assert (
        errors[1]
        == "tasks/bad_operator.yaml:17: task 'mini_operator_01': field 'contract.expected_params[0].args.account_id': unknown operator '$startswith'; known: $eq, $one_of, $contains, $gte, $lte, $non_empty, $min_length, $max_length, $length, $instant, $result"
    )


def test_missing_field_points_at_the_parent_mapping() -> None:
    assert errors_of("missing_field.yaml") == [
        "tasks/missing_field.yaml:6: task 'mini_nostop_01': field 'user.stop': Field required"
    ]


def test_invalid_yaml_names_the_line() -> None:
    (error,) = errors_of("invalid_yaml.yaml")
    assert error.startswith("tasks/invalid_yaml.yaml:3: invalid YAML: while parsing a flow sequence")
    assert error.endswith("(at line 4)")


def test_a_mapping_is_not_a_task_file() -> None:
    assert errors_of("not_a_list.yaml") == ["tasks/not_a_list.yaml:1: a task file must be a YAML list of task records"]


def test_duplicate_ids_are_named_with_the_first_line() -> None:
    assert errors_of("duplicate_id.yaml") == [
        "tasks/duplicate_id.yaml:8: task 'mini_same_01': field 'id': duplicate task id (first defined at line 1)"
    ]


def test_a_record_that_is_not_a_mapping() -> None:
    with pytest.raises(SpecErrors, match=r"x.yaml:1: a task record must be a mapping"):
        parse_task_text("- just a string\n", path=Path("x.yaml"))


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    # Once silently ignored: a task set could lose a whole file without a word (issue 26 §3).
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing yet\n")
    with pytest.raises(SpecErrors, match="a task file holds no tasks"):
        load_task_file(empty)


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(SpecErrors, match="cannot read task file"):
        load_task_file(tmp_path / "missing.yaml")


def test_format_loc() -> None:
    assert format_loc(("contract", "expected_params", 0, "tool")) == "contract.expected_params[0].tool"
    assert format_loc((0,)) == "[0]"


def test_yaml_decimals_are_exact() -> None:
    text = "- id: d_x_01\n  domain: d\n  capabilities: [x]\n  difficulty: easy\n  user: {persona: p, goal: g, stop: s}\n  contract: {expected_state: {a: 130.00, b: 0.1, c: 7}}\n  gold: {reply: r}\n"
    (record,) = parse_task_text(text, path=Path("d.yaml"))
    state = record.task.contract.expected_state
    assert state == {"a": Decimal("130.00"), "b": Decimal("0.1"), "c": 7}
    assert str(state["a"]) == "130.00"  # diffs show what the author wrote


# -- bad input that used to hang, exhaust memory or crash (issue 11 items 4, 12, 13) -------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "alias_bomb_state.yaml",
            "tasks/alias_bomb_state.yaml:14: invalid YAML: aliases expand to 490,329,092 nodes (limit 10,560 for this file): an alias bomb?",
        ),
        (
            "alias_bomb_initial.yaml",
            "tasks/alias_bomb_initial.yaml:12: invalid YAML: aliases expand to 490,329,093 nodes (limit 10,570 for this file): an alias bomb?",
        ),
        (
            "recursive_alias.yaml",
            "tasks/recursive_alias.yaml:7: invalid YAML: an alias refers to the node that contains it",
        ),
        ("huge_number.yaml", "tasks/huge_number.yaml:9: invalid YAML: a number may have at most 100 digits"),
        (
            "nan_operand.yaml",
            "tasks/nan_operand.yaml:8: task 'mini_nan_01': field 'contract.expected_state.accounts.ACC-1.balance': "
            "NaN is not a value (it equals nothing, and no number is above or below it)",
        ),
        (
            "empty_contract.yaml",
            "tasks/empty_contract.yaml:7: task 'mini_empty_01': field 'contract': "
            "a contract must declare at least one check (an empty contract would pass any agent)",
        ),
        (
            "huge_list_index.yaml",
            "tasks/huge_list_index.yaml:10: task 'mini_index_01': field 'contract.expected_state.transfers."
            + "9" * 50
            + "... (5,010 characters)': a state path may have at most 16 segments and 300 characters"
            " (this one: 2 segments, 5010 characters)",
        ),
    ],
)
def test_hostile_input_is_refused_at_load_with_its_line(name: str, expected: str) -> None:
    assert errors_of(name) == [expected]


TASK_HEAD = "- id: d_x_01\n  domain: d\n  capabilities: [x]\n  difficulty: easy\n  user: {persona: p, goal: g, stop: s}\n  gold: {reply: r}\n"


def test_a_path_of_a_hundred_thousand_segments_is_refused_quickly() -> None:
    path = ".".join(["a"] * 100_000)
    text = TASK_HEAD + f"  contract:\n    expected_state:\n      ? {path}\n      : 1\n"
    started = time.perf_counter()
    with pytest.raises(SpecErrors, match=r"d.yaml:10: .*a state path may have at most 16 segments"):
        parse_task_text(text, path=Path("d.yaml"))
    assert time.perf_counter() - started < 2


def test_a_ten_digit_list_index_is_refused() -> None:
    text = TASK_HEAD + "  contract:\n    expected_state:\n      transfers.1234567890: 1\n"
    with pytest.raises(SpecErrors, match=r"list index 1234567890... has more than 9 digits"):
        parse_task_text(text, path=Path("d.yaml"))


def test_deep_nesting_is_refused_without_a_recursion_error() -> None:
    text = TASK_HEAD + "  contract: {expected_actions: [a]}\n  initial_state: {x: " + "[" * 900 + "]" * 900 + "}\n"
    with pytest.raises(SpecErrors, match=r"d.yaml:\d+: invalid YAML: nested deeper than 64 levels"):
        parse_task_text(text, path=Path("d.yaml"))


def _shared_documents() -> st.SearchStrategy[object]:
    """Nested lists and maps whose parts may be one object used several times (dumped as anchors
    and aliases), some of them deeper than the limit, some of them containing themselves."""
    leaves = st.one_of(st.integers(0, 9), st.sampled_from(["a", "b", ""]))

    def grow(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
        shared = st.lists(children, min_size=1, max_size=3).map(lambda parts: [parts[0]] * 4 + parts)
        return st.one_of(
            st.lists(children, max_size=4), st.dictionaries(st.text("kv", max_size=2), children, max_size=3), shared
        )

    return st.recursive(leaves, grow, max_leaves=40)


def _verdict(check: object, root: yaml.Node) -> str:
    try:
        check(root, "d.yaml")  # type: ignore[operator]
    except SpecErrors as exc:
        return "\n".join(e.render() for e in exc.errors)
    return "ok"


@settings(max_examples=150, deadline=None, derandomize=True)
@given(document=_shared_documents(), depth=st.integers(0, 70), loop=st.booleans())
def test_the_tree_fast_path_gives_the_full_checks_verdict(document: object, depth: int, loop: bool) -> None:
    # _check_shape skips the size-and-depth walk for a plain tree (nearly every task file): on any
    # document (aliases, self-reference, nesting around the limit) its verdict is the full walk's.
    for _ in range(depth):
        document = [document]
    if loop:
        cycle: list[object] = [document]
        cycle.append(cycle)
        document = cycle
    text = yaml.safe_dump(document)
    root = loader._Loader(text).get_single_node()
    assert root is not None
    assert _verdict(loader._check_shape, root) == _verdict(loader._check_aliases_and_depth, root)


def test_an_alias_fanned_out_as_scalars_is_still_a_bomb() -> None:
    # No collection is shared, only one scalar, a hundred thousand times: not a tree.
    text = "a: &x v\nb: [" + ", ".join(["*x"] * 100_000) + "]\n"
    root = loader._Loader(text).get_single_node()
    assert not loader._is_shallow_tree(root)
    with pytest.raises(SpecErrors, match="an alias bomb"):
        loader._check_shape(root, "d.yaml")


def test_huge_exponents_are_refused_but_ordinary_floats_stay_exact() -> None:
    text = TASK_HEAD + "  contract:\n    expected_state: {a: 1.0E+999999}\n"
    with pytest.raises(SpecErrors, match=r"d.yaml:8: invalid YAML: a number's exponent must stay within \+/-1000"):
        parse_task_text(text, path=Path("d.yaml"))
    (record,) = parse_task_text(TASK_HEAD + "  contract:\n    expected_state: {a: 1.5e+3}\n", path=Path("d.yaml"))
    assert record.task.contract.expected_state["a"] == Decimal("1500")


def test_reusing_a_block_a_few_times_is_fine() -> None:
    text = (
        TASK_HEAD
        + "  initial_state:\n    a: &acct {status: active, balance: 1}\n    b: *acct\n    c: *acct\n"
        + "  contract: {expected_actions: [a]}\n"
    )
    (record,) = parse_task_text(text, path=Path("d.yaml"))
    assert record.task.initial_state["c"] == {"status": "active", "balance": 1}


def test_mutation_audit_fields_name_file_line_task_and_field() -> None:
    assert errors_of("bad_mutation_fields.yaml") == [
        "tasks/bad_mutation_fields.yaml:12: task 'mini_audit_fields_01': field 'alternatives[0].reason': String should match pattern '\\S'",
        "tasks/bad_mutation_fields.yaml:15: task 'mini_audit_fields_01': field 'counterexamples[0]': path[0].args.text: $from must name an earlier step (there is none before the first step)",
        "tasks/bad_mutation_fields.yaml:20: task 'mini_audit_fields_01': field 'mutation_waivers': 'skip_identity' is waived twice",
    ]


def test_every_field_keeps_its_line_after_the_yaml_tree_is_dropped() -> None:
    """A record keeps only the lines of its fields (``line_tree``), not the composed YAML."""
    text = """\
- &base
  id: a
  empty:
  list:
    - x
    -
      deep: 1
- other: *base
  dup: 1
  dup: 2
"""
    root = yaml.compose(text)
    assert root is not None
    tree = line_tree(root)
    first = (0,)
    assert line_of(tree, ()) == 1
    assert line_of(tree, (*first, "id")) == 2
    assert line_of(tree, (*first, "empty")) == 3  # an empty value points at its key
    assert line_of(tree, (*first, "list", 1, "deep")) == 7
    assert line_of(tree, (*first, "list", 9)) == 5  # past the end: the deepest node found (the list)
    assert line_of(tree, (*first, "list", -1)) == 5  # no counting from the end
    assert line_of(tree, (1, "other", "id")) == 2  # through the alias, to where it is written
    assert line_of(tree, (1, "dup")) == 10  # the last of duplicate keys, as the document reads
    assert tree[1] is not None and tree[1][1][1]["other"] is tree[1][0]  # type: ignore[index]  # shared


def test_a_task_set_reads_every_file_and_refuses_an_id_taken_by_an_earlier_file(tmp_path: Path) -> None:
    text = (DATA / "tasks" / "mini.yaml").read_text()
    first = tmp_path / "a.yaml"
    first.write_text("- id: " + text.split("\n- id: ")[3])
    (tmp_path / "b.yaml").write_text(text)
    (tmp_path / "c.yaml").write_text("- id: [not, a, string]\n")
    loaded = load_task_files(sorted(tmp_path.glob("*.yaml")), lambda path: path.name)
    ids = [record.task.id for record in loaded.records]
    assert len(ids) == len(set(ids)) == 6 and ids[0] == "mini_balance_only_01"  # b's copy is left out
    rendered = [problem.render() for problem in loaded.problems]
    assert rendered[0] == (
        "b.yaml:66: task 'mini_balance_only_01': field 'id': duplicate task id (first defined at a.yaml:1)"
    )
    assert len(rendered) > 1 and all(line.startswith("c.yaml:1") for line in rendered[1:])  # a broken file hides none
    with pytest.raises(SpecErrors):
        loaded.raise_problems()
