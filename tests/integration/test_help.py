"""``pytest --help`` shows every crmbench option and ini value (issue 12: a ``%`` in a help text crashed it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pytest_crmbench.plugin.optiontable import OPTIONS

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_crmbench"


def test_help_lists_every_option_and_ini_value(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--help")
    assert result.ret == 0, result.stderr.str()
    text = result.stdout.str()
    assert "Error" not in result.stderr.str()
    flags = [option.flag_name for option in OPTIONS if option.flag]
    inis = [option.name for option in OPTIONS if option.ini is not None]
    assert len(flags) >= 27 and len(inis) >= 30
    for flag in flags:
        assert f"  {flag}" in text, f"{flag} missing from pytest --help"
    for name in inis:
        assert f"  {name} " in text, f"ini {name} missing from pytest --help"
    result.stdout.fnmatch_lines(["*--crm-fail-under=FRACTION*", "*(0.80 = 80 %)*"])


def test_percent_signs_are_escaped_only_for_argparse() -> None:
    (fail_under,) = (o for o in OPTIONS if o.name == "crm_fail_under")
    assert "80 %" in fail_under.help
    assert "80 %%" in fail_under.argparse_help


def _calls(path: Path, name: str) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
    )


def test_options_are_declared_only_in_the_table() -> None:
    """One definition each (issue 9): no module but the table adds a --crm-* flag or a crm_* ini value."""
    offenders = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "optiontable.py" and (_calls(path, "addoption") or _calls(path, "addini"))
    }
    assert offenders == set()


def test_every_flag_has_an_ini_twin_except_per_invocation_ones() -> None:
    without_ini = {o.name for o in OPTIONS if o.ini is None}
    assert without_ini == {"crm_resume"}
    names = [o.name for o in OPTIONS]
    assert len(names) == len(set(names))
    assert all(name.startswith("crm_") for name in names)
