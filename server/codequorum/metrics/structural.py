"""Structural agreement of code versions: subtree symbols, SCE and JSD similarity.

Every version is parsed once into its full concrete tree (named and anonymous nodes,
comments, ERROR and MISSING nodes). A depth-first walk from the root (depth 1) visits the
nodes down to ``max_depth``; each visited node yields one *symbol*:

- structure-only: ``(type, (child types...))`` (the children of a node at ``max_depth``
  still appear in its symbol, they are just not visited themselves);
- structure+value: the same for inner nodes, and ``(type, (source text,))`` for a leaf.

Counting symbols gives one count vector per version over a shared vocabulary, i.e. an
``n × V`` integer matrix (``subtree_counts``); all pairwise scores come from it, with no
re-parsing per pair.

For a pair A -> B with counts ``cA``, ``cB`` (totals ``nA``, ``nB``), ``U`` the union of
their symbols and ``eps = 1e-10``:

- SCE(A -> B) = H(Q) / H(P, Q), with P(u) = cA/nA or eps where cA = 0, Q(u) = cB/nB or eps
  where cB = 0 (no renormalisation), H(Q) = -sum_U Q log2 Q, H(P, Q) = -sum_U P log2 Q;
  0 if H(P, Q) <= 0, and exactly 1 when A and B have the same distribution.
- JSD similarity = 1 - JSD(p, q): P = cA/nA, Q = max(cB/nB, eps) / sum; then
  p = (P + eps) / sum, q = (Q + eps) / sum over U; m = (p + q)/2;
  JSD = (KL(p || m) + KL(q || m)) / 2 in the chosen log base (2 by default, so the score
  lies in [0, 1]; base e reproduces the published reference code).

These are the definitions of the published ``code-sce`` package, computed for all pairs at
once instead of one pair at a time. SCE needs only sums over each pair's shared symbols
(H(P, Q) and H(Q) split into A ∩ B, A \\ B, B \\ A parts). The JSD's smoothing depends on
the pair (|U|, |A \\ B|), but only at the 1e-10 level, so it is expanded exactly to first
order in eps (remainder ~1e-17 for ordinary code); what is left is one logarithm per
element of each pair's intersection. Versions with the same distribution are scored once.
The pair sums run in a numba-compiled pass over the non-zero counts (loaded on first use,
cached on disk; ``warm_up`` loads it ahead); the same formulas as array expressions are
the fallback and the cross-check.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import cache
from typing import cast

import numpy as np
import numpy.typing as npt
import tree_sitter
from threadpoolctl import ThreadpoolController

from codequorum.core.parsing import (
    get_language,
    get_parser,
    normalize_language,
    parse_bytes,
    syntax_errors,
    to_bytes,
)

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "EPS",
    "StructuralMatrices",
    "SubtreeCounts",
    "jsd_similarity_matrix",
    "pair_means",
    "sce_matrix",
    "structural_matrices",
    "subtree_counts",
    "warm_up",
]

#: Floor for probabilities of symbols absent from one side of a pair.
EPS = 1e-10

#: The deepest tree level counted unless a run chooses another (``--max-depth``, the
#: editor's ``analysis.maxDepth``): the depth of the published reference values.
DEFAULT_MAX_DEPTH = 30

FloatMatrix = npt.NDArray[np.float64]
IntMatrix = npt.NDArray[np.int64]

# A symbol as interned here: inner node -> (kind, child kind, ...) of canonical kind ids;
# leaf -> (kind,) for structure-only, (kind, leaf bytes) for structure+value.
SymbolKey = tuple[int, ...] | tuple[int, bytes]


@dataclass(frozen=True)
class SubtreeCounts:
    """Symbol counts of ``n`` versions over a shared vocabulary.

    ``struct`` (``n × V1``) counts structure-only symbols, ``value`` (``n × V2``)
    structure+value symbols, columns in order of first appearance in the versions (so the
    same versions give the same matrices whatever the process counted before);
    ``syntax_errors[i]`` is the number of ERROR and MISSING nodes in version ``i`` (whole
    tree, any depth). ``struct_symbols()`` / ``value_symbols()`` name the columns the way
    the reference writes symbols.
    """

    struct: IntMatrix
    value: IntMatrix
    syntax_errors: list[int]
    struct_ids: npt.NDArray[np.intp] = field(repr=False, compare=False)
    value_ids: npt.NDArray[np.intp] = field(repr=False, compare=False)
    vocabulary: _Vocabulary = field(repr=False, compare=False)

    def struct_symbols(self) -> list[tuple[str, tuple[str, ...]]]:
        """Column names of ``struct``: ``(type, (child types...))``."""
        return [self.vocabulary.symbol(int(g)) for g in self.struct_ids]

    def value_symbols(self) -> list[tuple[str, tuple[str, ...]]]:
        """Column names of ``value``: ``(type, (child types...))``, leaves ``(type, (text,))``."""
        return [self.vocabulary.symbol(int(g)) for g in self.value_ids]


@dataclass(frozen=True)
class StructuralMatrices:
    """The four ``n × n`` structural score matrices of a sample set.

    ``M[i, j]`` is the score from version ``i`` to version ``j`` (P from row ``i``).
    """

    sce_struct: FloatMatrix
    sce_value: FloatMatrix
    jsd_struct: FloatMatrix
    jsd_value: FloatMatrix
    syntax_errors: list[int]
    jsd_log_base: float = 2.0
    #: The tree-sitter tree of each version (identical versions share one), so that other
    #: tree metrics (TSED) read the same parse instead of parsing again; None for a version
    #: whose tree was not kept (see ``structural_matrices``' ``parsed``).
    parsed: tuple[tree_sitter.Tree | None, ...] = field(default=(), repr=False, compare=False)


# --------------------------------------------------------------------------- symbols


@cache
def _kind_table(language: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Map raw kind ids to canonical ids (one per type name) and the names.

    Several kind ids can share one type name (aliases, named/anonymous twins); the
    reference compares type names, so symbols are compared on the canonical id.
    """
    lang = get_language(language)
    count = lang.node_kind_count
    names: list[str] = []
    first: dict[str, int] = {}
    canon: list[int] = []
    for kid in range(count):
        name = lang.node_kind_for_id(kid) or ""
        if name not in first:
            first[name] = len(names)
            names.append(name)
        canon.append(first[name])
    return tuple(canon), tuple(names)


