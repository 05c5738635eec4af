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
300x). numba itself costs about a second once per process (import and loading the cached
compiled code).

Matrices: in Zhang-Shasha, the table of a keyroot pair depends only on the two keyroot
subtrees, and its rows and columns only on prefixes of their postorders. Versions of one
function share most of their subtrees and many such prefixes, so ``tsed_tree_matrix``
computes all the pairs of a set in one pass (``_shared_source``): every distinct keyroot
subtree of every tree against every distinct prefix forest (a trie of the keyroots'
postorders), each subtree-to-subtree distance once for the whole set. Both directions
come out of the same pass, and with equal insert and delete costs only the forests of
later trees are visited. Over the 164 x 100 HumanEval versions that is about 5x less time
than pair by pair with (1, 1, 1), and more with (1, 0.8, 1); the values are the same. A
row of a keyroot's table depends only on the forest of its first nodes, so keyroots that
begin with the same forest are taken one after the other and share those rows (about a
sixth fewer cells over the HumanEval sets).

Trees: ``build_trees`` reads each distinct version once, from a tree-sitter parse it is
given (``structural_matrices`` keeps its parse for this) or its own; the S-expressions of
a set are read together by one compiled pass over their bytes (``_read_source``, the
reference's reading step for step) and decomposed by another (``_decompose_source``).
Labels become integer ids shared by the process (only their equality matters).

Limits: tree edit distance needs O(n1 * n2) memory and more than quadratic time, so a tree
with more than ``max_nodes`` nodes (default ``DEFAULT_MAX_NODES`` = 3000, some 600 lines of
code; about a second per pair at that size) is not compared: every TSED involving it is
NaN (never an exception), and ``TsedTree.too_large`` says why.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt
import tree_sitter

from codequorum.core.parsing import parse

__all__ = [
    "DEFAULT_MAX_NODES",
    "PUBLISHED_COSTS",
    "UNIT_COSTS",
    "Costs",
    "Method",
    "TsedTree",
    "build_tree",
    "build_trees",
    "sexp_tree",
    "sexp_trees",
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
#: How a matrix is computed: per pair, in one shared pass, or whichever is cheaper.
Method = Literal["auto", "pairs", "shared"]

#: Unit costs.
UNIT_COSTS: Costs = (1.0, 1.0, 1.0)
#: The second setting of the TSED paper: inserting is cheaper than deleting.
PUBLISHED_COSTS: Costs = (1.0, 0.8, 1.0)

#: Trees larger than this are not compared (TSED is NaN): the distance tables grow as
#: n1 * n2 (two float64 tables of 3000 x 3000 take 144 MB).
DEFAULT_MAX_NODES = 3000

IntArray = npt.NDArray[np.int64]
IndexArray = npt.NDArray[np.uint32]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class _Decomposition:
    """Postorder arrays of a tree for Zhang-Shasha in one child order."""

    ids: IntArray  # label id of node k (postorder), from the process's label vocabulary
    leftmost: IntArray  # postorder index of the leftmost leaf under node k
    keyroots: IntArray  # increasing postorder indices of the keyroots
    work: int  # sum of the keyroots' subtree sizes

    @property
    def labels(self) -> tuple[str, ...]:
        """The label of each node (postorder) as text."""
        names = _LABEL_NAMES
        return tuple(names[k] for k in self.ids.tolist())


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


# Labels are compared only for equality, so each distinct label text gets one integer id
# for the life of the process (node types and field names: a few hundred per grammar).
_LABEL_IDS: dict[str, int] = {}
_LABEL_NAMES: list[str] = []
_LABEL_LOCK = threading.Lock()


def _label_id(name: str) -> int:
    """The process-wide id of label ``name`` (new ids are handed out under a lock)."""
    got = _LABEL_IDS.get(name)
    if got is None:
        with _LABEL_LOCK:
            got = _LABEL_IDS.get(name)
            if got is None:
                got = _LABEL_IDS[name] = len(_LABEL_NAMES)
                _LABEL_NAMES.append(name)
    return got


def _read_sexp(sexp: str) -> tuple[list[str], list[int]]:
    """The reference's ``parse_tree_string``, step for step, quirks included.

    Returns the labels and parents (``-1`` for the root) of the nodes of the tree it
    returns, in preorder. As in the reference, a ``)`` with no open parent is ignored, and
    the tree returned is the node open at the end with everything created after it (for a
    well-formed S-expression, the whole tree). ``_read_source`` does the same on bytes;
    this one reads what is not ASCII (Python's notion of blank then differs from bytes').
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


def _read_source(
    buf: npt.NDArray[np.uint8], starts: IntArray
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
    """``_read_sexp`` over ASCII bytes, for many S-expressions at once, compiled.

    S-expression ``t`` is ``buf[starts[t]:starts[t + 1]]``; blanks are the ASCII
    characters ``str.split`` splits at (9-13, 28-32). Returns ``node_start`` (tree ``t``'s
    nodes are ``node_start[t]:node_start[t + 1]``, in preorder), each node's parent
    (within its tree, -1 for the root) and label (an index into the distinct labels of
    the batch), and where each distinct label's text lies in ``buf`` (start, end). Labels
    are told apart by their bytes (a hash table, equal hashes compared byte by byte).
    """
    n_trees = starts.shape[0] - 1
    total = n_trees
    for k in range(buf.shape[0]):
        if buf[k] == 40:  # "("
            total += 1
    node_start = np.zeros(n_trees + 1, dtype=np.int64)
    parents = np.empty(total, dtype=np.int64)
    lab_a = np.empty(total, dtype=np.int64)
    lab_b = np.empty(total, dtype=np.int64)
    stack = np.empty(total + 1, dtype=np.int64)
    count = 0
    for t in range(n_trees):
        base = count
        depth = 0
        current = -1
        k = starts[t]
        end = starts[t + 1]
        while k < end:
            c = buf[k]
            if c == 40:  # "("
                if current >= 0:
                    stack[depth] = current
                    depth += 1
                parents[count] = current
                lab_a[count] = 0
                lab_b[count] = 0
                current = count - base
                count += 1
                k += 1
            elif c == 41:  # ")"
                if depth > 0:
                    depth -= 1
                    current = stack[depth]
                k += 1
            elif c == 32 or 9 <= c <= 13 or 28 <= c <= 31:
                k += 1
            else:
                a = k
                while k < end:
                    c = buf[k]
                    if c == 40 or c == 41 or c == 32 or 9 <= c <= 13 or 28 <= c <= 31:
                        break
                    k += 1
                if current < 0:
                    parents[count] = -1
                    current = count - base
                    count += 1
                lab_a[base + current] = a
                lab_b[base + current] = k
        if current > 0:  # an unbalanced tail: keep the subtree of the open node
            kept = count - base - current
            for v in range(kept):
                src = base + current + v
                parents[base + v] = -1 if v == 0 else parents[src] - current
                lab_a[base + v] = lab_a[src]
                lab_b[base + v] = lab_b[src]
            count = base + kept
        node_start[t + 1] = count
    # distinct labels by their bytes
    cap = 64
    while cap < 2 * count:
        cap *= 2
    mask = cap - 1
    slot = np.full(cap, -1, dtype=np.int64)
    label = np.empty(count, dtype=np.int64)
    uniq_a = np.empty(count, dtype=np.int64)
    uniq_b = np.empty(count, dtype=np.int64)
    n_uniq = 0
    for v in range(count):
        a = lab_a[v]
        b = lab_b[v]
        h = np.uint64(14695981039346656037)
        for k in range(a, b):
            h = (h ^ np.uint64(buf[k])) * np.uint64(1099511628211)
        s = np.int64(h & np.uint64(mask))
        while True:
            u = slot[s]
            if u < 0:
                slot[s] = n_uniq
                uniq_a[n_uniq] = a
                uniq_b[n_uniq] = b
                label[v] = n_uniq
                n_uniq += 1
                break
            ua = uniq_a[u]
            if uniq_b[u] - ua == b - a:
                same = True
                for k in range(b - a):
                    if buf[ua + k] != buf[a + k]:
                        same = False
                        break
                if same:
                    label[v] = u
                    break
            s = (s + 1) & mask
    return node_start, parents[:count], label, uniq_a[:n_uniq], uniq_b[:n_uniq]


def _decompose_source(
    node_start: IntArray, parents: IntArray
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]:
    """Zhang-Shasha arrays of many trees (preorder parents, as ``_read_source`` gives them)
    for the left-to-right and the mirrored child order, compiled.

    With ``size`` and ``depth`` of preorder node ``v``, its postorder index is
    ``v + size - 1 - depth``, and the mirrored tree's postorder is the reversed preorder.
    A node's subtree takes a contiguous postorder range ending at the node, so its
    leftmost leaf is ``post - size + 1``. Keyroots: the root and every node with a sibling
    on its left (mirrored: on its right). Returns, per node (concatenated like the
    input), the preorder node at each postorder place and the leftmost leaves in both
    orders; the keyroots of both orders (tree ``t``'s are ``key_start[t]:key_start[t+1]``
    of its order, increasing); and each tree's keyroot work in both orders.
    """
    n_trees = node_start.shape[0] - 1
    total = parents.shape[0]
    perm = np.empty(total, dtype=np.int64)
    left_lm = np.empty(total, dtype=np.int64)
    right_lm = np.empty(total, dtype=np.int64)
    size = np.empty(total, dtype=np.int64)
    depth = np.empty(total, dtype=np.int64)
    post = np.empty(total, dtype=np.int64)
    left_keys = np.empty(total, dtype=np.int64)
    right_keys = np.empty(total, dtype=np.int64)
    key_start = np.zeros((2, n_trees + 1), dtype=np.int64)
    work = np.zeros((2, n_trees), dtype=np.int64)
    nl = 0
    nr = 0
    for t in range(n_trees):
        s = node_start[t]
        n = node_start[t + 1] - s
        for v in range(n):
            size[s + v] = 1
            depth[s + v] = 0 if v == 0 else depth[s + parents[s + v]] + 1
        for v in range(n - 1, 0, -1):
            size[s + parents[s + v]] += size[s + v]
        for v in range(n):
            p = v + size[s + v] - 1 - depth[s + v]
            post[s + v] = p
            perm[s + p] = v
            left_lm[s + p] = p - size[s + v] + 1
            q = n - 1 - v
            right_lm[s + q] = q - size[s + v] + 1
        for p in range(n):  # left keyroots, increasing: the root or not a first child
            v = perm[s + p]
            if v == 0 or parents[s + v] != v - 1:
                left_keys[nl] = p
                nl += 1
                work[0, t] += size[s + v]
        for v in range(n - 1, -1, -1):  # mirrored: the root or not a last child
            if v == 0 or v + size[s + v] != parents[s + v] + size[s + parents[s + v]]:
                right_keys[nr] = n - 1 - v
                nr += 1
                work[1, t] += size[s + v]
        key_start[0, t + 1] = nl
        key_start[1, t + 1] = nr
    return perm, left_lm, right_lm, left_keys[:nl], right_keys[:nr], key_start, work, size


_ReadKernel = Callable[
    [npt.NDArray[np.uint8], IntArray], tuple[IntArray, IntArray, IntArray, IntArray, IntArray]
]
_DecomposeKernel = Callable[
    [IntArray, IntArray],
    tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray],
]


@cache
def _read_kernel() -> _ReadKernel:
    """``_read_source`` compiled by numba on first use (cached on disk like ``_kernel``)."""
    return cast(_ReadKernel, _njit(_read_source))


@cache
def _decompose_kernel() -> _DecomposeKernel:
    """``_decompose_source`` compiled by numba on first use (cached on disk)."""
    return cast(_DecomposeKernel, _njit(_decompose_source))


def _njit(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` compiled by numba, cached on disk where a cache directory is writable."""
    import numba

    try:
        return cast(Callable[..., Any], numba.njit(cache=True, nogil=True)(fn))
    except RuntimeError:  # no writable cache location
        return cast(Callable[..., Any], numba.njit(nogil=True)(fn))


def _trees_from_parents(
    node_start: IntArray, parents: IntArray, ids: IntArray, n_close: Sequence[int]
) -> list[TsedTree]:
    """TSED trees from preorder parents and label ids of many trees (``_read_source``'s
    layout); ``n_close[t]`` is tree ``t``'s ``L``."""
    perm, left_lm, right_lm, left_keys, right_keys, key_start, work, _ = (
        _decompose_kernel()(node_start, parents)
    )
    out: list[TsedTree] = []
    for t in range(node_start.shape[0] - 1):
        s, e = int(node_start[t]), int(node_start[t + 1])
        if s == e:  # no token at all: an empty tree has no node to edit
            out.append(TsedTree(0, n_close[t], None, None))
            continue
        own = ids[s:e]
        left = _Decomposition(
            own[perm[s:e]], left_lm[s:e], left_keys[key_start[0, t] : key_start[0, t + 1]],
            int(work[0, t]),
        )
        right = _Decomposition(
            own[::-1].copy(), right_lm[s:e], right_keys[key_start[1, t] : key_start[1, t + 1]],
            int(work[1, t]),
        )
        out.append(TsedTree(e - s, n_close[t], left, right))
    return out


def _decompositions(labels: list[str], parents: list[int]) -> tuple[_Decomposition, _Decomposition]:
    """Zhang-Shasha arrays of one tree (labels and parents in preorder, the root first)
    in the left-to-right and the mirrored child order (see ``_decompose_source``)."""
    ids = np.fromiter((_label_id(s) for s in labels), dtype=np.int64, count=len(labels))
    node_start = np.array([0, len(labels)], dtype=np.int64)
    tree = _trees_from_parents(node_start, np.asarray(parents, dtype=np.int64), ids, [0])[0]
    assert tree.left is not None and tree.right is not None
    return tree.left, tree.right


def sexp_tree(sexp: str, max_nodes: int = DEFAULT_MAX_NODES) -> TsedTree:
    """The TSED tree of an S-expression as ``str(tree.root_node)`` writes it.

    Reads it exactly as the reference does: the input is split at parentheses and blanks,
    ``(`` opens a node, ``)`` closes it, any other word becomes the label of the open node
    (the last word wins, so a field name such as ``body:`` overwrites the node type).
    Trees are immutable, and the last few hundred are kept: sampled versions often have
    the same tree.
    """
    return sexp_trees([sexp], max_nodes)[0]


#: How many trees ``sexp_trees`` keeps, by S-expression and node limit.
TREE_CACHE_SIZE = 512
_TREES: OrderedDict[tuple[str, int], TsedTree] = OrderedDict()
_TREES_LOCK = threading.Lock()


def sexp_trees(sexps: Sequence[str], max_nodes: int = DEFAULT_MAX_NODES) -> list[TsedTree]:
    """``sexp_tree`` of each S-expression; the ones not kept from before are read in one
    compiled pass (``_read_source``, ``_decompose_source``)."""
    out: list[TsedTree | None] = [None] * len(sexps)
    missing: dict[str, list[int]] = {}
    with _TREES_LOCK:
        for k, sexp in enumerate(sexps):
            got = _TREES.get((sexp, max_nodes))
            if got is not None:
                _TREES.move_to_end((sexp, max_nodes))
                out[k] = got
            else:
                missing.setdefault(sexp, []).append(k)
    made: dict[str, TsedTree] = {}
    ascii_: list[str] = []
    for sexp in missing:
        n_nodes = sexp.count("(")
        if n_nodes > max_nodes:
            made[sexp] = TsedTree(
                n_nodes, sexp.count(")"), None, None,
                f"tree has {n_nodes} nodes, more than the limit of {max_nodes} for tree edit "
                "distance",
            )
        elif sexp.isascii():
            ascii_.append(sexp)
        else:
            made[sexp] = _python_tree(sexp)
    if ascii_:
        made.update(zip(ascii_, _ascii_trees(ascii_), strict=True))
    with _TREES_LOCK:
        for sexp, places in missing.items():
            tree = made[sexp]
            for k in places:
                out[k] = tree
            _TREES[(sexp, max_nodes)] = tree
        while len(_TREES) > TREE_CACHE_SIZE:
            _TREES.popitem(last=False)
    return cast(list[TsedTree], out)


def _ascii_trees(sexps: Sequence[str]) -> list[TsedTree]:
    """Trees of ASCII S-expressions, read together by ``_read_source``."""
    joined = "".join(sexps)
    starts = np.zeros(len(sexps) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sexps], out=starts[1:])
    buf = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    node_start, parents, label, uniq_a, uniq_b = _read_kernel()(buf, starts)
    names = np.array(
        [_label_id(joined[a:b]) for a, b in zip(uniq_a.tolist(), uniq_b.tolist(), strict=True)],
        dtype=np.int64,
    )
    return _trees_from_parents(node_start, parents, names[label], [s.count(")") for s in sexps])


def _python_tree(sexp: str) -> TsedTree:
    """One tree read by ``_read_sexp`` (S-expressions that are not ASCII)."""
    labels, parents = _read_sexp(sexp)
    ids = np.fromiter((_label_id(s) for s in labels), dtype=np.int64, count=len(labels))
    node_start = np.array([0, len(labels)], dtype=np.int64)
    return _trees_from_parents(
        node_start, np.asarray(parents, dtype=np.int64), ids, [sexp.count(")")]
    )[0]


def build_tree(code: str, language: str, max_nodes: int = DEFAULT_MAX_NODES) -> TsedTree:
    """Parse ``code`` with tree-sitter and read its named-node S-expression (``sexp_tree``)."""
    return build_trees([code], language, max_nodes)[0]


def _more_nodes_than(tree: tree_sitter.Tree, limit: int) -> bool:
    """Whether the S-expression of ``tree`` would open more than ``limit`` nodes, told
    without writing it: a node it writes is named or MISSING, and each opens at least one
    parenthesis. Iterative; it stops once past ``limit``."""
    root = tree.root_node
    if root.descendant_count <= limit:
        return False
    cur = tree.walk()
    seen = 0
    while True:
        node: tree_sitter.Node = cur.node  # type: ignore[assignment]
        if node.is_named or node.is_missing:
            seen += 1
            if seen > limit:
                return True
        if cur.goto_first_child():
            continue
        while not cur.goto_next_sibling():
            if not cur.goto_parent():
                return False


def _too_large(max_nodes: int) -> TsedTree:
    """A tree past the node limit, never written out (its TSED is NaN)."""
    return TsedTree(max_nodes + 1, max_nodes + 1, None, None,
                    f"tree has more than {max_nodes} nodes, the limit for tree edit distance")


def build_trees(
    codes: Sequence[str],
    language: str,
    max_nodes: int = DEFAULT_MAX_NODES,
    parsed: Sequence[tree_sitter.Tree | None] | None = None,
) -> list[TsedTree]:
    """``build_tree`` of each code: identical codes are read once, and ``parsed`` (the
    tree-sitter tree of each code, e.g. from ``structural_matrices``; None where a code
    is to be parsed here) spares parsing them again. A tree past ``max_nodes`` is told
    from its node count and never written as an S-expression (tree-sitter writes one
    recursively, and a large one takes memory for nothing)."""
    if parsed is not None and len(parsed) != len(codes):
        raise ValueError(f"{len(parsed)} parsed trees for {len(codes)} codes")
    first: dict[str, int] = {}
    for k, code in enumerate(codes):
        first.setdefault(code, k)
    sexps: dict[str, str] = {}
    large: dict[str, TsedTree] = {}
    for code, k in first.items():
        tree = parsed[k] if parsed is not None else None
        if tree is None:
            tree = parse(code, language)
        if _more_nodes_than(tree, max_nodes):
            large[code] = _too_large(max_nodes)
        else:
            sexps[code] = str(tree.root_node)
    trees = dict(zip(sexps, sexp_trees(list(sexps.values()), max_nodes), strict=True))
    trees.update(large)
    return [trees[code] for code in codes]


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
    return cast(_Kernel, _njit(_zhang_shasha_source))


def _shared_source(
    col_label: IntArray,
    col_parent: IndexArray,
    col_before: IndexArray,
    col_tree: IndexArray,
    level_start: IntArray,
    level_cut: IntArray,
    row_start: IntArray,
    row_skip: IntArray,
    row_need: IntArray,
    row_label: IntArray,
    row_tree: IntArray,
    row_before: IntArray,
    cdel: float,
    cins: float,
    cren: float,
    td: FloatArray,
    fd: FloatArray,
) -> None:
    """Zhang-Shasha for every pair of keyroot subtrees of a set of trees at once.

    Columns are the distinct forests that begin a keyroot subtree in postorder (a
    trie of the keyroots' postorder sequences; column 0 is the empty forest), by size
    (``level_start[k]:level_start[k + 1]`` are the forests of ``k`` nodes), so that a
    forest comes after the forests it is built from: for column ``v``, ``col_parent`` is
    the forest without its last node, ``col_before`` the forest before its last tree (0
    when ``v`` is one tree) and ``col_tree`` the id of that last tree. Rows are the
    keyroot subtrees (distinct, in the order of ``_row_plan_source``),
    ``row_start[g]:row_start[g + 1]`` the postorder nodes of keyroot ``g`` with their
    labels, subtree ids and the row of the forest before their subtree. For each keyroot,
    ``fd[x, v]`` is the forest distance from its first ``x`` nodes to forest ``v`` (the
    recurrence of ``_zhang_shasha_source``, a forest's predecessors found through the
    trie) and ``td[s, t]`` receives the distance between subtrees ``s`` and ``t``. A row
    depends only on the forest of its first ``x`` nodes, so keyroot ``g`` starts at row
    ``row_skip[g] + 1``: the rows before are those of the previous keyroot, which begins
    with the same forest, still in ``fd``. Row ``r`` is compared with the first
    ``level_cut[row_need[r], k]`` forests of each size ``k`` (enough for every keyroot
    that reuses it). A keyroot's rows read ``td`` only for subtrees of keyroots it
    contains (earlier in the order) or of earlier columns. Column indices are unsigned,
    which spares every array access a negative-index test.
    """
    n_cols = col_label.shape[0]
    zero = cdel - cdel
    fd[0, 0] = zero
    for v in range(1, n_cols):
        fd[0, v] = fd[0, col_parent[v]] + cins
    n_levels = level_start.shape[0] - 1
    for g in range(row_start.shape[0] - 1):
        start = row_start[g]
        for x in range(row_skip[g] + 1, row_start[g + 1] - start + 1):
            r = start + x - 1
            cut = level_cut[row_need[r]]
            base = row_before[r]
            up = fd[x - 1]
            cur = fd[x]
            far = fd[base]
            dist = td[row_tree[r]]
            cur[0] = up[0] + cdel
            if base == 0:  # the first x nodes form one tree
                lab = row_label[r]
                for k in range(1, n_levels):
                    for v in range(np.uint64(level_start[k]), np.uint64(level_start[k] + cut[k])):
                        p = col_parent[v]
                        before = col_before[v]
                        if before == 0:  # tree to tree
                            ren = cren if lab != col_label[v] else zero
                            best = min(up[v] + cdel, up[p] + ren, cur[p] + cins)
                            dist[col_tree[v]] = best
                        else:
                            best = min(
                                up[v] + cdel, far[before] + dist[col_tree[v]], cur[p] + cins
                            )
                        cur[v] = best
            else:
                for k in range(1, n_levels):
                    for v in range(np.uint64(level_start[k]), np.uint64(level_start[k] + cut[k])):
                        cur[v] = min(
                            up[v] + cdel,
                            far[col_before[v]] + dist[col_tree[v]],
                            cur[col_parent[v]] + cins,
                        )


def _row_plan_source(
    parent: IntArray,
    depth: IntArray,
    leftmost: IntArray,
    keyroots: IntArray,
    tree_start: IntArray,
    key_start: IntArray,
    group_q: IntArray,
    group_node: IntArray,
    group_first: IntArray,
    group_size: IntArray,
) -> tuple[IntArray, IntArray, IntArray]:
    """The order of the shared pass's keyroots (rows), and what each may reuse, compiled.

    A keyroot's rows read the subtree distances of the keyroots it contains, so keyroots
    go by height (0 for one containing no other keyroot, else one more than the highest it
    contains: the same for equal subtrees), and within a height in depth-first order of
    their forests in the trie (``parent``, ``depth``), so keyroots that begin with the same
    forest follow one another. Returns the order of the groups (``group_q``: a keyroot of
    each distinct subtree, ``group_node`` its forest, ``group_first`` the first tree whose
    rows it serves, ``group_size`` its size); per place in that order, how many leading
    rows equal the previous keyroot's (0 across heights); and per row (in that order), the
    first tree of every keyroot that will read it: the smallest ``group_first`` of the
    keyroots that reuse it.
    """
    n_trees = tree_start.shape[0] - 1
    height = np.zeros(keyroots.shape[0], dtype=np.int64)
    for t in range(n_trees):
        base = tree_start[t]
        for a in range(key_start[t], key_start[t + 1]):
            low = leftmost[base + keyroots[a]]
            h = 0
            for b in range(key_start[t], a):  # smaller keyroots: inside when to its right
                if leftmost[base + keyroots[b]] > low and height[b] + 1 > h:
                    h = height[b] + 1
            height[a] = h
    n_nodes = parent.shape[0]
    kid_start = np.zeros(n_nodes + 1, dtype=np.int64)
    for v in range(1, n_nodes):
        kid_start[parent[v] + 1] += 1
    for v in range(n_nodes):
        kid_start[v + 1] += kid_start[v]
    kids = np.empty(max(n_nodes - 1, 1), dtype=np.int64)
    fill = kid_start[:-1].copy()
    for v in range(1, n_nodes):
        kids[fill[parent[v]]] = v
        fill[parent[v]] += 1
    pre = np.empty(n_nodes, dtype=np.int64)
    stack = np.empty(n_nodes, dtype=np.int64)
    stack[0] = 0
    top = 1
    k = 0
    while top > 0:
        top -= 1
        v = stack[top]
        pre[v] = k
        k += 1
        for c in range(kid_start[v + 1] - 1, kid_start[v] - 1, -1):
            stack[top] = kids[c]
            top += 1
    n_groups = group_q.shape[0]
    group_height = height[group_q]
    order = np.argsort(group_height * n_nodes + pre[group_node], kind="mergesort")
    skip = np.zeros(n_groups, dtype=np.int64)
    for i in range(1, n_groups):
        g = order[i]
        p = order[i - 1]
        if group_height[g] != group_height[p]:
            continue
        a = group_node[g]
        b = group_node[p]
        while a != b:  # the longest forest both begin with: their lowest common ancestor
            if depth[a] >= depth[b]:
                a = parent[a]
            else:
                b = parent[b]
        skip[i] = depth[a]
    row_start = np.zeros(n_groups + 1, dtype=np.int64)
    for i in range(n_groups):
        row_start[i + 1] = row_start[i] + group_size[order[i]]
    need = np.empty(row_start[n_groups], dtype=np.int64)
    for i in range(n_groups):
        s = row_start[i]
        for x in range(group_size[order[i]]):
            need[s + x] = group_first[order[i]]
        shared = group_size[order[i]]
        for j in range(i + 1, n_groups):
            shared = min(shared, skip[j])
            if shared <= skip[i]:
                break
            f = group_first[order[j]]
            for x in range(skip[i], shared):
                need[s + x] = min(need[s + x], f)
    return order, skip, need


_RowPlanKernel = Callable[
    [IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray,
     IntArray],
    tuple[IntArray, IntArray, IntArray],
]


@cache
def _row_plan_kernel() -> _RowPlanKernel:
    """``_row_plan_source`` compiled by numba on first use (cached on disk)."""
    return cast(_RowPlanKernel, _njit(_row_plan_source))


def _trie_source(
    labels: IntArray,
    leftmost: IntArray,
    keyroots: IntArray,
    tree_start: IntArray,
    key_start: IntArray,
    n_labels: int,
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]:
    """The trie of forests of ``_shared_forests`` (see there), compiled.

    Trees are concatenated: tree ``t`` has postorder nodes ``tree_start[t]:tree_start[t+1]``
    (``labels``, and ``leftmost`` counted from the tree's first node) and keyroots
    ``key_start[t]:key_start[t + 1]`` of ``keyroots``. A forest is found from its parent
    forest, label and offset in an open-addressing hash table. Returns per forest its
    parent, label, forest before its last tree, forest of its last tree, size and last
    tree holding it; per node the forest of its subtree; per keyroot its forest.
    """
    n_trees = tree_start.shape[0] - 1
    total = 1
    longest = 1
    for t in range(n_trees):
        for q in range(key_start[t], key_start[t + 1]):
            size = keyroots[q] - leftmost[tree_start[t] + keyroots[q]] + 1
            total += size
            longest = max(longest, size)
    cap = 1
    while cap < 2 * total:
        cap *= 2
    mask = cap - 1
    slot_key = np.full(cap, -1, dtype=np.int64)
    slot_val = np.zeros(cap, dtype=np.int64)
    parent = np.zeros(total, dtype=np.int64)
    label = np.full(total, -1, dtype=np.int64)
    before = np.zeros(total, dtype=np.int64)
    last = np.zeros(total, dtype=np.int64)
    depth = np.zeros(total, dtype=np.int64)
    held = np.full(total, n_trees - 1, dtype=np.int64)
    subtree = np.zeros(labels.shape[0], dtype=np.int64)
    key_node = np.zeros(keyroots.shape[0], dtype=np.int64)
    path = np.zeros(longest + 1, dtype=np.int64)
    count = 1
    width = longest + 1
    for t in range(n_trees):
        base = tree_start[t]
        for q in range(key_start[t], key_start[t + 1]):
            top = keyroots[q]
            first = leftmost[base + top]
            node = 0
            for k in range(first, top + 1):
                offset = leftmost[base + k] - first
                key = (node * n_labels + labels[base + k]) * width + offset
                h = (key * 0x9E3779B1) & mask
                while slot_key[h] != key and slot_key[h] != -1:
                    h = (h + 1) & mask
                if slot_key[h] == key:
                    found = slot_val[h]
                    held[found] = t
                else:
                    found = count
                    count += 1
                    slot_key[h] = key
                    slot_val[h] = found
                    parent[found] = node
                    label[found] = labels[base + k]
                    before[found] = path[offset]
                    last[found] = found if offset == 0 else subtree[base + k]
                    depth[found] = k - first + 1
                    held[found] = t
                if offset == 0:
                    subtree[base + k] = found
                path[k - first + 1] = found
                node = found
            key_node[q] = node
    return (
        parent[:count],
        label[:count],
        before[:count],
        last[:count],
        depth[:count],
        held[:count],
        subtree,
        key_node,
    )


_TrieKernel = Callable[
    [IntArray, IntArray, IntArray, IntArray, IntArray, int],
    tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray],
]


