"""Board graphs: CSR neighbour tables and the searches every map game needs.

``build_csr`` (Python/NumPy, at config-compile time) turns an edge list, an optional edge
kind per edge (road, river, sea lane, wall...) and an optional mask of blocked edges into
CSR tables: the neighbours of node ``v`` are ``indices[indptr[v]:indptr[v + 1]]`` (sorted),
with ``kinds`` alongside. The kernels take ``indptr``/``indices`` and never allocate
(``_nrt=False``), so an engine can call them from its own NRT-free kernels:

* ``bfs_from_nb``            multi-source BFS distances (distance to a board edge, to the city);
* ``bfs_distances_nb``       all-pairs distances, ``-1`` for unreachable (bombard ranges);
* ``reachable_nb``           nodes reachable from ``start`` through nodes owned by ``side``
                             (the Risk fortify rule);
* ``connected_components_nb`` component labels.

The Python wrappers ``bfs_distances``, ``reachable`` and ``connected_components`` allocate
the outputs.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from lotr_sim._numba.jit import njit


class CSR(NamedTuple):
    """Neighbour tables: ``indices[indptr[v]:indptr[v+1]]`` are the neighbours of ``v``."""
    indptr: np.ndarray   # int64[n + 1]
    indices: np.ndarray  # int64[nnz]
    kinds: np.ndarray    # int64[nnz], the kind of the edge to each neighbour

    @property
    def n(self) -> int:
        return int(self.indptr.shape[0] - 1)

    def neighbours(self, v: int) -> np.ndarray:
        return self.indices[self.indptr[v]: self.indptr[v + 1]]


def build_csr(n: int, edges, kinds=None, blocked=None, directed: bool = False) -> CSR:
    """CSR tables of a graph on nodes ``0 .. n-1``.

    ``edges``: ``(m, 2)`` node pairs; ``kinds``: ``(m,)`` int edge kinds (default 0);
    ``blocked``: ``(m,)`` bool, edges left out. Undirected unless ``directed`` (each edge
    then lists ``b`` as a neighbour of ``a`` only). Neighbours are sorted by node id.
    Raises ValueError on a node out of range, a self-loop or an edge listed twice.
    """
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    m = e.shape[0]
    k = np.zeros(m, dtype=np.int64) if kinds is None else np.asarray(kinds, dtype=np.int64)
    b = np.zeros(m, dtype=bool) if blocked is None else np.asarray(blocked, dtype=bool)
    if k.shape != (m,) or b.shape != (m,):
        raise ValueError(f"kinds and blocked must have one entry per edge ({m})")
    if m and (e.min() < 0 or e.max() >= n):
        bad = e[(e < 0).any(axis=1) | (e >= n).any(axis=1)][0]
        raise ValueError(f"edge {tuple(int(x) for x in bad)} has a node outside 0..{n - 1}")
    if m and (e[:, 0] == e[:, 1]).any():
        v = int(e[e[:, 0] == e[:, 1]][0, 0])
        raise ValueError(f"self-loop at node {v}")
    keep = ~b
    src, dst, kk = e[keep, 0], e[keep, 1], k[keep]
    if not directed:
        src, dst, kk = np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([kk, kk])
    order = np.lexsort((dst, src))
    src, dst, kk = src[order], dst[order], kk[order]
    if src.size > 1:
        dup = (src[1:] == src[:-1]) & (dst[1:] == dst[:-1])
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise ValueError(f"edge ({int(src[i])}, {int(dst[i])}) is listed twice")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return CSR(indptr, dst.astype(np.int64), kk.astype(np.int64))


# --- kernels ---------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def bfs_from_nb(indptr, indices, sources, nsrc, dist, queue):
    """Distances from the nearest of ``sources[0:nsrc]`` into ``dist`` (``-1`` unreachable).
    ``queue`` is scratch of at least n entries. Returns the number of nodes reached."""
    n = indptr.shape[0] - 1
    for v in range(n):
        dist[v] = -1
    tail = 0
    for i in range(nsrc):
        v = sources[i]
        if dist[v] < 0:
            dist[v] = 0
            queue[tail] = v
            tail += 1
    head = 0
    while head < tail:
        v = queue[head]
        head += 1
        dv = dist[v] + 1
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            if dist[w] < 0:
                dist[w] = dv
                queue[tail] = w
                tail += 1
    return tail


@njit(cache=True, _nrt=False)
def bfs_distances_nb(indptr, indices, out, queue):
    """All-pairs distances: ``out[a, b]`` (int64 ``[n, n]``), ``-1`` when unreachable.
    ``queue`` is scratch of at least n entries."""
    n = indptr.shape[0] - 1
    for a in range(n):
        # the single source is passed in queue[0]: bfs_from_nb reads it before it writes
        # the same value there as the first queue entry
        queue[0] = a
        bfs_from_nb(indptr, indices, queue, 1, out[a], queue)


@njit(cache=True, _nrt=False)
def reachable_nb(indptr, indices, owner, side, start, out_mask):
    """Mark in ``out_mask`` (integer array, length n) the nodes reachable from ``start``
    moving only through nodes with ``owner[v] == side`` (Risk's fortify rule: ``start``
    and every step must be the side's own). ``start`` itself is included. Returns the
    number marked (0 when ``start`` is not the side's).

    No scratch array: while searching, ``out_mask`` doubles as the BFS queue, as a linked
    list (``out_mask[v] = next + 2`` for a queued node, ``1`` for the last); at the end
    every visited node holds 1 and the rest 0. Use int32/int64 (int8 overflows past 125
    nodes).
    """
    n = indptr.shape[0] - 1
    for v in range(n):
        out_mask[v] = 0
    if start < 0 or start >= n or owner[start] != side:
        return 0
    out_mask[start] = 1
    tail = start
    head = start
    count = 1
    while head >= 0:
        for p in range(indptr[head], indptr[head + 1]):
            w = indices[p]
            if out_mask[w] == 0 and owner[w] == side:
                out_mask[tail] = w + 2   # link tail -> w
                out_mask[w] = 1
                tail = w
                count += 1
        nxt = out_mask[head]
        head = nxt - 2 if nxt >= 2 else -1
    for v in range(n):
        if out_mask[v] != 0:
            out_mask[v] = 1
    return count


@njit(cache=True, _nrt=False)
def _find_nb(parent, v):
    while parent[v] != v:
        parent[v] = parent[parent[v]]
        v = parent[v]
    return v


@njit(cache=True, _nrt=False)
def connected_components_nb(indptr, indices, comp):
    """Component label of every node into ``comp`` (int, length n): labels ``0 .. k-1``
    numbered by each component's lowest node. Returns ``k``. Edges are taken as undirected.

    Union-find in ``comp`` itself (each root is its component's lowest node, so a parent
    is never above its child), then one ascending pass turns parents into labels.
    """
    n = indptr.shape[0] - 1
    for v in range(n):
        comp[v] = v
    for v in range(n):
        for p in range(indptr[v], indptr[v + 1]):
            a = _find_nb(comp, v)
            b = _find_nb(comp, indices[p])
            if a < b:
                comp[b] = a
            elif b < a:
                comp[a] = b
    k = 0
    for v in range(n):
        p = comp[v]
        if p == v:
            comp[v] = k
            k += 1
        else:
            comp[v] = comp[p]   # p < v already holds its component's label
    return k


# --- Python wrappers -------------------------------------------------------------------
def bfs_distances(csr: CSR) -> np.ndarray:
    """All-pairs hop distances (int64 ``[n, n]``, ``-1`` unreachable)."""
    n = csr.n
    out = np.empty((n, n), dtype=np.int64)
    if n:
        bfs_distances_nb(csr.indptr, csr.indices, out, np.empty(n, dtype=np.int64))
    return out


def bfs_from(csr: CSR, sources) -> np.ndarray:
    """Hop distance of every node from the nearest source (``-1`` unreachable)."""
    n = csr.n
    src = np.asarray(sources, dtype=np.int64).ravel()
    if src.size and (src.min() < 0 or src.max() >= n):
        raise ValueError(f"sources must be nodes in 0..{n - 1}")
    dist = np.empty(n, dtype=np.int64)
    bfs_from_nb(csr.indptr, csr.indices, src, np.int64(src.size), dist, np.empty(n, dtype=np.int64))
    return dist


def reachable(csr: CSR, owner, side: int, start: int) -> np.ndarray:
    """Bool mask of the nodes ``reachable_nb`` marks."""
    n = csr.n
    if not 0 <= start < n:
        raise ValueError(f"start must be a node in 0..{n - 1}, got {start}")
    mask = np.empty(n, dtype=np.int64)
    reachable_nb(csr.indptr, csr.indices, np.asarray(owner, dtype=np.int64), np.int64(side),
                 np.int64(start), mask)
    return mask.astype(bool)


def connected_components(csr: CSR) -> tuple[int, np.ndarray]:
    """``(k, labels)``: the number of components and each node's label (0 .. k-1)."""
    comp = np.empty(csr.n, dtype=np.int64)
    k = connected_components_nb(csr.indptr, csr.indices, comp)
    return int(k), comp
