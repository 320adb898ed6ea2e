"""Find each domain's ToolEnvironment: folders ``<env dir>/<domain>/environment.py``.

A domain folder is imported as the package ``crmbench_envs.<domain>``, so its modules can import
each other relatively (``from .data_model import Account``). Environments can also be registered
programmatically with :func:`register_environment` (handy in tests and third-party suites).
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import types
from collections.abc import Iterable
from pathlib import Path

from pytest_crmbench.core.errors import EnvironmentDefinitionError, UnknownDomainError
from pytest_crmbench.env.environment import ToolEnvironment

PACKAGE = "crmbench_envs"

_registered: dict[str, type[ToolEnvironment]] = {}
_loaded_dirs: dict[Path, dict[str, type[ToolEnvironment]]] = {}


def register_environment(cls: type[ToolEnvironment]) -> type[ToolEnvironment]:
    """Make ``cls`` the environment of ``cls.domain`` in this process. Usable as a decorator."""
    if not cls.domain:
        raise EnvironmentDefinitionError(f"{cls.__name__} must set the class attribute 'domain'")
    _registered[cls.domain] = cls
    return cls


def discover(env_dirs: Iterable[Path]) -> dict[str, type[ToolEnvironment]]:
    """Domain -> environment class, from every env dir (imported once per process) and the registry."""
    found: dict[str, type[ToolEnvironment]] = {}
    for env_dir in env_dirs:
        for domain, cls in _load_dir(env_dir.resolve()).items():
            if domain in found and found[domain] is not cls:
                raise EnvironmentDefinitionError(
                    f"domain {domain!r} is defined twice: {found[domain].__module__} and {cls.__module__}"
                )
            found[domain] = cls
    return {**found, **_registered}


def environment_for(domain: str, environments: dict[str, type[ToolEnvironment]]) -> type[ToolEnvironment]:
    try:
        return environments[domain]
    except KeyError:
        known = ", ".join(sorted(environments)) or "none"
        raise UnknownDomainError(f"no environment for domain {domain!r} (known: {known})") from None


def _load_dir(env_dir: Path) -> dict[str, type[ToolEnvironment]]:
    if env_dir not in _loaded_dirs:
        found = {}
        if env_dir.is_dir():
            for folder in sorted(p for p in env_dir.iterdir() if (p / "environment.py").is_file()):
                found[folder.name] = _load_domain(folder)
        _loaded_dirs[env_dir] = found
    return _loaded_dirs[env_dir]


def _load_domain(folder: Path) -> type[ToolEnvironment]:
    domain = folder.name
    if PACKAGE not in sys.modules:
        root = types.ModuleType(PACKAGE)
        root.__path__ = []
        sys.modules[PACKAGE] = root
    package_name = _package_name(domain, folder)
    if package_name not in sys.modules:
        _import_package(package_name, folder)
    module = importlib.import_module(f"{package_name}.environment")
    # The class may be defined in a sibling module (tools.py) and imported here.
    classes = {
        id(obj): obj
        for obj in vars(module).values()
        if isinstance(obj, type) and issubclass(obj, ToolEnvironment) and obj.domain == domain
    }
    if len(classes) != 1:
        raise EnvironmentDefinitionError(
            f"{folder / 'environment.py'} must expose exactly one ToolEnvironment subclass with domain = {domain!r}, found {len(classes)}"
        )
    (cls,) = classes.values()
    return cls


def _package_name(domain: str, folder: Path) -> str:
    """``crmbench_envs.<domain>``, suffixed when another folder of the same domain was imported
    first in this process (a test suite using pytester projects, say)."""
    for suffix in itertools.count():
        name = f"{PACKAGE}.{domain}" + (f"_{suffix}" if suffix else "")
        existing = sys.modules.get(name)
        if existing is None or list(getattr(existing, "__path__", [])) == [str(folder)]:
            return name
    raise AssertionError("unreachable")


def _import_package(package_name: str, folder: Path) -> None:
    init = folder / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(package_name, init, submodule_search_locations=[str(folder)])
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[package_name] = package
        spec.loader.exec_module(package)
    else:
        package = types.ModuleType(package_name)
        package.__path__ = [str(folder)]
        sys.modules[package_name] = package