@cache
def _trie_kernel() -> _TrieKernel:
    """``_trie_source`` compiled by numba on first use (cached on disk like ``_kernel``)."""
    return cast(_TrieKernel, _njit(_trie_source))


#: The shared pass's tables: float64, or float32 holding integers exactly.
Table = npt.NDArray[np.float64] | npt.NDArray[np.float32]

_SharedKernel = Callable[
    [
        IntArray, IndexArray, IndexArray, IndexArray, IntArray, IntArray, IntArray, IntArray,
        IntArray, IntArray, IntArray, IntArray, np.floating[Any], np.floating[Any],
        np.floating[Any], Table, Table,
    ],
    None,
]


@cache
def _shared_kernel() -> _SharedKernel:
    """``_shared_source`` compiled by numba on first use (cached on disk like ``_kernel``)."""
    return cast(_SharedKernel, _njit(_shared_source))


def warm_up() -> None:
    """Load (or compile, the first time on a machine) the compiled distances now.

    The first distance otherwise pays for it: about a second from the on-disk cache,
    several seconds the very first time. Long-running callers (the language server) can
    call this early, e.g. in a background thread.
    """
    tree = sexp_tree("(module (expression_statement (identifier)))")
    tree_edit_distance(tree, tree)
    _shared_distances([tree, sexp_tree("(module (pass_statement))")], UNIT_COSTS)


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


