"""Edmonds' blossom matching against brute force on small graphs (hypothesis)."""

import itertools

from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats.matching import max_matching


@st.composite
def graphs(draw):
    n = draw(st.integers(min_value=0, max_value=9))
    pairs = list(itertools.combinations(range(n), 2))
    edges = draw(st.sets(st.sampled_from(pairs))) if pairs else set()
    adjacency = [[] for _ in range(n)]
    for a, b in edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    return adjacency, edges


def brute_force(n, edges):
    best = 0

    def search(i, used, size):
        nonlocal best
        best = max(best, size)
        for a, b in edges:
            if a >= i and a not in used and b not in used:
                search(a + 1, used | {a, b}, size + 1)

    search(0, frozenset(), 0)
    return best


@given(graphs())
def test_the_matching_is_valid_and_maximum(graph):
    adjacency, edges = graph
    mate = max_matching(adjacency)
    pairs = {(v, m) for v, m in enumerate(mate) if m != -1 and v < m}
    assert all(mate[m] == v for v, m in enumerate(mate) if m != -1)
    assert all((a, b) in edges for a, b in pairs)
    assert len(pairs) == brute_force(len(adjacency), sorted(edges))


def test_an_odd_cycle_with_a_tail_needs_a_blossom():
    # Triangle 0-1-2 with tails 2-3 and 0-4: a greedy start can block the perfect answer.
    adjacency = [[1, 2, 4], [0, 2], [0, 1, 3], [2], [0], []]
    mate = max_matching(adjacency)
    assert sum(m != -1 for m in mate) == 4
