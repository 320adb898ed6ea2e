"""The reference scaffolds: ``graph`` (routed, spec §A.7) and ``flat`` (all tools, one loop)."""

from __future__ import annotations

from pytest_crmbench.reference.flat_agent import FlatAgent
from pytest_crmbench.reference.graph_agent import GraphAgent, load_reference

__all__ = ["FlatAgent", "GraphAgent", "load_reference"]