def _distance(a: TsedTree, b: TsedTree, costs: Costs) -> float:
    """Distance between two trees that fit (or are empty)."""
    cdel, cins, cren = costs
    if a.left is None or a.right is None:
        return b.n_nodes * cins
    if b.left is None or b.right is None:
        return a.n_nodes * cdel
    mirrored = a.right.work * b.right.work < a.left.work * b.left.work
    da, db = (a.right, b.right) if mirrored else (a.left, b.left)
    return _kernel()(
        da.ids, da.leftmost, da.keyroots, db.ids, db.leftmost, db.keyroots, cdel, cins, cren
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
    return _distance(source, target, checked)


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

    Each version is parsed and its tree built once. The diagonal is 1.0. With equal delete
    and insert costs the distance is symmetric and only ``i < j`` is computed. Rows and
    columns of a version whose tree exceeds ``max_nodes`` are NaN (off the diagonal).
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
    return (tree.n_close, tree.left.ids.tobytes(), tree.left.leftmost.tobytes())


def tsed_tree_matrix(
    trees: Sequence[TsedTree],
    costs: Sequence[float] = UNIT_COSTS,
    workers: int = 1,
    method: Method = "auto",
) -> FloatArray:
    """``tsed_matrix`` over trees already built with ``build_tree`` (build once, score with
    several cost settings).

    Identical trees are compared once: sampled versions often repeat one another (about
    a third of each 100-sample HumanEval set), and TSED between identical trees is 1.
    ``method``: ``"pairs"`` runs Zhang-Shasha per pair (rows over ``workers`` threads);
    ``"shared"`` computes every ordered pair in one pass that shares the subtrees and
    forests the trees have in common (``_shared_source``; one thread); ``"auto"`` takes
    the one with less estimated work. Both give the same values (to rounding, below
    1e-12, with costs that are not integers).
    """
    if method not in ("auto", "pairs", "shared"):
        raise ValueError(f"method must be 'auto', 'pairs' or 'shared', got {method!r}")
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
    unique = _unique_matrix(reps, checked, workers, method)
    out: FloatArray = unique[np.ix_(group_of, group_of)]
    np.fill_diagonal(out, 1.0)
    return out


def _unique_matrix(
    trees: Sequence[TsedTree], checked: Costs, workers: int, method: Method = "pairs"
) -> FloatArray:
    """TSED matrix of pairwise distinct trees."""
    fits = [k for k, t in enumerate(trees) if t.left is not None and t.right is not None]
    if method == "shared" or (method == "auto" and _shared_is_cheaper(trees, fits, checked)):
        return _shared_matrix(trees, fits, checked)
    n = len(trees)
    out = np.ones((n, n), dtype=np.float64)
    symmetric = checked[0] == checked[1]
    def row(i: int) -> None:
        a = trees[i]
        for j in range(i + 1, n):
            b = trees[j]
            if a.too_large or b.too_large:
                out[i, j] = out[j, i] = math.nan
                continue
            length = max(a.n_close, b.n_close)
            out[i, j] = tsed_from_distance(_distance(a, b, checked), length)
            if symmetric:
                out[j, i] = out[i, j]
            else:
                out[j, i] = tsed_from_distance(_distance(b, a, checked), length)

    if workers > 1 and n > 2:
        _kernel()  # compile (or load) once, before the threads start
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(row, range(n)))
    else:
        for i in range(n):
            row(i)
    return out