def _walk(
    tree: tree_sitter.Tree,
    src: bytes,
    max_depth: int,
    inner_id: Callable[[tuple[int, ...]], int | None],
    new_inner: Callable[[tuple[int, ...]], int],
    leaf_id: Callable[[tuple[int, bytes]], int | None],
    new_leaf: Callable[[tuple[int, bytes]], int],
) -> tuple[list[int], list[int]]:
    """Symbol ids of one tree's visited inner nodes and leaves.

    Iterative walk with a TreeCursor (no recursion, linear in the tree size): one Node
    object per visited node, kinds as integers. Raw symbols are (kind, child kinds...)
    for an inner node and (kind, source bytes) for a leaf, looked up with ``inner_id`` /
    ``leaf_id`` (``new_inner`` / ``new_leaf`` the first time one is seen).
    """
    inner: list[int] = []
    leaves: list[int] = []
    if max_depth < 1:
        return inner, leaves
    cur = tree.walk()
    first_child = cur.goto_first_child
    next_sibling = cur.goto_next_sibling
    parent = cur.goto_parent
    push_inner = inner.append
    push_leaf = leaves.append
    stack: list[list[int]] = []  # enclosing open nodes' [kind, child kinds...]
    push = stack.append
    pop = stack.pop
    kids: list[int] = []  # the open node whose children are being visited
    limit = max_depth - 1  # = len(stack) at the deepest visited level
    node: tree_sitter.Node = cur.node  # type: ignore[assignment]
    while True:
        kind = node.kind_id
        kids.append(kind)
        if first_child():
            if len(stack) < limit:
                push(kids)
                kids = [kind]
                node = cur.node  # type: ignore[assignment]
                continue
            last = [kind, cur.node.kind_id]  # type: ignore[union-attr]
            while next_sibling():
                last.append(cur.node.kind_id)  # type: ignore[union-attr]
            parent()
            push_inner(inner_id(key := tuple(last)) or new_inner(key))
        else:
            push_leaf(
                leaf_id(text := (kind, src[node.start_byte : node.end_byte])) or new_leaf(text)
            )
        while not next_sibling():
            if not stack:
                return inner, leaves
            push_inner(inner_id(key := tuple(kids)) or new_inner(key))
            kids = pop()
            parent()
        node = cur.node  # type: ignore[assignment]


def _count_syntax_errors(tree: tree_sitter.Tree) -> int:
    """ERROR + MISSING nodes anywhere in the tree (one check when there are none)."""
    return len(syntax_errors(tree)) if tree.root_node.has_error else 0


