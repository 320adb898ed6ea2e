"""A ``package.module:factory`` agent name, resolved: the seam every agent that is not crmbench's
own comes through, in pytest's process (``--crm-agent-inprocess``, the reference catalog) and in
an isolated agent's own (:mod:`.isolation`)."""

from __future__ import annotations

import importlib

from pytest_crmbench.core.errors import AgentConfigError
from pytest_crmbench.run.episode import AgentFactory


def import_factory(name: str, known: str = "") -> AgentFactory:
    """The callable ``name`` (``package.module:factory``) names; ``known``: the other names the
    caller accepts, for the error message."""
    module_name, sep, attr = name.partition(":")
    if not sep or not module_name or not attr:
        raise AgentConfigError(
            f"unknown agent {name!r}: use {'one of ' + known + ' or ' if known else ''}'package.module:factory'"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentConfigError(
            f"agent {name!r}: cannot import {module_name!r}: {exc}{_import_hint(module_name, exc)}"
        ) from exc
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise AgentConfigError(f"agent {name!r}: {module_name!r} has no callable {attr!r}")
    return factory  # type: ignore[no-any-return]


def _import_hint(module_name: str, exc: ImportError) -> str:
    """Why a user's own module is not found: usually its folder is not on ``sys.path``."""
    missing = getattr(exc, "name", None)
    if not isinstance(missing, str) or not (module_name == missing or module_name.startswith(missing + ".")):
        return ""  # the module was found; something it imports is missing
    return (
        f" (the folder that contains {missing.split('.')[0]!r} must be on sys.path: run with PYTHONPATH=<that"
        ' folder>, or add pythonpath = ["."] under [tool.pytest] in the pyproject.toml of the rootdir)'
    )