@dataclass(frozen=True)
class _SharedForests:
    """The inputs of ``_shared_source`` for a set of trees (see there), and ``roots``:
    the subtree id of each tree."""

    col_label: IntArray
    col_parent: IndexArray
    col_before: IndexArray
    col_tree: IndexArray
    level_start: IntArray
    level_cut: IntArray
    row_start: IntArray
    row_skip: IntArray
    row_need: IntArray
    row_label: IntArray
    row_tree: IntArray
    row_before: IntArray
    roots: IntArray
    n_subtrees: int
    max_rows: int


def _shared_forests(decs: Sequence[_Decomposition], symmetric: bool) -> _SharedForests:
    """Insert every keyroot subtree of every tree, in postorder, into one trie of forests.

    A forest is a prefix of a keyroot's postorder; it extends its parent forest by one
    node whose subtree starts ``offset`` nodes into the forest, so (parent, label, offset)
    names it. Equal prefixes are one forest, whichever tree or keyroot they come from, and
    a forest that is one tree is one distinct subtree. Keyroots of a tree are increasing
    in postorder, so a node's own subtree has its forest by the time a larger keyroot
    holds it.

    ``symmetric`` (equal insert and delete costs): only ``d(a, b)`` with ``a < b`` is
    needed. The forests of each size go by the last tree that holds them, from the last
    tree down, and a keyroot is compared only with the forests of trees after the first
    tree that holds it. Everything a cell reads (smaller forests and subtrees of the same
    trees) is held by at least those trees, so it is among the forests compared too.
    """
    # label ids numbered 0.. within the set, so the trie's keys stay small
    used, labels = np.unique(np.concatenate([dec.ids for dec in decs]), return_inverse=True)
    labels = labels.astype(np.int64)
    sizes_t = np.array([dec.ids.shape[0] for dec in decs], dtype=np.int64)
    tree_start = np.zeros(len(decs) + 1, dtype=np.int64)
    np.cumsum(sizes_t, out=tree_start[1:])
    keys_t = np.array([dec.keyroots.shape[0] for dec in decs], dtype=np.int64)
    key_start = np.zeros(len(decs) + 1, dtype=np.int64)
    np.cumsum(keys_t, out=key_start[1:])
    leftmost = np.concatenate([dec.leftmost for dec in decs])
    keyroots = np.concatenate([dec.keyroots for dec in decs])
    parent, label, before, last, depth, held, subtree, key_node = _trie_kernel()(
        labels, leftmost, keyroots, tree_start, key_start, max(1, used.shape[0])
    )
    # columns by size, so that every forest a column reads comes before it
    order = np.lexsort((-held, depth) if symmetric else (depth,))
    level_start = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    is_tree = before == 0
    is_tree[0] = False
    tree_id = np.full(order.shape[0], -1, dtype=np.int64)
    tree_id[is_tree] = np.arange(int(is_tree.sum()))
    # rows: distinct keyroot subtrees (the first keyroot that makes each), contained
    # keyroots first, keyroots beginning with the same forest one after the other (they
    # share those rows); a row's "before" is the row of the forest before its subtree
    _, first_q = np.unique(key_node, return_index=True)
    key_tree = np.repeat(np.arange(len(decs), dtype=np.int64), keys_t)
    top = keyroots[first_q] + tree_start[key_tree[first_q]]
    low = leftmost[top] + tree_start[key_tree[first_q]]
    sizes = top - low + 1
    group_first = key_tree[first_q] if symmetric else np.zeros(first_q.shape[0], np.int64)
    plan, row_skip, row_need = _row_plan_kernel()(
        parent, depth, leftmost, keyroots, tree_start, key_start, first_q,
        np.ascontiguousarray(key_node[first_q]), group_first, sizes,
    )
    first_q, top, low, sizes = first_q[plan], top[plan], low[plan], sizes[plan]
    row_start = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=row_start[1:])
    nodes = np.repeat(low - row_start[:-1], sizes) + np.arange(int(row_start[-1]))
    row_label = labels[nodes]
    row_tree = tree_id[subtree[nodes]]
    row_before = leftmost[nodes] - np.repeat(leftmost[low], sizes)
    if symmetric:  # per size, how many forests a later tree than tree m holds
        neg_held = -held[order]
        later = np.arange(len(decs), dtype=np.int64)
        level_cut = np.stack(
            [
                np.searchsorted(neg_held[a:b], -later, side="left")
                for a, b in itertools.pairwise(level_start)
            ],
            axis=1,
        )
    else:
        level_cut = np.diff(level_start)[None, :]
    return _SharedForests(
        col_label=np.ascontiguousarray(label[order]),
        col_parent=np.ascontiguousarray(rank[parent[order]], dtype=np.uint32),
        col_before=np.ascontiguousarray(rank[before[order]], dtype=np.uint32),
        col_tree=np.ascontiguousarray(tree_id[last[order]], dtype=np.uint32),
        level_start=np.ascontiguousarray(level_start, dtype=np.int64),
        level_cut=np.ascontiguousarray(level_cut, dtype=np.int64),
        row_start=row_start,
        row_skip=row_skip,
        row_need=row_need,
        row_label=np.ascontiguousarray(row_label),
        row_tree=np.ascontiguousarray(row_tree),
        row_before=np.ascontiguousarray(row_before),
        roots=tree_id[subtree[tree_start[1:] - 1]],
        n_subtrees=int(is_tree.sum()),
        max_rows=int(sizes.max()) if sizes.shape[0] else 0,
    )


