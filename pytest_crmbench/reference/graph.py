"""The reference capability graph of a domain: ``agents/<domain>.yaml`` (spec §A.7).

One node per capability (its router description, instruction and scoped tools) plus exactly one
tool-free ``general`` fallback. The graph-routed reference agent routes each user turn to one node
(or to the reserved ``unsafe`` / ``out_of_scope`` refusals); release gates check that every tool a
task expects or forbids is exposed by some node.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pytest_crmbench.core.errors import SpecError, SpecErrors
from pytest_crmbench.core.loader import parse_yaml, validation_errors
from pytest_crmbench.core.spec import Name

FALLBACK_NODE = "general"
REFUSAL_LABELS = ("unsafe", "out_of_scope")
"""Router labels that end the turn with a deterministic refusal and no tool call."""


class GraphNode(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    description: str = Field(description="One line the router reads to choose this node.")
    instruction: str = Field(description="What the node's agent is told, after the domain prompt.")
    # Tuples, not lists: one parsed graph is shared by every episode of a process (load_graph caches
    # it), so nothing an episode holds may be able to change what the next one is shown.
    tools: tuple[str, ...] = Field(default=(), description="The only tools exposed while this node runs.")


class CapabilityGraph(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    domain: Name
    prompt: str = Field(description="The domain system prompt every node receives.")
    nodes: tuple[GraphNode, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _well_formed(self) -> CapabilityGraph:
        names = [node.name for node in self.nodes]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"node names must be unique: {', '.join(repeated)}")
        reserved = sorted(set(names) & set(REFUSAL_LABELS))
        if reserved:
            raise ValueError(f"{', '.join(reserved)} is a reserved router label, not a node name")
        fallback = [node for node in self.nodes if node.name == FALLBACK_NODE]
        if not fallback or fallback[0].tools:
            raise ValueError(f"a graph needs exactly one tool-free '{FALLBACK_NODE}' fallback node")
        return self

    def node(self, name: str) -> GraphNode:
        return next(node for node in self.nodes if node.name == name)

    def node_names(self) -> list[str]:
        return [node.name for node in self.nodes]

    def tools(self) -> set[str]:
        """The union of every node's tools."""
        return {tool for node in self.nodes for tool in node.tools}

    def nodes_exposing(self, tool: str) -> list[str]:
        return [node.name for node in self.nodes if tool in node.tools]

    def unknown_tools(self, known: Iterable[str]) -> dict[str, list[str]]:
        """Node -> tools it exposes that the environment does not have."""
        available = set(known)
        found = {node.name: [t for t in node.tools if t not in available] for node in self.nodes}
        return {name: tools for name, tools in found.items() if tools}


def load_graph(path: Path, *, display_path: str | None = None) -> CapabilityGraph:
    """Parse and validate ``agents/<domain>.yaml``; errors name the file, line and field."""
    shown = display_path or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecErrors([SpecError(f"cannot read graph file: {exc}", file=shown)]) from None
    return _parsed_graph(text, shown, path.name)


@functools.lru_cache(maxsize=64)
def _parsed_graph(text: str, shown: str, file_name: str) -> CapabilityGraph:
    """Keyed by the file's text: every episode of a run loads its domain's graph, and parsing it
    again each time cost ~1.3 ms of the harness's own CPU per task (payments); an edited file
    parses anew. The graph is frozen, so the episodes can share it."""
    data, root = parse_yaml(text, shown)
    if not isinstance(data, dict) or root is None:
        raise SpecErrors([SpecError("a graph file must be a YAML mapping (domain, prompt, nodes)", file=shown, line=1)])
    try:
        graph = CapabilityGraph.model_validate(data)
    except ValidationError as exc:
        raise SpecErrors(validation_errors(exc, root, shown)) from None
    if graph.domain != Path(file_name).stem:
        raise SpecErrors(
            [
                SpecError(
                    f"domain {graph.domain!r} does not match the file name {file_name}",
                    file=shown,
                    line=1,
                    field="domain",
                )
            ]
        )
    return graph


def find_graph(graph_dirs: Iterable[Path], domain: str) -> Path | None:
    """The first ``<dir>/<domain>.yaml`` that exists."""
    for directory in graph_dirs:
        candidate = directory / f"{domain}.yaml"
        if candidate.is_file():
            return candidate
    return None
