"""Maximum cardinality matching in a general graph (Edmonds' blossom algorithm).

The Swiss pairing's safety net: when its ordered search cannot finish quickly, this finds the
largest set of pairs that are not rematches in O(V^3), so "no rematch while one can be avoided"
holds for any field, and the fewest rematches are played when some cannot be avoided.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


def max_matching(adjacency: Sequence[Sequence[int]]) -> list[int]:
    """``mate[v]``: the vertex matched with ``v``, or -1; a maximum matching.

    ``adjacency[v]`` lists the neighbours of ``v`` (vertices 0..n-1, an undirected graph).
    """
    n = len(adjacency)
    mate = [-1] * n
    # A greedy start: most vertices are matched before any augmenting search.
    for v in range(n):
        if mate[v] == -1:
            for u in adjacency[v]:
                if mate[u] == -1 and u != v:
                    mate[v], mate[u] = u, v
                    break
    for root in range(n):
        if mate[root] == -1:
            _augment_from(root, adjacency, mate)
    return mate


def _augment_from(root: int, adjacency: Sequence[Sequence[int]], mate: list[int]) -> bool:
    n = len(adjacency)
    parent = [-1] * n
    base = list(range(n))
    used = [False] * n
    used[root] = True
    queue: deque[int] = deque([root])

    def lca(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark_path(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.popleft()
        for u in adjacency[v]:
            if base[v] == base[u] or mate[v] == u:
                continue
            if u == root or (mate[u] != -1 and parent[mate[u]] != -1):
                # An odd cycle: shrink the blossom into its base.
                current = lca(v, u)
                blossom = [False] * n
                mark_path(v, current, u, blossom)
                mark_path(u, current, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = current
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[u] == -1:
                parent[u] = v
                if mate[u] == -1:
                    # An augmenting path: flip it.
                    while u != -1:
                        pv = parent[u]
                        ppv = mate[pv]
                        mate[u], mate[pv] = pv, u
                        u = ppv
                    return True
                used[mate[u]] = True
                queue.append(mate[u])
    return False


__all__ = ["max_matching"]