def _work(dec: _Decomposition | None) -> int:
    return 0 if dec is None else dec.work


def _shared_distances(trees: Sequence[TsedTree], costs: Costs) -> FloatArray:
    """``D[a, b]`` = distance from ``trees[a]`` to ``trees[b]``, every ordered pair, all in
    one pass of ``_shared_source`` (trees that fit and are not empty), in the child order
    (left to right or mirrored) with less keyroot work. Pair by pair when the pass would
    need more than ``SHARED_MAX_BYTES``.

    When the costs are multiples of ``1/s`` for a small integer ``s`` (as (1, 1, 1) and
    (1, 0.8, 1) are), the pass adds the integers ``s * cost`` in float32, exactly (every
    sum stays below 2**24), and the result is divided by ``s``: the exact distance,
    where float64 sums of 0.8 carry rounding errors of about 1e-15. Half the memory per
    cell makes the pass about a quarter faster.

    The trees go smallest first: with equal costs a keyroot is compared only with the
    forests of later trees, and over the HumanEval sets this order needs about 3 % fewer
    cells than the input's (the distances do not depend on the order)."""
    order = np.argsort(np.array([t.n_nodes for t in trees], dtype=np.int64), kind="stable")
    back = np.empty_like(order)
    back[order] = np.arange(order.shape[0])
    trees = [trees[k] for k in order]
    mirrored = sum(_work(t.right) for t in trees) < sum(_work(t.left) for t in trees)
    decs = [t.right if mirrored else t.left for t in trees]
    symmetric = costs[0] == costs[1]
    forests = _shared_forests([d for d in decs if d is not None], symmetric)
    n_cols = forests.col_label.shape[0]
    largest = max(t.n_nodes for t in trees)
    scale = _integer_scale(costs, 2 * largest)
    dtype = np.float32 if scale else np.float64
    itemsize = np.dtype(dtype).itemsize
    cells = (forests.max_rows + 1) * n_cols + forests.n_subtrees**2
    if itemsize * cells + forests.level_cut.nbytes > SHARED_MAX_BYTES:
        pairs: FloatArray = _pair_distances(trees, costs)[np.ix_(back, back)]
        return pairs
    td = np.zeros((forests.n_subtrees, forests.n_subtrees), dtype=dtype)
    fd = np.empty((forests.max_rows + 1, n_cols), dtype=dtype)
    cdel, cins, cren = (dtype(round(c * scale)) if scale else dtype(c) for c in costs)
    _shared_kernel()(
        forests.col_label, forests.col_parent, forests.col_before, forests.col_tree,
        forests.level_start, forests.level_cut, forests.row_start, forests.row_skip,
        forests.row_need,
        forests.row_label, forests.row_tree, forests.row_before, cdel, cins, cren, td, fd,
    )
    out: FloatArray = td[np.ix_(forests.roots, forests.roots)].astype(np.float64)
    if scale > 1:
        out /= scale
    if symmetric:  # only a < b was computed
        lower = np.tril_indices(len(trees), -1)
        out[lower] = out.T[lower]
    ordered: FloatArray = out[np.ix_(back, back)]  # back to the input's order
    return ordered


