"""No module-level mutable state: nothing one session does may change the next in the same process.

Module globals named in lower case are variables; a dict, list or set (a registry, a cache, a
"warm" set), a lock or an imported module held in one is state shared by every pytest session of
the process (pytester runs them in-process) and every thread. Upper-case names are constants.
"""

from __future__ import annotations

import ast
import importlib
import threading
import types

import pytest

from tests.package.test_layers import MODULES

MUTABLE = (dict, list, set, bytearray, types.ModuleType, type(threading.Lock()), type(threading.RLock()))


def imported_names(name: str) -> set[str]:
    """Names the module binds with top-level import statements (modules held by an import are fine)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name.split(".")[0]
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_level_variables_hold_mutable_state(name: str) -> None:
    module = importlib.import_module(name)
    imports = imported_names(name)
    variables = {
        attr
        for attr, value in vars(module).items()
        # "@py_builtins" and "@pytest_ar": pytest's assertion rewriting adds them to modules it
        # rewrites (ours are, under `python -m pytest`, when the repository is on sys.path)
        if not attr.startswith(("__", "@")) and not attr.lstrip("_").isupper() and attr not in imports
        if isinstance(value, MUTABLE) and getattr(value, "__name__", None) != f"{name}.{attr}"  # a submodule
    }
    assert not variables, f"{name} keeps module-level state in {sorted(variables)}"


def test_the_offline_environment_is_undone_when_the_session_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_crmbench.models.llm import OFFLINE_ENVIRONMENT, Transport

    for variable in OFFLINE_ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")  # the user's own choice stays
    transport = Transport()
    transport.litellm()
    import os

    assert os.environ["LITELLM_OFFLINE_MODE"] == "true"
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "False"
    transport.close()
    assert "LITELLM_OFFLINE_MODE" not in os.environ
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "False"
