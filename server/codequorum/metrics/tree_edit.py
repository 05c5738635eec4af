"""TSED: tree similarity of edit distance between two versions of a piece of code.

Definition (the published ``tsed`` 0.1.0 package, reproduced exactly)::

    T(code)  = the tree read from str(root_node) of the tree-sitter parse: the
               S-expression of the named nodes, where a field name ("name:", "body:")
               overwrites the label of the node that holds the field, so a node's label
               is the last bare word written directly inside its parentheses
    L        = max(count of ")" in S(a), count of ")" in S(b))
    d        = optimal tree edit distance T(a) -> T(b), costs (delete, insert, rename);
               renaming to an equal label costs 0
    TSED     = (L - d) / L   if d <= L
               0             if d > L
               1             if L = 0

With (delete, insert) unequal, e.g. the published (1, 0.8, 1), ``d`` and so TSED depend on
direction: ``a`` (tree ``i`` of a matrix) is the source.

Algorithm: the reference computes ``d`` with APTED in pure Python (about a second for a
pair of 30-line functions). Every exact optimal tree edit distance algorithm gives the same
value, so here it is Zhang-Shasha's keyroot dynamic programme compiled with numba (no
compiled tree edit distance package on PyPI takes separate insert and delete costs under a
permissive licence: ``edist`` is GPL and its cost callback is Python, ``x-ted`` takes a
rename matrix only). For each pair the cheaper of the left and the right decomposition is
used (Zhang-Shasha over the mirrored trees gives the same distance; the work is the product
of the two trees' summed keyroot subtree sizes). Costs are floats; results agree with
APTED to rounding (about 1e-15). Measured (``bench/bench_tsed.py``): a few milliseconds per
pair of 30-line functions, parsing included, against 1-1.5 s for the reference (about
300x); a 100 x 100 matrix of HumanEval samples in about a second. numba itself costs about
a second once per process (import and loading the cached compiled code).

Limits: tree edit distance needs O(n1 * n2) memory and more than quadratic time, so a tree
with more than ``max_nodes`` nodes (default ``DEFAULT_MAX_NODES`` = 3000, some 600 lines of
code; about a second per pair at that size) is not compared: every TSED involving it is
NaN (never an exception), and ``TsedTree.too_large`` says why.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import cast

import numpy as np
import numpy.typing as npt

from codequorum.parsing import parse

__all__ = [
    "DEFAULT_MAX_NODES",
    "PUBLISHED_COSTS",
    "UNIT_COSTS",
    "Costs",
    "TsedTree",
    "build_tree",
    "sexp_tree",
    "tree_edit_distance",
    "tsed",
    "tsed_from_distance",
    "tsed_matrix",
    "tsed_tree_matrix",
    "tsed_trees",
    "warm_up",
]

#: (delete, insert, rename) costs.
Costs = tuple[float, float, float]

#: Unit costs.
UNIT_COSTS: Costs = (1.0, 1.0, 1.0)
#: The second setting of the TSED paper: inserting is cheaper than deleting.
PUBLISHED_COSTS: Costs = (1.0, 0.8, 1.0)

#: Trees larger than this are not compared (TSED is NaN): the distance tables grow as
#: n1 * n2 (two float64 tables of 3000 x 3000 take 144 MB).
DEFAULT_MAX_NODES = 3000

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class _Decomposition:
    """Postorder arrays of a tree for Zhang-Shasha in one child order."""

    labels: tuple[str, ...]  # label of node k (postorder)
    leftmost: IntArray  # postorder index of the leftmost leaf under node k
    keyroots: IntArray  # increasing postorder indices of the keyroots
    work: int  # sum of the keyroots' subtree sizes


@dataclass(frozen=True)
class TsedTree:
    """A TSED tree: node labels and shape, ready for tree edit distance.

    ``n_close`` is the count of ``)`` in the S-expression (the reference's length ``L``),
    ``n_nodes`` the number of nodes. ``too_large`` is set (with the reason) when the tree
    exceeded ``max_nodes``; such a tree carries no node arrays and every TSED with it is
    NaN.
    """

    n_nodes: int
    n_close: int
    left: _Decomposition | None
    right: _Decomposition | None
    too_large: str | None = None


def _read_sexp(sexp: str) -> tuple[list[str], list[int]]:
    """The reference's ``parse_tree_string``, step for step, quirks included.

    Returns the labels and parents (``-1`` for the root) of the nodes of the tree it
    returns, in preorder. As in the reference, a ``)`` with no open parent is ignored, and
    the tree returned is the node open at the end with everything created after it (for a
    well-formed S-expression, the whole tree).
    """
    labels: list[str] = []
    parents: list[int] = []
    stack: list[int] = []
    current = -1
    for token in sexp.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            if current >= 0:
                stack.append(current)
            parents.append(current)
            labels.append("")
            current = len(labels) - 1
        elif token == ")":
            if stack:
                current = stack.pop()
        else:
            if current < 0:
                parents.append(-1)
                labels.append("")
                current = len(labels) - 1
            labels[current] = token
    if current <= 0:
        return labels, parents
    # an unbalanced tail: the reference returns the subtree of the node open at the end
    return labels[current:], [-1] + [p - current for p in parents[current + 1 :]]


def _decompositions(labels: list[str], parents: list[int]) -> tuple[_Decomposition, _Decomposition]:
    """Zhang-Shasha arrays for the left-to-right and the mirrored child order.

    With ``pre``, ``size`` and ``depth`` of every node, the postorder index is
    ``pre + size - 1 - depth``, and the mirrored tree's postorder is the reversed preorder.
    A node's subtree takes a contiguous postorder range ending at the node, so its leftmost
    leaf is ``post - size + 1``. Keyroots: the root and every node with a sibling on its
    left (mirrored: on its right).
    """
    n = len(labels)
    parent = np.asarray(parents, dtype=np.int64)
    size = np.ones(n, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    for v in range(1, n):
        depth[v] = depth[parents[v]] + 1
    for v in range(n - 1, 0, -1):
        size[parents[v]] += size[v]
    pre = np.arange(n, dtype=np.int64)
    is_root = parent < 0
    safe_parent = np.where(is_root, 0, parent)
    end = pre + size  # one past the last preorder index of the subtree

    post = pre + size - 1 - depth
    left_keys = is_root | (parent != pre - 1)
    order = np.argsort(post)
    left = _make_decomposition(
        [labels[k] for k in order], (post - size + 1)[order], post[left_keys], size[left_keys]
    )

    post_m = n - 1 - pre
    right_keys = is_root | (end != end[safe_parent])
    right = _make_decomposition(
        labels[::-1], (post_m - size + 1)[::-1], post_m[right_keys], size[right_keys]
    )
    return left, right


def _make_decomposition(
    labels: list[str], leftmost: IntArray, keyroots: IntArray, key_sizes: IntArray
) -> _Decomposition:
    order = np.argsort(keyroots)
    return _Decomposition(
        tuple(labels),
        np.ascontiguousarray(leftmost, dtype=np.int64),
        np.ascontiguousarray(keyroots[order], dtype=np.int64),
        int(key_sizes.sum()),
    )


def sexp_tree(sexp: str, max_nodes: int = DEFAULT_MAX_NODES) -> TsedTree:
    """The TSED tree of an S-expression as ``str(tree.root_node)`` writes it.

    Reads it exactly as the reference does: the input is split at parentheses and blanks,
    ``(`` opens a node, ``)`` closes it, any other word becomes the label of the open node
    (the last word wins, so a field name such as ``body:`` overwrites the node type).
    """
    n_close = sexp.count(")")
    n_nodes = sexp.count("(")
    if n_nodes > max_nodes:
        return TsedTree(
            n_nodes,
            n_close,
            None,
            None,
            f"tree has {n_nodes} nodes, more than the limit of {max_nodes} for tree edit distance",
        )
    labels, parents = _read_sexp(sexp)
    if not labels:  # no token at all: an empty tree has no node to edit
        return TsedTree(0, n_close, None, None)
    left, right = _decompositions(labels, parents)
    return TsedTree(len(labels), n_close, left, right)


def build_tree(code: str, language: str, max_nodes: int = DEFAULT_MAX_NODES) -> TsedTree:
    """Parse ``code`` with tree-sitter and read its named-node S-expression (``sexp_tree``)."""
    return sexp_tree(str(parse(code, language).root_node), max_nodes)


def _zhang_shasha_source(
    lab1: IntArray,
    lml1: IntArray,
    kr1: IntArray,
    lab2: IntArray,
    lml2: IntArray,
    kr2: IntArray,
    cdel: float,
    cins: float,
    cren: float,
) -> float:
    """Zhang-Shasha over postorder arrays: labels, leftmost leaves, increasing keyroots.

    ``td[x, y]`` is the distance between the subtrees rooted at ``x`` and ``y``;
    ``fd`` the forest distance table of the current keyroot pair. Each row keeps the cell
    to its left in ``prev`` (the insertion chain), and a row whose node is not on the
    keyroot's leftmost path needs no rename test.
    """
    n1 = lab1.shape[0]
    n2 = lab2.shape[0]
    if n1 == 0:
        return float(n2 * cins)
    if n2 == 0:
        return float(n1 * cdel)
    td = np.empty((n1, n2))
    fd = np.empty((n1 + 1, n2 + 1))
    for a in range(kr1.shape[0]):
        i = kr1[a]
        li = lml1[i]
        m = i - li + 2
        for b in range(kr2.shape[0]):
            j = kr2[b]
            lj = lml2[j]
            n = j - lj + 2
            fd[0, 0] = 0.0
            for y in range(1, n):
                fd[0, y] = fd[0, y - 1] + cins
            for x in range(1, m):
                xi = li + x - 1
                lx = lml1[xi]
                prev = fd[x - 1, 0] + cdel
                fd[x, 0] = prev
                if lx == li:  # xi on the leftmost path of keyroot i
                    lab = lab1[xi]
                    for y in range(1, n):
                        yj = lj + y - 1
                        ly = lml2[yj]
                        if ly == lj:  # both on leftmost paths: a subtree-subtree distance
                            ren = cren if lab != lab2[yj] else 0.0
                            best = min(fd[x - 1, y] + cdel, fd[x - 1, y - 1] + ren, prev + cins)
                            td[xi, yj] = best
                        else:
                            best = min(
                                fd[x - 1, y] + cdel, fd[0, ly - lj] + td[xi, yj], prev + cins
                            )
                        fd[x, y] = best
                        prev = best
                else:
                    base = lx - li
                    for y in range(1, n):
                        yj = lj + y - 1
                        best = min(
                            fd[x - 1, y] + cdel,
                            fd[base, lml2[yj] - lj] + td[xi, yj],
                            prev + cins,
                        )
                        fd[x, y] = best
                        prev = best
    return float(td[n1 - 1, n2 - 1])


_Kernel = Callable[
    [IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, float, float, float], float
]


@cache
def _kernel() -> _Kernel:
    """``_zhang_shasha_source`` compiled by numba on first use (importing numba takes a
    while, so modules that never compute a distance do not pay for it). The compiled code
    is cached on disk; where no cache directory is writable it is compiled per process.
    """
    import numba

    try:
        compiled = numba.njit(cache=True, nogil=True)(_zhang_shasha_source)
    except RuntimeError:  # no writable cache location
        compiled = numba.njit(nogil=True)(_zhang_shasha_source)
    return cast(_Kernel, compiled)


def warm_up() -> None:
    """Load (or compile, the first time on a machine) the compiled distance now.

    The first distance otherwise pays for it: about a second from the on-disk cache,
    several seconds the very first time. Long-running callers (the language server) can
    call this early, e.g. in a background thread.
    """
    tree = sexp_tree("(module (expression_statement (identifier)))")
    tree_edit_distance(tree, tree)


def _zhang_shasha(
    lab1: IntArray,
    lml1: IntArray,
    kr1: IntArray,
    lab2: IntArray,
    lml2: IntArray,
    kr2: IntArray,
    cdel: float,
    cins: float,
    cren: float,
) -> float:
    """Compiled Zhang-Shasha distance (see ``_zhang_shasha_source``)."""
    return _kernel()(lab1, lml1, kr1, lab2, lml2, kr2, cdel, cins, cren)


def _label_ids(vocab: dict[str, int], labels: tuple[str, ...]) -> IntArray:
    return np.fromiter(
        (vocab.setdefault(s, len(vocab)) for s in labels), dtype=np.int64, count=len(labels)
    )


def _check_costs(costs: Sequence[float]) -> Costs:
    if len(costs) != 3:
        raise ValueError(f"costs must be (delete, insert, rename), got {tuple(costs)!r}")
    cdel, cins, cren = (float(c) for c in costs)
    if not all(math.isfinite(c) and c >= 0 for c in (cdel, cins, cren)):
        raise ValueError(f"costs must be finite and >= 0, got {tuple(costs)!r}")
    return cdel, cins, cren


def _distance(
    a: TsedTree,
    b: TsedTree,
    costs: Costs,
    ids: dict[tuple[int, bool], IntArray],
    vocab: dict[str, int],
) -> float:
    """Distance between two trees that fit, with label ids cached per (tree, side)."""
    cdel, cins, cren = costs
    if a.left is None or a.right is None:
        return b.n_nodes * cins
    if b.left is None or b.right is None:
        return a.n_nodes * cdel
    mirrored = a.right.work * b.right.work < a.left.work * b.left.work
    da, db = (a.right, b.right) if mirrored else (a.left, b.left)
    la = ids.get((id(a), mirrored))
    if la is None:
        la = ids[(id(a), mirrored)] = _label_ids(vocab, da.labels)
    lb = ids.get((id(b), mirrored))
    if lb is None:
        lb = ids[(id(b), mirrored)] = _label_ids(vocab, db.labels)
    return _zhang_shasha(
        la, da.leftmost, da.keyroots, lb, db.leftmost, db.keyroots, cdel, cins, cren
    )


def tree_edit_distance(
    source: TsedTree, target: TsedTree, costs: Sequence[float] = UNIT_COSTS
) -> float:
    """Optimal tree edit distance from ``source`` to ``target``.

    ``costs`` = (delete, insert, rename): each node deleted from ``source`` costs
    ``delete``, each node inserted ``insert``, each matched pair with different labels
    ``rename`` (equal labels: 0). Returns NaN when either tree is ``too_large``.
    """
    checked = _check_costs(costs)
    if source.too_large or target.too_large:
        return math.nan
    return _distance(source, target, checked, {}, {})


def tsed_from_distance(distance: float, length: int) -> float:
    """TSED from a distance ``d`` and the length ``L``: (L - d)/L, 0 if d > L, 1 if L = 0."""
    if math.isnan(distance):
        return math.nan
    if length <= 0:
        return 1.0
    if distance > length:
        return 0.0
    return (length - distance) / length


def tsed_trees(source: TsedTree, target: TsedTree, costs: Sequence[float] = UNIT_COSTS) -> float:
    """TSED between two already built trees (``source`` -> ``target``); NaN if one is too large."""
    d = tree_edit_distance(source, target, costs)
    return tsed_from_distance(d, max(source.n_close, target.n_close))


def tsed(
    a: str,
    b: str,
    language: str,
    costs: Sequence[float] = UNIT_COSTS,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> float:
    """TSED from code ``a`` to code ``b`` in ``language`` (see the module docstring).

    Returns a value in [0, 1]; NaN when a tree has more than ``max_nodes`` nodes. Syntax
    errors are no error: ERROR and MISSING nodes are part of the tree.
    """
    checked = _check_costs(costs)
    return tsed_trees(
        build_tree(a, language, max_nodes), build_tree(b, language, max_nodes), checked
    )


def tsed_matrix(
    codes: Sequence[str],
    language: str,
    costs: Sequence[float] = UNIT_COSTS,
    max_nodes: int = DEFAULT_MAX_NODES,
    workers: int = 1,
) -> FloatArray:
    """The n x n TSED matrix: ``M[i, j]`` = TSED(codes[i] -> codes[j]).

    Each sample is parsed and its tree built once. The diagonal is 1.0. With equal delete
    and insert costs the distance is symmetric and only ``i < j`` is computed. Rows and
    columns of a sample whose tree exceeds ``max_nodes`` are NaN (off the diagonal).
    ``workers`` > 1 spreads the rows over that many threads (the compiled distance runs
    without the GIL).
    """
    trees = [build_tree(code, language, max_nodes) for code in codes]
    return tsed_tree_matrix(trees, costs, workers)


def _shape_key(tree: TsedTree, index: int) -> tuple[object, ...]:
    """Equal keys <=> equal trees (postorder labels and leftmost leaves fix the shape) and
    equal ``L``. A tree too large to compare is only equal to itself."""
    if tree.too_large or tree.left is None:
        return (index,) if tree.too_large else (tree.n_close,)
    return (tree.n_close, tree.left.labels, tree.left.leftmost.tobytes())


def tsed_tree_matrix(
    trees: Sequence[TsedTree], costs: Sequence[float] = UNIT_COSTS, workers: int = 1
) -> FloatArray:
    """``tsed_matrix`` over trees already built with ``build_tree`` (build once, score with
    several cost settings).

    Identical trees are compared once: sampled versions often repeat one another (about
    a third of each 100-sample HumanEval set), and TSED between identical trees is 1.
    """
    checked = _check_costs(costs)
    n = len(trees)
    groups: dict[tuple[object, ...], int] = {}
    reps: list[TsedTree] = []  # the first tree of each group
    group_of = np.zeros(n, dtype=np.int64)
    for i, tree in enumerate(trees):
        g = groups.setdefault(_shape_key(tree, i), len(groups))
        if g == len(reps):
            reps.append(tree)
        group_of[i] = g
    unique = _unique_matrix(reps, checked, workers)
    out: FloatArray = unique[np.ix_(group_of, group_of)]
    np.fill_diagonal(out, 1.0)
    return out


def _unique_matrix(trees: Sequence[TsedTree], checked: Costs, workers: int) -> FloatArray:
    """TSED matrix of pairwise distinct trees."""
    n = len(trees)
    out = np.ones((n, n), dtype=np.float64)
    symmetric = checked[0] == checked[1]
    # label ids for every tree and side up front, so the row jobs only read shared state
    vocab: dict[str, int] = {}
    ids: dict[tuple[int, bool], IntArray] = {}
    for tree in trees:
        for mirrored, side in ((False, tree.left), (True, tree.right)):
            if side is not None:
                ids[(id(tree), mirrored)] = _label_ids(vocab, side.labels)

    def row(i: int) -> None:
        a = trees[i]
        for j in range(i + 1, n):
            b = trees[j]
            if a.too_large or b.too_large:
                out[i, j] = out[j, i] = math.nan
                continue
            length = max(a.n_close, b.n_close)
            out[i, j] = tsed_from_distance(_distance(a, b, checked, ids, vocab), length)
            if symmetric:
                out[j, i] = out[i, j]
            else:
                out[j, i] = tsed_from_distance(_distance(b, a, checked, ids, vocab), length)

    if workers > 1 and n > 2:
        _kernel()  # compile (or load) once, before the threads start
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(row, range(n)))
    else:
        for i in range(n):
            row(i)
    return out
