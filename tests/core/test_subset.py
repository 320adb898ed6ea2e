"""core.subset: the seeded, stratified subset behind --crm-sample (issue 32)."""

from __future__ import annotations

from collections import Counter

import pytest

from pytest_crmbench.core.subset import Candidate, allocation, stratified_sample

DOMAINS = {"payments": 73, "retail": 60, "travel": 40, "itsm": 9}


def candidates() -> list[Candidate]:
    out = []
    for domain, size in DOMAINS.items():
        for i in range(size):
            out.append(Candidate(f"{domain}_{i:02d}", domain, ("easy", "medium", "hard")[i % 3]))
    return out


def strata(ids: list[str]) -> Counter[tuple[str, str]]:
    by_id = {c.task_id: (c.domain, c.difficulty) for c in candidates()}
    return Counter(by_id[i] for i in ids)


def test_same_seed_same_tasks_another_seed_others() -> None:
    first = stratified_sample(candidates(), 20, seed=0)
    assert first == stratified_sample(list(reversed(candidates())), 20, seed=0)  # the selection's order is no input
    assert len(first) == 20 == len(set(first))
    assert stratified_sample(candidates(), 20, seed=1) != first


def test_every_stratum_is_represented_when_n_allows_and_the_rest_is_proportional() -> None:
    chosen = stratified_sample(candidates(), 20, seed=0)
    counts = strata(chosen)
    assert len(counts) == 12  # 4 domains x 3 difficulties, one each at least
    by_domain = Counter(domain for domain, _ in counts.elements())
    assert by_domain["payments"] >= by_domain["retail"] >= by_domain["travel"] >= by_domain["itsm"] >= 3
    sizes = Counter((c.domain, c.difficulty) for c in candidates())
    allocated = allocation(dict(sizes), 60, seed=0)
    assert sum(allocated.values()) == 60
    for key, size in sizes.items():  # within one of the exact proportional share
        assert abs(allocated[key] - 60 * size / sum(sizes.values())) < 1 + 1e-9


def test_fewer_than_the_strata_takes_the_largest_strata_one_task_each() -> None:
    chosen = stratified_sample(candidates(), 3, seed=0)
    counts = strata(chosen)
    assert len(chosen) == 3 and set(counts.values()) == {1}
    assert {domain for domain, _ in counts} == {"payments"}  # its three strata are the largest


@pytest.mark.parametrize("n", [182, 500])
def test_n_at_least_the_selection_keeps_everything(n: int) -> None:
    assert stratified_sample(candidates(), n, seed=0) == sorted(c.task_id for c in candidates())
