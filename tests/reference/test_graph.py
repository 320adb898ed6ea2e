from pathlib import Path

import pytest

from pytest_crmbench.core.errors import SpecErrors
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.reference.graph import find_graph, load_graph
from tests.conftest import DATA


def test_mini_graph(mini_env_class: type[ToolEnvironment]) -> None:
    graph = load_graph(DATA / "agents" / "mini.yaml")
    assert graph.node_names() == ["balance", "transfer", "checkout", "admin", "general"]
    assert graph.nodes_exposing("get_balance") == ["balance", "transfer"]
    assert graph.unknown_tools(mini_env_class.tool_names()) == {}
    assert "broken_tool" not in graph.tools()


def write(tmp_path: Path, body: str, name: str = "mini.yaml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


NODES = "nodes:\n  - {name: a, description: d, instruction: i, tools: [t]}\n  - {name: general, description: d, instruction: i}\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "domain: mini\nprompt: p\nnodes:\n  - {name: a, description: d, instruction: i, tools: [t]}\n",
            "tool-free 'general' fallback",
        ),
        (
            "domain: mini\nprompt: p\nnodes:\n  - {name: general, description: d, instruction: i, tools: [t]}\n",
            "tool-free 'general' fallback",
        ),
        (
            "domain: mini\nprompt: p\n" + NODES + "  - {name: a, description: d, instruction: i}\n",
            "node names must be unique: a",
        ),
        (
            "domain: mini\nprompt: p\n" + NODES + "  - {name: unsafe, description: d, instruction: i}\n",
            "reserved router label",
        ),
        (
            "domain: mini\nprompt: p\n" + NODES.replace("instruction: i, tools", "instructions: i, tools"),
            "mini.yaml:4: field 'nodes[0].instructions': unknown field",
        ),
        ("domain: other\nprompt: p\n" + NODES, "does not match the file name"),
        ("- just a list\n", "must be a YAML mapping"),
    ],
)
def test_malformed_graphs(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(SpecErrors, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_graph(write(tmp_path, body))


def test_find_graph(tmp_path: Path) -> None:
    assert find_graph([tmp_path, DATA / "agents"], "mini") == DATA / "agents" / "mini.yaml"
    assert find_graph([tmp_path], "mini") is None


def test_a_graph_is_parsed_once_per_text(tmp_path: Path) -> None:
    """Every episode loads its domain's graph: the same text gives the same (frozen) graph without
    parsing again, an edited file is read anew, and a file's own name is still checked."""
    path = write(tmp_path, "domain: mini\nprompt: first\n" + NODES)
    first = load_graph(path)
    assert load_graph(path) is first
    path.write_text("domain: mini\nprompt: second\n" + NODES)
    assert load_graph(path).prompt == "second"
    path.write_text("domain: mini\nprompt: first\n" + NODES.replace("tools: [t]", "tools: [t"))
    with pytest.raises(SpecErrors, match=r"mini\.yaml"):
        load_graph(path)
    elsewhere = write(tmp_path, "domain: mini\nprompt: first\n" + NODES, name="other.yaml")
    with pytest.raises(SpecErrors, match=r"does not match the file name other\.yaml"):
        load_graph(elsewhere)


def test_the_shared_graph_cannot_be_changed_by_an_episode(tmp_path: Path) -> None:
    """The cached graph is shared by every episode of a process: an in-process agent holding it
    must not be able to add, drop or re-tool a node that the next episode is shown."""
    graph = load_graph(write(tmp_path, "domain: mini\nprompt: first\n" + NODES))
    node = graph.nodes[0]
    with pytest.raises(AttributeError):
        graph.nodes.append(node)  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        node.tools.append("anything")  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        graph.nodes[0] = node  # type: ignore[index]
