"""The one rule for every ``--crm-*`` option and its ``crm_*`` ini twin: the command line wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.plugin.optiontable import BY_NAME


def option_value(config: pytest.Config, name: str) -> Any:
    """``--crm-x`` if given, else the ini value ``crm_x``, converted by the row's type; None when unset.

    Option ``dest`` and ini name are the same string (see :mod:`~pytest_crmbench.plugin.optiontable`).
    A malformed ini value is a UsageError naming it (command-line values were already typed by
    argparse). Switches and ``bool`` ini values are True or False, never None.
    """
    option = BY_NAME[name]
    given = config.getoption(name, None) if option.flag else None
    if given is not None:
        return given
    if option.ini is None:
        return False if option.switch else None
    raw = config.getini(name)
    if option.ini != "string":
        return raw
    text = str(raw).strip()
    if not text:
        return None
    try:
        return option.type(text)
    except ValueError as exc:
        raise pytest.UsageError(f"ini option {name} = {text!r}: {exc}") from None


def required_value(config: pytest.Config, name: str) -> Any:
    """:func:`option_value` for options whose ini twin has a default, so a value always exists."""
    value = option_value(config, name)
    if value is None:
        raise pytest.UsageError(f"ini option {name} must not be empty")
    return value


def path_value(config: pytest.Config, name: str) -> Path | None:
    """A folder option: ``--crm-x`` relative to where pytest was started, else the ini value
    ``crm_x`` relative to the rootdir (where the ini file is); resolved, None when unset."""
    given = config.getoption(name, None) if BY_NAME[name].flag else None
    if given:
        return (config.invocation_params.dir / str(given)).resolve()
    value = option_value(config, name) if BY_NAME[name].ini is not None else None
    return (config.rootpath / str(value)).resolve() if value else None


def on_command_line(config: pytest.Config, name: str) -> bool:
    """Whether ``--crm-x`` itself was given (not its ini twin)."""
    return BY_NAME[name].flag and config.getoption(name, None) not in (None, "")
