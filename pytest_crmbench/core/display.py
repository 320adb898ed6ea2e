"""How messages, manifests and reports name a file: one rule everywhere."""

from __future__ import annotations

from pathlib import Path


def shown(path: Path, base: Path | None = None) -> str:
    """``path`` relative to ``base`` (default: the working directory) when below it, else as given.

    Posix separators, so a message reads the same on every platform and can be pasted into a
    ``pytest`` command line.
    """
    anchor = (base or Path.cwd()).resolve()
    try:
        return path.resolve().relative_to(anchor).as_posix()
    except ValueError:
        return str(path)
