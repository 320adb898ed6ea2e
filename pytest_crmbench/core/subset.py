"""A seeded subset of tasks, stratified by domain and difficulty (``--crm-sample=N``, issue 32).

A smoke run of an expensive model should look like the whole set, in small: every domain and
difficulty, in proportion. The selected tasks fall into strata (domain, difficulty); each
non-empty stratum gets at least one task when N allows, the rest is shared in proportion to the
strata's sizes (largest remainders), and within a stratum the tasks are drawn with a generator
seeded from (seed, domain, difficulty). The same seed and the same selection give the same
subset, in any process (string seeds are hashed with SHA-512, not Python's salted hash).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pytest_crmbench.core.spec import DIFFICULTIES


@dataclass(frozen=True)
class Candidate:
    task_id: str
    domain: str
    difficulty: str


def _order(key: tuple[str, str]) -> tuple[str, int, str]:
    domain, difficulty = key
    rank = DIFFICULTIES.index(difficulty) if difficulty in DIFFICULTIES else len(DIFFICULTIES)
    return domain, rank, difficulty


def allocation(sizes: dict[tuple[str, str], int], n: int, seed: int) -> dict[tuple[str, str], int]:
    """How many tasks each stratum gives: proportional (largest remainders), at least one each when
    ``n`` is at least the number of strata; fewer strata than that otherwise (the largest first,
    ties broken by a seeded draw)."""
    total = sum(sizes.values())
    keys = sorted(sizes, key=_order)
    if n >= total:
        return dict(sizes)
    if n < len(keys):
        shuffled = keys[:]
        random.Random(f"crmbench-sample:{seed}:strata").shuffle(shuffled)
        chosen = sorted(shuffled, key=lambda k: -sizes[k])[:n]  # stable: ties keep the seeded order
        return {k: 1 if k in chosen else 0 for k in keys}
    quota = {k: Fraction(n * sizes[k], total) for k in keys}
    counts = {k: max(1, min(sizes[k], int(quota[k]))) for k in keys}
    while sum(counts.values()) > n:  # the minimum of one pushed it over: take from the most over quota
        over = max((k for k in keys if counts[k] > 1), key=lambda k: (counts[k] - quota[k], sizes[k]))
        counts[over] -= 1
    while sum(counts.values()) < n:  # the largest remainders
        under = max((k for k in keys if counts[k] < sizes[k]), key=lambda k: (quota[k] - counts[k], sizes[k]))
        counts[under] += 1
    return counts


def stratified_sample(candidates: Iterable[Candidate], n: int, seed: int) -> list[str]:
    """The ids of ``n`` of the candidates (all of them when there are no more), sorted."""
    strata: dict[tuple[str, str], list[str]] = {}
    for candidate in candidates:
        members = strata.setdefault((candidate.domain, candidate.difficulty), [])
        if candidate.task_id not in members:
            members.append(candidate.task_id)
    counts = allocation({k: len(v) for k, v in strata.items()}, n, seed)
    chosen: list[str] = []
    for key, members in strata.items():
        draw = random.Random(f"crmbench-sample:{seed}:{key[0]}:{key[1]}")
        chosen.extend(draw.sample(sorted(members), counts[key]))
    return sorted(chosen)


def describe(sample: Sequence[str], of: int, n: int, seed: int) -> str:
    return (
        f"--crm-sample={n}: {len(sample)} of {of} selected task(s), stratified by domain and difficulty (seed {seed})"
    )
