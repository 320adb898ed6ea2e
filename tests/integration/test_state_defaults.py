"""The gate and pytest agree on a state model whose defaults are not in canonical form (issue 25).

``credit: Money = Field(default=0, ge=0)`` once reset to the int ``0``: ``crmbench validate --gold``
passed, then ``pytest`` with ``filterwarnings = error`` failed on pydantic's serializer warning.
Defaults are validated like every other value, so both see ``Decimal("0.00")`` and both pass.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.exitcodes import ExitCode
from tests.integration.helpers import DATA, CrmProject, replace_once


def _with_uncanonical_default(project: CrmProject) -> Path:
    environment = project.path / "envs" / "mini" / "environment.py"
    text = environment.read_text(encoding="utf-8")
    text = replace_once(
        text,
        "    loyalty_points: int = Field(ge=0)\n",
        "    loyalty_points: int = Field(ge=0)\n    credit: Money = Field(default=0, ge=0)\n",
    )
    environment.write_text(text, encoding="utf-8")
    return environment


def test_the_gate_and_pytest_agree_on_an_unvalidated_default(mini_project: CrmProject) -> None:
    _with_uncanonical_default(mini_project)
    mini_project.write_config('filterwarnings = ["error"]\n')
    shutil.copyfile(DATA / "release" / "manifest.yaml", mini_project.tasks / "manifest.yaml")
    content = ["--tasks", str(mini_project.tasks), "--envs", str(mini_project.path / "envs")]
    gate = main(
        ["validate", "--write-lock", "--fuzz-examples=0", "--no-cache", *content, "--agents", str(DATA / "agents")]
    )
    result = mini_project.run_subprocess("tasks/mini.yaml", "-p", "no:randomly")
    assert gate == ExitCode.OK
    assert result.ret == ExitCode.OK, result.stdout.str()[-2000:]


def test_a_default_is_stored_in_canonical_form(mini_project: CrmProject) -> None:
    import importlib.util
    import sys
    from decimal import Decimal

    path = _with_uncanonical_default(mini_project)
    spec = importlib.util.spec_from_file_location("mini_defaults_probe", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        account = module.Account.model_validate({"owner": "o", "status": "active", "balance": 1, "loyalty_points": 0})
    finally:
        del sys.modules[spec.name]
    assert account.credit == Decimal("0.00")
    assert isinstance(account.credit, Decimal)