def _integer_scale(costs: Costs, most_nodes: int) -> int:
    """The smallest ``s`` in 1..100 making every cost an integer with sums of up to
    ``most_nodes`` costs exact in float32 (below 2**24); 0 when there is none."""
    for s in range(1, 101):
        scaled = [c * s for c in costs]
        if all(abs(x - round(x)) <= 1e-9 * max(1.0, x) for x in scaled):
            return s if most_nodes * max(scaled) < 2**24 else 0
    return 0


#: Memory the shared pass may take for its two tables; larger sets go pair by pair.
SHARED_MAX_BYTES = 256 * 2**20
#: Cost of a cell of the per-pair tables relative to one of the shared pass (measured:
#: the per-pair tables are small, so loop overhead weighs more).
_PAIR_CELL_COST = 1.5


def _shared_is_cheaper(trees: Sequence[TsedTree], fits: Sequence[int], costs: Costs) -> bool:
    """Whether the shared pass is expected to do less work than the pairs.

    Per pair, Zhang-Shasha fills ``work(a) * work(b)`` cells (the cheaper side); the
    shared pass at most (summed keyroot sizes) x (summed keyroot sizes) over all trees,
    and much less when the trees share subtrees. Only the bound is known before the
    trie is built, so the pass is chosen when even the bound compares well, or when
    the pairs are many.
    """
    if len(fits) < 3:
        return False
    left = np.array([_work(trees[k].left) for k in fits], dtype=np.float64)
    right = np.array([_work(trees[k].right) for k in fits], dtype=np.float64)
    pairs = np.minimum(np.outer(left, left), np.outer(right, right))
    pair_cells = (pairs.sum() - np.trace(pairs)) * (0.5 if costs[0] == costs[1] else 1.0)
    bound = min(left.sum(), right.sum()) ** 2
    return bool(bound < _PAIR_CELL_COST * pair_cells or len(fits) >= 8)


