"""Board graphs: CSR tables, BFS, fortify reachability, components (kernels/graph.py)."""
from collections import deque

import numpy as np
import pytest

from lotr_sim.kernels.graph import (bfs_distances, bfs_from, build_csr, connected_components,
                                    reachable, reachable_nb)

# a hand graph: path 0-1-2-3, a triangle 4-5-6, an isolated node 7
EDGES = [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (6, 4)]


def _py_bfs(n, adj, sources, allowed=None):
    dist = [-1] * n
    q = deque()
    for s in sources:
        if allowed is None or allowed[s]:
            dist[s] = 0
            q.append(s)
    while q:
        x = q.popleft()
        for y in adj[x]:
            if dist[y] < 0 and (allowed is None or allowed[y]):
                dist[y] = dist[x] + 1
                q.append(y)
    return dist


def _adj(n, edges):
    adj = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    return adj


def test_csr_tables():
    g = build_csr(8, EDGES, kinds=[1, 2, 3, 4, 5, 6])
    assert g.n == 8
    assert g.indptr.tolist() == [0, 1, 3, 5, 6, 8, 10, 12, 12]
    assert g.neighbours(1).tolist() == [0, 2] and g.neighbours(4).tolist() == [5, 6]
    assert g.neighbours(7).tolist() == []
    # kinds follow their edge in both directions
    assert g.kinds[g.indptr[1]: g.indptr[2]].tolist() == [1, 2]
    assert g.kinds[g.indptr[6]: g.indptr[7]].tolist() == [6, 5]
    assert g.indptr.dtype == g.indices.dtype == g.kinds.dtype == np.int64


def test_csr_blocked_and_directed():
    g = build_csr(4, [(0, 1), (1, 2), (2, 3)], blocked=[False, True, False])
    assert g.neighbours(1).tolist() == [0] and g.neighbours(2).tolist() == [3]
    d = build_csr(3, [(0, 1), (1, 2)], directed=True)
    assert d.neighbours(0).tolist() == [1] and d.neighbours(1).tolist() == [2] and d.neighbours(2).tolist() == []
    assert bfs_distances(d)[2].tolist() == [-1, -1, 0]


@pytest.mark.parametrize("edges, msg", [([(0, 4)], "outside"), ([(-1, 0)], "outside"),
                                        ([(1, 1)], "self-loop"), ([(0, 1), (1, 0)], "twice")])
def test_csr_refuses_bad_edges(edges, msg):
    with pytest.raises(ValueError, match=msg):
        build_csr(4, edges)
    with pytest.raises(ValueError, match="one entry per edge"):
        build_csr(4, [(0, 1)], kinds=[1, 2])


def test_bfs_on_hand_graph():
    d = bfs_distances(build_csr(8, EDGES))
    assert d[0].tolist() == [0, 1, 2, 3, -1, -1, -1, -1]
    assert d[5].tolist() == [-1, -1, -1, -1, 1, 0, 1, -1]
    assert d[7].tolist() == [-1] * 7 + [0]
    assert (d == d.T).all()
    assert bfs_from(build_csr(8, EDGES), [0, 3]).tolist() == [0, 1, 1, 0, -1, -1, -1, -1]
    assert bfs_distances(build_csr(0, [])).shape == (0, 0)


def test_reachable_fortify_rule():
    g = build_csr(8, EDGES)
    owner = np.array([0, 0, 1, 0, 1, 1, 0, 1])
    assert np.flatnonzero(reachable(g, owner, 0, 0)).tolist() == [0, 1]      # 2 is the enemy's
    assert np.flatnonzero(reachable(g, owner, 0, 3)).tolist() == [3]
    assert np.flatnonzero(reachable(g, owner, 1, 4)).tolist() == [4, 5]
    assert not reachable(g, owner, 1, 0).any()                               # start not owned
    mask = np.full(8, 9, dtype=np.int64)
    assert reachable_nb(g.indptr, g.indices, owner, 1, 5, mask) == 2
    assert mask.tolist() == [0, 0, 0, 0, 1, 1, 0, 0]


def test_components_on_hand_graph():
    k, lab = connected_components(build_csr(8, EDGES))
    assert k == 3 and lab.tolist() == [0, 0, 0, 0, 1, 1, 1, 2]
    # labels numbered by the lowest node even when edges arrive "backwards"
    k, lab = connected_components(build_csr(6, [(5, 0), (4, 1), (3, 4)]))
    assert k == 3 and lab.tolist() == [0, 1, 2, 1, 1, 0]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_graphs_against_pure_python(seed):
    rng = np.random.default_rng(seed)
    n = 42
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.06]
    g = build_csr(n, pairs)
    adj = _adj(n, pairs)
    d = bfs_distances(g)
    for a in range(n):
        assert d[a].tolist() == _py_bfs(n, adj, [a])
    k, lab = connected_components(g)
    seen = {}
    for v in range(n):
        root = min(x for x in range(n) if d[v, x] >= 0)
        seen.setdefault(root, len(seen))
        assert lab[v] == seen[root]
    assert k == len(seen) and 1 < k < n      # the test graphs have several components
    owner = rng.integers(0, 3, n)
    for start in range(n):
        side = owner[start]
        want = np.array(_py_bfs(n, adj, [start], allowed=owner == side)) >= 0
        assert (reachable(g, owner, side, start) == want).all()