class _Vocabulary:
    """Interned symbols of one language, shared by all calls (and threads).

    Maps raw-kind symbols straight to integer ids of canonical symbols, so a symbol seen
    before costs one dict lookup. Ids start at 1; ``keys[id]`` is the canonical symbol and
    ``struct_of[id]`` the structure-only symbol of a structure+value leaf (itself for
    every other id). New entries are added under a lock; a vocabulary grown past
    ``LIMIT`` is replaced by a fresh one (calls keep the one they started with).
    """

    LIMIT = 200_000

    def __init__(self, language: str) -> None:
        table, names = _kind_table(language)
        self.table = table
        self.names = list(names)
        self.extra: dict[int, int] = {}
        self.lock = threading.Lock()
        self.inner: dict[tuple[int, ...], int] = {}
        self.leaf: dict[tuple[int, bytes], int] = {}
        self.ids: dict[SymbolKey, int] = {}
        self.keys: list[SymbolKey] = [()]
        self.struct_of: list[int] = [0]
        self._struct_table: npt.NDArray[np.int64] = np.zeros(1024, dtype=np.int64)
        self._struct_filled = 1

    def _kind(self, kid: int) -> int:
        if kid < len(self.table):
            return self.table[kid]
        got = self.extra.get(kid)
        if got is None:  # ERROR (65535) or any id outside the grammar's table
            name = "ERROR" if kid == 0xFFFF else f"<kind {kid}>"
            if name in self.names:
                got = self.names.index(name)
            else:
                got = len(self.names)
                self.names.append(name)
            self.extra[kid] = got
        return got

    def _id(self, key: SymbolKey, struct_id: int = 0) -> int:
        got = self.ids.get(key)
        if got is None:
            got = self.ids[key] = len(self.keys)
            self.keys.append(key)
            self.struct_of.append(struct_id or got)
        return got

    def struct_ids(self, ids: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The structure-only symbol of each id (a leaf's kind; any other id itself)."""
        if self._struct_filled < len(self.struct_of):
            with self.lock:  # copy the new entries; grow the array by doubling
                need = len(self.struct_of)
                table = self._struct_table
                if len(table) < need:
                    grown = np.zeros(max(need, 2 * len(table)), dtype=np.int64)
                    grown[: self._struct_filled] = table[: self._struct_filled]
                    table = grown
                table[self._struct_filled : need] = self.struct_of[self._struct_filled : need]
                self._struct_table = table
                self._struct_filled = need
        return self._struct_table[ids]

    def symbol(self, sid: int) -> tuple[str, tuple[str, ...]]:
        """Symbol ``sid`` in readable form (leaf text decoded as the reference does)."""
        key = self.keys[sid]
        names = self.names
        head = names[int(key[0])]
        if len(key) == 2 and isinstance(key[1], bytes):
            return head, (key[1].decode("utf-8", errors="ignore"),)
        return head, tuple(names[int(k)] for k in key[1:])

    def new_inner(self, raw: tuple[int, ...]) -> int:
        """Id of a raw inner symbol not seen before."""
        with self.lock:
            got = self.inner.get(raw)
            if got is None:
                got = self.inner[raw] = self._id(tuple(self._kind(k) for k in raw))
            return got

    def new_leaf(self, raw: tuple[int, bytes]) -> int:
        """Structure+value id of a raw leaf not seen before."""
        with self.lock:
            got = self.leaf.get(raw)
            if got is None:
                kind = self._kind(raw[0])
                sid = self._id((kind,))
                got = self.leaf[raw] = self._id((kind, raw[1]), sid)
            return got


_VOCABS: dict[str, _Vocabulary] = {}


def _vocabulary(language: str) -> _Vocabulary:
    vocab = _VOCABS.get(language)
    if vocab is None or len(vocab.keys) > _Vocabulary.LIMIT:
        vocab = _VOCABS[language] = _Vocabulary(language)
    return vocab


@dataclass
class _Triples:
    """Symbol counts as (row, symbol id, count) triples; struct and value ids aligned.

    A symbol may repeat within a row (one entry per node); consumers sum repeats. The ids
    are the shared vocabulary's, so they depend on what the process counted before:
    consumers number them afresh in order of first appearance (``_first_seen``, the
    kernel) before anything is summed, so results do not, down to the last bit.
    """

    n: int
    rows: npt.NDArray[np.int64]
    struct_ids: npt.NDArray[np.int64]
    value_ids: npt.NDArray[np.int64]
    counts: FloatMatrix
    errors: list[int]
    vocabulary: _Vocabulary
    parsed: list[tree_sitter.Tree | None]


def _first_seen(ids: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``ids`` renumbered 0, 1, ... in order of first appearance, and the id of each number.

    Linear, no sort: a scratch table indexed by id finds each id's first position.
    """
    m = ids.size
    if m == 0:
        return ids.copy(), ids.copy()
    first = np.full(int(ids.max()) + 1, m, dtype=np.int64)
    # ufunc.at is unbuffered, so repeated ids are all seen (plain fancy assignment with
    # repeated indices leaves which write wins unspecified).
    np.minimum.at(first, ids, np.arange(m, dtype=np.int64))
    at = first[ids]
    is_first = np.zeros(m, dtype=np.bool_)
    is_first[at] = True
    number = np.cumsum(is_first, dtype=np.int64) - 1
    return number[at], ids[is_first]


def _count_triples(codes: Sequence[str | bytes], language: str, max_depth: int,
                   given: Sequence[tree_sitter.Tree | None] | None = None) -> _Triples:
    """Parse and walk each version once; count its symbols (see ``subtree_counts``).

    ``given``: a tree per version already parsed, or None where the version is to be parsed
    here; a tree parsed here for such a version is dropped once walked (``parsed`` holds
    None for it), so large versions are not all held at once. Without ``given`` every
    version is parsed here and every tree kept.
    """
    if max_depth < 1:
        raise ValueError(f"max_depth must be >= 1, got {max_depth}")
    if given is not None and len(given) != len(codes):
        raise ValueError(f"{len(given)} parsed trees for {len(codes)} samples")
    lang = normalize_language(language)
    parser = get_parser(lang)
    vocab = _vocabulary(lang)
    inner_get = vocab.inner.get
    leaf_get = vocab.leaf.get
    new_inner = vocab.new_inner
    new_leaf = vocab.new_leaf

    ids: list[int] = []  # per row: inner symbol ids, then leaf (structure+value) ids
    per_row: list[int] = []
    starts: list[int] = []
    errors: list[int] = []
    parsed: list[tree_sitter.Tree | None] = []
    seen: dict[str | bytes, int] = {}  # identical versions (common) are parsed once
    for row, code in enumerate(codes):
        starts.append(len(ids))
        same = seen.setdefault(code, row)
        if same != row:
            ids += ids[starts[same] : starts[same] + per_row[same]]
            per_row.append(per_row[same])
            errors.append(errors[same])
            parsed.append(parsed[same])
            continue
        src = to_bytes(code)
        tree = given[row] if given is not None else None
        parsed.append(tree if given is not None else None)
        if tree is None:
            tree = parse_bytes(parser, src)
            if given is None:
                parsed[-1] = tree
        errors.append(_count_syntax_errors(tree))
        inner, leaves = _walk(tree, src, max_depth, inner_get, new_inner, leaf_get, new_leaf)
        # one entry per visited node; the scoring sums repeats of a symbol in a row
        ids += inner
        ids += leaves
        per_row.append(len(inner) + len(leaves))
    n = len(errors)
    value_ids = np.fromiter(ids, dtype=np.int64, count=len(ids))
    return _Triples(
        n=n,
        rows=np.repeat(np.arange(n, dtype=np.int64), per_row),
        struct_ids=vocab.struct_ids(value_ids),
        value_ids=value_ids,
        counts=np.ones(len(ids)),
        errors=errors,
        vocabulary=vocab,
        parsed=parsed,
    )


def subtree_counts(
    codes: Sequence[str | bytes], language: str, max_depth: int = DEFAULT_MAX_DEPTH
) -> SubtreeCounts:
    """Count the subtree symbols of each version (parsed once) over a shared vocabulary.

    ``codes``: version texts (``bytes`` are taken as UTF-8 as they are); ``language``: a
    name or alias known to ``codequorum.core.parsing``; ``max_depth``: deepest level visited
    (root = 1, must be >= 1). Returns the ``n × V`` structure-only and structure+value
    count matrices and the syntax-error count of each sample.
    """
    return _dense_counts(_count_triples(codes, language, max_depth))


def _dense_counts(t: _Triples) -> SubtreeCounts:
    """Dense count matrices (only the columns used, in order of first appearance) from triples."""
    struct_local, struct_vocab = _first_seen(t.struct_ids)
    value_local, value_vocab = _first_seen(t.value_ids)
    struct, struct_cols = _fill(t.n, t.rows, struct_local, t.counts)
    value, value_cols = _fill(t.n, t.rows, value_local, t.counts)
    return SubtreeCounts(
        struct=struct,
        value=value,
        syntax_errors=t.errors,
        struct_ids=struct_vocab[struct_cols].astype(np.intp),
        value_ids=value_vocab[value_cols].astype(np.intp),
        vocabulary=t.vocabulary,
    )


def _fill(
    n: int, rows: npt.NDArray[np.int64], ids: npt.NDArray[np.int64], counts: FloatMatrix
) -> tuple[IntMatrix, npt.NDArray[np.intp]]:
    """Dense ``n × V`` counts from (row, symbol id, count) triples, and the column ids.

    Two raw symbols of a row can share one canonical id, so triples are summed
    (``bincount``; float64 sums of integers are exact far beyond any tree size).
    """
    uniq, col = np.unique(ids, return_inverse=True)
    width = len(uniq)
    summed = np.bincount(rows * width + col.reshape(-1), weights=counts, minlength=n * width)
    return summed.astype(np.int64).reshape(n, width), uniq.astype(np.intp)


# --------------------------------------------------------------------------- matrices


_controller: ThreadpoolController | None = None


def _single_blas_thread(work: int) -> AbstractContextManager[object]:
    """Run large products on one BLAS thread.

    The products here are a few milliseconds at most; a multi-threaded BLAS spends more
    than that waking and spinning threads, and far more when scoring runs in several
    processes on few cores (measured: 3-5x the CPU time). Small products stay as they are.
    """
    global _controller
    if work < 250_000:
        return nullcontext()
    if _controller is None:
        _controller = ThreadpoolController()
    limited: AbstractContextManager[object] = _controller.limit(limits=1, user_api="blas")
    return limited


@dataclass
class _Prepared:
    """What the pair scores need, over the *distinct* distributions only.

    ``inverse`` maps each version to its distinct row. Per distinct row i (``x`` = counts /
    total, A its support): ``size`` = |A|, ``xsum`` = sum x, ``lsum`` = sum ln x,
    ``xlxsum`` = sum x ln x. The non-zero entries of the columns present in at least two
    rows, column by column with rows ascending: ``col_start`` (offsets), ``rows``,
    ``vals`` (x), ``lvals`` (ln x). Symbols found in one row only never meet another row,
    so per-row sums and these entries determine every pair.
    """

    inverse: npt.NDArray[np.intp]
    x: FloatMatrix
    nonempty: npt.NDArray[np.bool_]
    size: FloatMatrix
    xsum: FloatMatrix
    lsum: FloatMatrix
    xlxsum: FloatMatrix
    shared: npt.NDArray[np.intp]
    col_start: npt.NDArray[np.intp]
    rows: npt.NDArray[np.intp]
    vals: FloatMatrix
    lvals: FloatMatrix


def _wsum(index: npt.NDArray[np.intp], weights: FloatMatrix, size: int) -> FloatMatrix:
    """Sums of ``weights`` grouped by ``index`` (0 .. size-1)."""
    return np.bincount(index, weights=weights, minlength=size).astype(np.float64, copy=False)


def _checked(counts: npt.ArrayLike) -> FloatMatrix:
    """``counts`` as a float64 (versions × symbols) array, or a clear ``ValueError``."""
    c = np.asarray(counts)
    if c.ndim != 2:
        raise ValueError(f"counts must be a 2-d (samples × symbols) array, got shape {c.shape}")
    if not (np.issubdtype(c.dtype, np.integer) or np.issubdtype(c.dtype, np.floating)):
        raise ValueError(f"counts must be numeric, got dtype {c.dtype}")
    c = c.astype(np.float64, copy=False)
    if c.size and not (np.isfinite(c).all() and (c >= 0).all()):
        raise ValueError("counts must be finite and non-negative")
    return c


def _prepare(counts: npt.ArrayLike, check: bool = True) -> _Prepared:
    c = _checked(counts) if check else np.asarray(counts, dtype=np.float64)
    tot = c.sum(axis=1)
    x_all = c / np.where(tot > 0, tot, 1.0)[:, None]
    # Equal rationals give equal correctly rounded quotients: bit-equal rows of x are
    # exactly the versions with the same distribution. Score each distinct one once.
    group: dict[bytes, int] = {}
    inverse = np.fromiter(
        (group.setdefault(r.tobytes(), len(group)) for r in x_all),
        dtype=np.intp,
        count=len(x_all),
    )
    first = np.zeros(len(group), dtype=np.intp)
    first[inverse[::-1]] = np.arange(len(inverse))[::-1]
    x = x_all[first]
    n, width = x.shape
    r, col = np.nonzero(x)  # row-major
    v = x[r, col]
    lv = np.log(v)
    size = np.bincount(r, minlength=n).astype(np.float64)
    xsum = _wsum(r, v, n)
    lsum = _wsum(r, lv, n)
    xlxsum = _wsum(r, v * lv, n)
    df = np.bincount(col, minlength=width)
    keep = df[col] >= 2
    ck = col[keep]
    order = np.argsort(ck, kind="stable")  # column-major, rows stay ascending
    per_col = df[df >= 2]
    col_start = np.zeros(len(per_col) + 1, dtype=np.intp)
    np.cumsum(per_col, out=col_start[1:])
    return _Prepared(
        inverse=inverse,
        x=x,
        nonempty=tot[first] > 0,
        size=size,
        xsum=xsum,
        lsum=lsum,
        xlxsum=xlxsum,
        shared=np.flatnonzero(df >= 2),
        col_start=col_start,
        rows=np.ascontiguousarray(r[keep][order], dtype=np.intp),
        vals=np.ascontiguousarray(v[keep][order]),
        lvals=np.ascontiguousarray(lv[keep][order]),
    )


def _expand(p: _Prepared, m: FloatMatrix) -> FloatMatrix:
    """Distinct-row scores -> version scores; 1.0 for equal distributions, 0 if empty."""
    ok = p.nonempty[:, None] & p.nonempty[None, :]
    m = np.where(ok, m, 0.0)
    np.fill_diagonal(m, np.where(p.nonempty, 1.0, 0.0))
    inv = p.inverse
    return np.ascontiguousarray(m[inv[:, None], inv[None, :]], dtype=np.float64)


# The pair formulas, in terms of sums over A ∩ B (natural logs, eps = EPS):
#   k = |A ∩ B|; xi[i, j] = Σ x_i; li[i, j] = Σ ln x_i; xlxi[i, j] = Σ x_i ln x_i;
#   xly[i, j] = Σ x_i ln x_j; s1 = Σ ln(x_i + x_j); s2[i, j] = Σ x_i ln(x_i + x_j).
#
# SCE(i -> j), exact: with k_a = |A \ B|,
#   H(Q)    = -Σ_B x_j log2 x_j - k_a eps log2 eps
#   H(P, Q) = -Σ_{A∩B} x_i log2 x_j - log2 eps Σ_{A\B} x_i - eps Σ_{B\A} log2 x_j
#
# JSD(i -> j): the smoothing constants depend on the pair (|U|, |A \ B|), so the JSD is
# not a product of per-row terms; but every eps-dependent part is tiny and expands
# exactly to first order (remainders O(eps² · n_nodes) ≈ 1e-17 for ordinary code). With
# f(p, q) = p ln(2p/(p+q)) + q ln(2q/(p+q)), Z = 1 + |U| eps, d = 1/(1 + eps k_a),
# gamma = 1 - d, tau = eps (1 + d):
#   2 Z JSD = Σ_{A∩B} f(x + eps, y d + eps) + Σ_{A\B} f(x + eps, tau) + Σ_{B\A} f(eps, y d + eps)
#   A∩B: f(x, y) + eps (ln(2x/(x+y)) + ln(2y/(x+y))) - gamma y ln(2y/(x+y))
#   A\B: (x + eps + tau) ln 2 - tau + tau ln tau - tau ln x
#   B\A: (y d + 2 eps) ln 2 - eps + eps ln eps - eps ln(y d)


def _pair_sums_numpy(
    p: _Prepared,
) -> tuple[
    FloatMatrix, FloatMatrix, FloatMatrix, FloatMatrix, FloatMatrix, FloatMatrix, FloatMatrix
]:
    """(k, xi, li, xlxi, xly, s1, s2) for all pairs, with numpy (no compiler needed)."""
    n = p.x.shape[0]
    zero = np.zeros((n, n))
    if p.rows.size == 0:
        return zero, zero, zero, zero, zero, zero, zero
    xs = p.x[:, p.shared]
    pos = xs > 0
    lx = np.zeros_like(xs)
    np.log(xs, out=lx, where=pos)
    left = np.concatenate([xs, pos.astype(np.float64), lx, xs * lx])
    with _single_blas_thread(n * n * p.shared.size):
        prod = left @ left[n : 2 * n].T
        xly = xs @ lx.T
    xi, k, li, xlxi = prod[:n], prod[n : 2 * n], prod[2 * n : 3 * n], prod[3 * n :]
    # every entry paired with the later entries of its column: each element of each
    # intersection once, for i < j
    col_of = np.repeat(np.arange(len(p.col_start) - 1), np.diff(p.col_start))
    idx = np.arange(p.rows.size)
    later = p.col_start[col_of + 1] - idx - 1
    start = np.cumsum(later) - later
    first = np.repeat(idx, later)
    second = np.arange(first.size) + np.repeat(idx + 1 - start, later)
    xa = p.vals[first]
    xb = p.vals[second]
    pair = p.rows[first] * n + p.rows[second]
    lg = np.log(xa + xb)
    s1 = _wsum(pair, lg, n * n).reshape(n, n)
    s2a = _wsum(pair, xa * lg, n * n).reshape(n, n)
    s2b = _wsum(pair, xb * lg, n * n).reshape(n, n)
    return k, xi, li, xlxi, xly, s1 + s1.T, s2a + s2b.T


def _scores_numpy(p: _Prepared, log_base: float) -> tuple[FloatMatrix, FloatMatrix]:
    """(SCE, 1 - JSD) over the distinct rows, as array expressions."""
    k, xi, li, xlxi, xly, s1, s2 = _pair_sums_numpy(p)
    inv_ln2 = 1.0 / math.log(2.0)
    log2_eps = math.log2(EPS)
    ln2 = math.log(2.0)
    ln_eps = math.log(EPS)
    k_a = p.size[:, None] - k
    k_b = p.size[None, :] - k

    h_q = -p.xlxsum[None, :] * inv_ln2 - k_a * EPS * log2_eps
    h_pq = (
        -xly * inv_ln2
        - log2_eps * (p.xsum[:, None] - xi)
        - EPS * inv_ln2 * (p.lsum[None, :] - li.T)
    )
    pos = h_pq > 0
    sce = np.where(pos, h_q / np.where(pos, h_pq, 1.0), 0.0)

    z = 1.0 + (k + k_a + k_b) * EPS
    d = 1.0 / (1.0 + EPS * k_a)
    gamma = 1.0 - d
    tau = EPS * (1.0 + d)
    sum_lx = k * ln2 + li - s1
    sum_ly = k * ln2 + li.T - s1
    g_x = ln2 * xi + xlxi - s2
    g_y = ln2 * xi.T + xlxi.T - s2.T
    both = g_x + g_y + EPS * (sum_lx + sum_ly) - gamma * g_y
    only_a = (
        ln2 * (p.xsum[:, None] - xi + k_a * (EPS + tau))
        - k_a * tau
        + k_a * tau * np.log(tau)
        - tau * (p.lsum[:, None] - li)
    )
    only_b = (
        ln2 * (d * (p.xsum[None, :] - xi.T) + 2.0 * EPS * k_b)
        - EPS * k_b
        + EPS * k_b * ln_eps
        - EPS * (p.lsum[None, :] - li.T + k_b * np.log(d))
    )
    jsd = 1.0 - (both + only_a + only_b) / (2.0 * z) / math.log(log_base)
    return np.asarray(sce, dtype=np.float64), np.asarray(jsd, dtype=np.float64)


def _triples_kernel_source(
    n: int,
    rows: npt.NDArray[np.int64],
    ids: npt.NDArray[np.int64],
    counts: FloatMatrix,
    ln_base: float,
) -> tuple[FloatMatrix, FloatMatrix]:  # pragma: no cover - runs compiled
    """(SCE, 1 - JSD) for all ordered pairs of ``n`` versions from (row, symbol, count).

    Compiled by numba: the same formulas as ``_scores_numpy``, without a dense matrix.
    Entries come with rows ascending; repeats of a (row, symbol) are summed. Symbols are
    first numbered in order of first appearance (so the summation order, hence the last
    bits, depend on the versions only, not on the ids a shared vocabulary gave them). One
    counting sort puts the entries by symbol, rows ascending; each row's list is then read
    off in symbol order, versions with equal (symbol, share) lists share one distinct row,
    and each entry of a distinct row is paired with the later distinct rows holding the
    same symbol (one log per element of each intersection); each ordered pair's scores
    follow from those sums and the per-row sums.
    """
    m0 = rows.shape[0]
    lo = ids.min() if m0 else 0
    span = (ids.max() - lo + 1) if m0 else 1
    number = np.full(span, -1, dtype=np.int64)  # id -> number, by first appearance
    local = np.empty(m0, dtype=np.int64)
    used = 0
    for a in range(m0):
        v = ids[a] - lo
        if number[v] < 0:
            number[v] = used
            used += 1
        local[a] = number[v]
    ids = local
    # stable counting sort by symbol: rows (given ascending) stay ascending
    pos = np.zeros(used + 1, dtype=np.int64)
    for a in range(m0):
        pos[ids[a] + 1] += 1
    for v in range(used):
        pos[v + 1] += pos[v]
    order = np.empty(m0, dtype=np.int64)
    for a in range(m0):
        v = ids[a]
        order[pos[v]] = a
        pos[v] += 1
    e_sym = np.empty(m0, dtype=np.int64)
    e_row = np.empty(m0, dtype=np.int64)
    e_cnt = np.empty(m0)
    w = -1
    for a in range(m0):  # by symbol, then row; repeats merged
        o = order[a]
        if w >= 0 and e_sym[w] == ids[o] and e_row[w] == rows[o]:
            e_cnt[w] += counts[o]
        else:
            w += 1
            e_sym[w] = ids[o]
            e_row[w] = rows[o]
            e_cnt[w] = counts[o]
    m = w + 1
    tot = np.zeros(n)
    start = np.zeros(n + 1, dtype=np.int64)
    for a in range(m):
        tot[e_row[a]] += e_cnt[a]
        start[e_row[a] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    e_x = np.empty(m)
    e_l = np.empty(m)
    for a in range(m):
        e_x[a] = e_cnt[a] / tot[e_row[a]]
        e_l[a] = math.log(e_x[a])
    # each row's entries in symbol order
    fill = start[:n].copy()
    r_sym = np.empty(m, dtype=np.int64)
    r_x = np.empty(m)
    for a in range(m):
        i = e_row[a]
        r_sym[fill[i]] = e_sym[a]
        r_x[fill[i]] = e_x[a]
        fill[i] += 1

    # distinct distributions (bit-equal shares of the same symbols)
    rep = np.empty(n, dtype=np.int64)
    reps = np.empty(n, dtype=np.int64)
    nd = 0
    for i in range(n):
        found = -1
        length = start[i + 1] - start[i]
        for q in range(nd):
            j = reps[q]
            if start[j + 1] - start[j] != length:
                continue
            same = True
            for t in range(length):
                if (
                    r_sym[start[i] + t] != r_sym[start[j] + t]
                    or r_x[start[i] + t] != r_x[start[j] + t]
                ):
                    same = False
                    break
            if same:
                found = q
                break
        if found < 0:
            reps[nd] = i
            rep[i] = nd
            nd += 1
        else:
            rep[i] = found
    is_rep = np.zeros(n, dtype=np.bool_)
    for q in range(nd):
        is_rep[reps[q]] = True

    # per distinct row: |A|, sum x, sum ln x, sum x ln x
    size = np.zeros(nd)
    xsum = np.zeros(nd)
    lsum = np.zeros(nd)
    xlxsum = np.zeros(nd)
    for a in range(m):
        i = e_row[a]
        if is_rep[i]:
            q = rep[i]
            size[q] += 1.0
            xsum[q] += e_x[a]
            lsum[q] += e_l[a]
            xlxsum[q] += e_x[a] * e_l[a]

    # sums over each pair's intersection (distinct rows ascending within a symbol)
    k = np.zeros((nd, nd))
    xi = np.zeros((nd, nd))
    li = np.zeros((nd, nd))
    xlxi = np.zeros((nd, nd))
    xly = np.zeros((nd, nd))
    s1 = np.zeros((nd, nd))
    s2 = np.zeros((nd, nd))
    a0 = 0
    while a0 < m:
        sym = e_sym[a0]
        a1 = a0 + 1
        while a1 < m and e_sym[a1] == sym:
            a1 += 1
        for a in range(a0, a1):
            if not is_rep[e_row[a]]:
                continue
            i = rep[e_row[a]]
            xa = e_x[a]
            la = e_l[a]
            for b in range(a + 1, a1):
                if not is_rep[e_row[b]]:
                    continue
                j = rep[e_row[b]]
                xb = e_x[b]
                lb = e_l[b]
                lg = math.log(xa + xb)
                k[i, j] += 1.0
                xi[i, j] += xa
                xi[j, i] += xb
                li[i, j] += la
                li[j, i] += lb
                xlxi[i, j] += xa * la
                xlxi[j, i] += xb * lb
                xly[i, j] += xa * lb
                xly[j, i] += xb * la
                s1[i, j] += lg
                s2[i, j] += xa * lg
                s2[j, i] += xb * lg
        a0 = a1

    # scores of each ordered pair of distinct rows
    inv_ln2 = 1.0 / math.log(2.0)
    log2_eps = math.log2(EPS)
    ln2 = math.log(2.0)
    ln_eps = math.log(EPS)
    sce_d = np.zeros((nd, nd))
    jsd_d = np.zeros((nd, nd))
    for i in range(nd):
        for j in range(nd):
            if i == j:
                continue
            kk = k[i, j] if i < j else k[j, i]
            ss1 = s1[i, j] if i < j else s1[j, i]
            k_a = size[i] - kk
            k_b = size[j] - kk
            h_q = -xlxsum[j] * inv_ln2 - k_a * EPS * log2_eps
            h_pq = (
                -xly[i, j] * inv_ln2
                - log2_eps * (xsum[i] - xi[i, j])
                - EPS * inv_ln2 * (lsum[j] - li[j, i])
            )
            sce_d[i, j] = h_q / h_pq if h_pq > 0 else 0.0
            z = 1.0 + (kk + k_a + k_b) * EPS
            d = 1.0 / (1.0 + EPS * k_a)
            gamma = 1.0 - d
            tau = EPS * (1.0 + d)
            g_x = ln2 * xi[i, j] + xlxi[i, j] - s2[i, j]
            g_y = ln2 * xi[j, i] + xlxi[j, i] - s2[j, i]
            both = (
                g_x + g_y + EPS * (2.0 * kk * ln2 + li[i, j] + li[j, i] - 2.0 * ss1) - gamma * g_y
            )
            only_a = (
                ln2 * (xsum[i] - xi[i, j] + k_a * (EPS + tau))
                - k_a * tau
                + k_a * tau * math.log(tau)
                - tau * (lsum[i] - li[i, j])
            )
            only_b = (
                ln2 * (d * (xsum[j] - xi[j, i]) + 2.0 * EPS * k_b)
                - EPS * k_b
                + EPS * k_b * ln_eps
                - EPS * (lsum[j] - li[j, i] + k_b * math.log(d))
            )
            jsd_d[i, j] = 1.0 - (both + only_a + only_b) / (2.0 * z) / ln_base

    # back to versions: equal distributions 1.0, empty versions 0
    sce = np.empty((n, n))
    jsd = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            if tot[i] <= 0.0 or tot[j] <= 0.0:
                sce[i, j] = 0.0
                jsd[i, j] = 0.0
            elif rep[i] == rep[j]:
                sce[i, j] = 1.0
                jsd[i, j] = 1.0
            else:
                sce[i, j] = sce_d[rep[i], rep[j]]
                jsd[i, j] = jsd_d[rep[i], rep[j]]
    return sce, jsd


_TriplesKernel = Callable[
    [int, npt.NDArray[np.int64], npt.NDArray[np.int64], FloatMatrix, float],
    tuple[FloatMatrix, FloatMatrix],
]


_KERNEL_LOCK = threading.Lock()


def warm_up() -> bool:
    """Load (or compile, the first time on a machine) the compiled scoring kernel now.

    Scoring loads it on first use: about a second from the on-disk cache, several
    seconds the very first time. Long-running callers (the language server) can call
    this early, e.g. in a background thread. Returns whether the compiled path is used.
    """
    kernel = _kernel()
    if kernel is None:
        return False
    kernel(
        1,
        np.zeros(1, dtype=np.int64),
        np.ones(1, dtype=np.int64),
        np.ones(1),
        math.log(2.0),
    )
    return True


@cache
def _kernel() -> _TriplesKernel | None:
    """``_triples_kernel_source`` compiled by numba on first use (importing numba takes a
    while, so callers that never score do not pay for it), cached on disk where a cache
    directory is writable; ``None`` if numba is unavailable (the numpy path is used)."""
    with _KERNEL_LOCK:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is a pinned dependency
            return None
        try:
            compiled = numba.njit(cache=True, nogil=True)(_triples_kernel_source)
        except RuntimeError:  # no writable cache location
            compiled = numba.njit(nogil=True)(_triples_kernel_source)
        return cast(_TriplesKernel, compiled)


#: Set to False to score with numpy only (same formulas; used to cross-check).
USE_COMPILED = True


def _scores_dense(counts: npt.ArrayLike, log_base: float) -> tuple[FloatMatrix, FloatMatrix]:
    """(SCE, 1 - JSD) for all ordered pairs of rows of a dense count matrix."""
    kernel = _kernel() if USE_COMPILED else None
    if kernel is None:
        p = _prepare(counts)
        sce, jsd = _scores_numpy(p, log_base)
        return _expand(p, sce), _expand(p, jsd)
    c = _checked(counts)
    rows, cols = np.nonzero(c)
    return kernel(
        c.shape[0],
        rows.astype(np.int64),
        cols.astype(np.int64),
        np.ascontiguousarray(c[rows, cols], dtype=np.float64),
        math.log(log_base),
    )


def sce_matrix(counts: npt.ArrayLike) -> FloatMatrix:
    """Structural cross-entropy for all ordered pairs of rows of a count matrix.

    ``counts``: ``n × V`` non-negative symbol counts (one row per version). Returns the
    ``n × n`` matrix ``M[i, j] = SCE(i -> j) = H(Q) / H(P, Q)`` with P from row ``i`` and
    Q from row ``j`` over the union of their symbols, probabilities floored at 1e-10 and
    not renormalised, log base 2; 0 when H(P, Q) <= 0; exactly 1.0 when the two rows have
    the same distribution (the diagonal, for non-empty rows). Pairs involving an all-zero
    row score 0.
    """
    return _scores_dense(counts, 2.0)[0]


def jsd_similarity_matrix(counts: npt.ArrayLike, base: float = 2.0) -> FloatMatrix:
    """Jensen-Shannon similarity ``1 - JSD`` for all ordered pairs of rows.

    ``counts``: ``n × V`` non-negative symbol counts. ``M[i, j]`` uses P = row ``i`` / total,
    Q = max(row ``j`` / total, 1e-10) renormalised over the pair's union of symbols, then
    1e-10 added to both and renormalised (the published definition; the smoothing makes it
    very slightly asymmetric). ``base``: logarithm base of the divergence; 2 keeps the
    score in [0, 1], ``math.e`` reproduces the published reference code. Exactly 1.0 for
    identical distributions; pairs involving an all-zero row score 0.
    """
    if not base > 1.0:
        raise ValueError(f"log base must be > 1, got {base}")
    return _scores_dense(counts, base)[1]


def structural_matrices(
    codes: Sequence[str | bytes],
    language: str,
    max_depth: int = DEFAULT_MAX_DEPTH,
    jsd_log_base: float = 2.0,
    parsed: Sequence[tree_sitter.Tree | None] | None = None,
) -> StructuralMatrices:
    """SCE and JSD-similarity matrices, structure-only and structure+value, of ``codes``.

    Each version is parsed once (see ``subtree_counts``); the four ``n × n`` matrices are
    computed from the two count matrices (see ``sce_matrix``, ``jsd_similarity_matrix``).
    ``parsed`` gives a tree per version already parsed (None: parse it here, and do not keep
    the tree); the result's ``parsed`` holds the trees kept.
    """
    if not jsd_log_base > 1.0:
        raise ValueError(f"log base must be > 1, got {jsd_log_base}")
    t = _count_triples(codes, language, max_depth, parsed)
    kernel = _kernel() if USE_COMPILED else None
    if kernel is None:
        counts = _dense_counts(t)
        sce_s, jsd_s = _scores_dense(counts.struct, jsd_log_base)
        sce_v, jsd_v = _scores_dense(counts.value, jsd_log_base)
    else:
        ln_base = math.log(jsd_log_base)
        sce_s, jsd_s = kernel(t.n, t.rows, t.struct_ids, t.counts, ln_base)
        sce_v, jsd_v = kernel(t.n, t.rows, t.value_ids, t.counts, ln_base)
    return StructuralMatrices(
        sce_struct=sce_s,
        sce_value=sce_v,
        jsd_struct=jsd_s,
        jsd_value=jsd_v,
        syntax_errors=t.errors,
        jsd_log_base=jsd_log_base,
        parsed=tuple(t.parsed),
    )


def pair_means(m: npt.ArrayLike) -> tuple[float, float]:
    """Means of a pairwise score matrix: (over ordered pairs i != j, over pairs i < j).

    NaN for fewer than two samples.
    """
    a = np.asarray(m, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {a.shape}")
    n = a.shape[0]
    if n < 2:
        return math.nan, math.nan
    off = ~np.eye(n, dtype=bool)
    iu = np.triu_indices(n, k=1)
    return float(a[off].mean()), float(a[iu].mean())