def _tsed_from_distances(distance: FloatArray, length: IntArray) -> FloatArray:
    """``tsed_from_distance`` element-wise."""
    safe = np.where(length > 0, length, 1).astype(np.float64)
    out: FloatArray = np.where(distance > length, 0.0, (safe - distance) / safe)
    out[length <= 0] = 1.0
    out[np.isnan(distance)] = math.nan
    return out


def _shared_matrix(trees: Sequence[TsedTree], fits: Sequence[int], costs: Costs) -> FloatArray:
    """TSED matrix of distinct trees, distances between trees that fit from one shared
    pass; an empty tree costs all of the other's nodes; too large gives NaN."""
    n = len(trees)
    cdel, cins, _ = costs
    nodes = np.array([t.n_nodes for t in trees], dtype=np.float64)
    distance = np.add.outer(nodes * cdel, nodes * cins)  # delete all, insert all
    for k, t in enumerate(trees):
        if t.left is None and not t.too_large:  # empty: nothing to delete or insert
            distance[k, :] = nodes * cins
            distance[:, k] = nodes * cdel
    if fits:
        distance[np.ix_(fits, fits)] = _shared_distances([trees[k] for k in fits], costs)
    large = np.array([bool(t.too_large) for t in trees])
    distance[large, :] = math.nan
    distance[:, large] = math.nan
    close = np.array([t.n_close for t in trees], dtype=np.int64)
    out = _tsed_from_distances(distance, np.maximum.outer(close, close))
    if cdel == cins:  # symmetric costs: the matrix is symmetric to the bit
        upper = np.triu_indices(n, 1)
        out.T[upper] = out[upper]
    np.fill_diagonal(out, 1.0)
    return out


def _pair_distances(trees: Sequence[TsedTree], costs: Costs) -> FloatArray:
    """``_shared_distances`` pair by pair (``_distance``), for sets too large to share."""
    n = len(trees)
    out = np.zeros((n, n), dtype=np.float64)
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = _distance(trees[i], trees[j], costs)
            if costs[0] == costs[1]:
                out[j, i] = out[i, j]
            else:
                out[j, i] = _distance(trees[j], trees[i], costs)
    return out
