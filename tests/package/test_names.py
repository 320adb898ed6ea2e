"""One name, one thing (issue 25): no two modules of the package share a file name, and no test
module sits at the root of tests/ (each is under the layer whose module it tests)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_crmbench"
TESTS = Path(__file__).resolve().parents[1]
ROOT_HELPERS = {"__init__.py", "conftest.py"}


def shared_basenames(package: Path) -> dict[str, list[str]]:
    """Each module file name (``__init__.py`` aside) used by more than one module, and where."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(package.rglob("*.py")):
        if path.name != "__init__.py" and "__pycache__" not in path.parts:
            where[path.name].append(str(path.relative_to(package)))
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def test_no_two_modules_share_a_name() -> None:
    assert shared_basenames(PACKAGE) == {}


def test_the_check_sees_two_modules_of_one_name(tmp_path: Path) -> None:
    for layer in ("core", "env"):
        (tmp_path / layer).mkdir()
        (tmp_path / layer / "state.py").write_text("", encoding="utf-8")
    (tmp_path / "core" / "__init__.py").write_text("", encoding="utf-8")
    assert shared_basenames(tmp_path) == {"state.py": ["core/state.py", "env/state.py"]}


def test_no_test_module_at_the_root_of_tests() -> None:
    # Helpers shared by several layers' tests may live here; a test module may not.
    assert [p.name for p in TESTS.glob("test_*.py")] == []
    assert all(p.name in ROOT_HELPERS or not p.name.startswith("test") for p in TESTS.glob("*.py"))
