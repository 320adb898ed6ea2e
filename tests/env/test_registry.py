from pathlib import Path

import pytest

from pytest_crmbench.core.errors import EnvironmentDefinitionError, UnknownDomainError
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover, environment_for
from tests.conftest import DATA


def write_domain(root: Path, folder: str, body: str) -> None:
    (root / folder).mkdir(parents=True)
    (root / folder / "environment.py").write_text(body)


def test_discovers_domain_folders_once(mini_env_class: type[ToolEnvironment]) -> None:
    assert discover([DATA / "envs"])["mini"] is mini_env_class
    assert discover([DATA / "envs", DATA / "envs"])["mini"] is mini_env_class


def test_relative_imports_inside_a_domain_folder(tmp_path: Path) -> None:
    write_domain(tmp_path, "relimp", "from .tools import RelEnv\n")
    (tmp_path / "relimp" / "tools.py").write_text(
        "from pytest_crmbench import ToolEnvironment\nclass RelEnv(ToolEnvironment):\n    domain = 'relimp'\n    def default_state(self):\n        return {}\n"
    )
    assert discover([tmp_path])["relimp"].__name__ == "RelEnv"


def test_folder_and_domain_must_agree(tmp_path: Path) -> None:
    write_domain(
        tmp_path,
        "wrongname",
        "from pytest_crmbench import ToolEnvironment\nclass E(ToolEnvironment):\n    domain = 'other'\n",
    )
    with pytest.raises(
        EnvironmentDefinitionError, match="exactly one ToolEnvironment subclass with domain = 'wrongname', found 0"
    ):
        discover([tmp_path])


MINI_TWIN = "from pytest_crmbench import ToolEnvironment\nclass Twin(ToolEnvironment):\n    domain = 'mini'\n    def default_state(self):\n        return {}\n"


def test_same_domain_in_two_folders_of_one_run_is_an_error(tmp_path: Path) -> None:
    write_domain(tmp_path, "mini", MINI_TWIN)
    with pytest.raises(EnvironmentDefinitionError, match="domain 'mini' is defined twice"):
        discover([DATA / "envs", tmp_path])


def test_same_domain_from_another_folder_in_a_later_run_gets_its_own_package(
    tmp_path: Path, mini_env_class: type[ToolEnvironment]
) -> None:
    """A pytester project (or a second suite) may bring its own copy of a domain already imported."""
    write_domain(tmp_path, "mini", MINI_TWIN)
    twin = discover([tmp_path])["mini"]
    assert twin.__name__ == "Twin" and twin.__module__.startswith("crmbench_envs.mini_")
    assert discover([DATA / "envs"])["mini"] is mini_env_class


def test_unknown_domain_lists_the_known_ones(mini_env_class: type[ToolEnvironment]) -> None:
    with pytest.raises(UnknownDomainError, match=r"no environment for domain 'telecom' \(known: mini\)"):
        environment_for("telecom", {"mini": mini_env_class})


def test_missing_env_dir_is_empty(tmp_path: Path) -> None:
    assert discover([tmp_path / "nowhere"]) == {}
