"""The contract mutation audit: does each contract tell its gold path's wrong variants from its right ones?

Domains describe their policy to it in ``envs/<domain>/mutations.py`` with the names below.
"""

from __future__ import annotations

from pytest_crmbench.release.mutation.hints import Call, ForbiddenMove, Insertion, MutationHints, Situation

__all__ = ["Call", "ForbiddenMove", "Insertion", "MutationHints", "Situation"]
