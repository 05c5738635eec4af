"""Structural agreement of code versions: subtree symbols, SCE and JSD similarity.

Every sample is parsed once into its full concrete tree (named and anonymous nodes,
comments, ERROR and MISSING nodes). A depth-first walk from the root (depth 1) visits the
nodes down to ``max_depth``; each visited node yields one *symbol*:

- structure-only: ``(type, (child types...))`` (the children of a node at ``max_depth``
  still appear in its symbol, they are just not visited themselves);
- structure+value: the same for inner nodes, and ``(type, (source text,))`` for a leaf.

Counting symbols gives one count vector per sample over a shared vocabulary, i.e. an
``n × V`` integer matrix; all pairwise scores are then matrix operations on it.

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
once instead of one pair at a time.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import numpy.typing as npt
import tree_sitter

from codequorum.parsing import get_language, get_parser, normalize_language, to_bytes

__all__ = [
    "EPS",
    "StructuralMatrices",
    "SubtreeCounts",
    "jsd_similarity_matrix",
    "pair_means",
    "sce_matrix",
    "structural_matrices",
    "subtree_counts",
]

#: Floor for probabilities of symbols absent from one side of a pair.
EPS = 1e-10

FloatMatrix = npt.NDArray[np.float64]
IntMatrix = npt.NDArray[np.int64]

# A symbol as interned here: inner node -> (kind, child kind, ...) of canonical kind ids;
# leaf -> (kind,) for structure-only, (kind, leaf bytes) for structure+value.
SymbolKey = tuple[int, ...] | tuple[int, bytes]


@dataclass(frozen=True)
class SubtreeCounts:
    """Symbol counts of ``n`` samples over a shared vocabulary.

    ``struct`` (``n × V1``) counts structure-only symbols, ``value`` (``n × V2``)
    structure+value symbols; ``syntax_errors[i]`` is the number of ERROR and MISSING
    nodes in sample ``i`` (whole tree, any depth). ``struct_keys`` / ``value_keys`` name
    the columns in interned form; ``symbol_text`` turns one into readable form.
    """

    struct: IntMatrix
    value: IntMatrix
    syntax_errors: list[int]
    struct_keys: list[SymbolKey] = field(repr=False)
    value_keys: list[SymbolKey] = field(repr=False)
    kind_names: tuple[str, ...] = field(repr=False)

    def symbol_text(self, key: SymbolKey) -> tuple[str, tuple[str, ...]]:
        """A key as the reference writes symbols: ``(type, (child types | leaf text,))``."""
        names = self.kind_names
        head = names[int(key[0])]
        if len(key) == 2 and isinstance(key[1], bytes):
            return head, (key[1].decode("utf-8", errors="ignore"),)
        return head, tuple(names[int(k)] for k in key[1:])


@dataclass(frozen=True)
class StructuralMatrices:
    """The four ``n × n`` structural score matrices of a sample set.

    ``M[i, j]`` is the score from sample ``i`` to sample ``j`` (P from row ``i``).
    """

    sce_struct: FloatMatrix
    sce_value: FloatMatrix
    jsd_struct: FloatMatrix
    jsd_value: FloatMatrix
    syntax_errors: list[int]
    jsd_log_base: float = 2.0


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


def _canon_kind(kid: int, canon: tuple[int, ...], extra: dict[int, int], names: list[str]) -> int:
    if kid < len(canon):
        return canon[kid]
    got = extra.get(kid)
    if got is None:  # ERROR (65535) or any id outside the table
        name = "ERROR" if kid == 0xFFFF else f"<kind {kid}>"
        if name in names:
            got = names.index(name)
        else:
            got = len(names)
            names.append(name)
        extra[kid] = got
    return got


def _walk(
    tree: tree_sitter.Tree, src: bytes, max_depth: int
) -> tuple[list[tuple[int, ...]], list[tuple[int, bytes]]]:
    """Raw symbols of one tree: inner-node kind tuples and (kind, text) of leaves.

    Iterative walk with a TreeCursor (no recursion, linear in the tree size). Kind ids are
    raw; the caller canonicalises each distinct symbol once.
    """
    inner: list[tuple[int, ...]] = []
    leaves: list[tuple[int, bytes]] = []
    if max_depth < 1:
        return inner, leaves
    cur = tree.walk()
    first_child = cur.goto_first_child
    next_sibling = cur.goto_next_sibling
    parent = cur.goto_parent
    push_inner = inner.append
    push_leaf = leaves.append
    stack: list[list[int]] = []  # open inner nodes: [kind, child kinds...]
    node: tree_sitter.Node = cur.node  # type: ignore[assignment]
    depth = 1
    while True:
        kind = node.kind_id
        if stack:
            stack[-1].append(kind)
        if first_child():
            if depth < max_depth:
                stack.append([kind])
                depth += 1
                node = cur.node  # type: ignore[assignment]
                continue
            kids = [kind, cur.node.kind_id]  # type: ignore[union-attr]
            while next_sibling():
                kids.append(cur.node.kind_id)  # type: ignore[union-attr]
            parent()
            push_inner(tuple(kids))
        else:
            push_leaf((kind, src[node.start_byte : node.end_byte]))
        while not next_sibling():
            if not stack:
                return inner, leaves
            push_inner(tuple(stack.pop()))
            parent()
            depth -= 1
        node = cur.node  # type: ignore[assignment]


def _count_syntax_errors(tree: tree_sitter.Tree) -> int:
    root = tree.root_node
    if not root.has_error:
        return 0
    count = 0
    cur = tree.walk()
    while True:
        node: tree_sitter.Node = cur.node  # type: ignore[assignment]
        if node.is_error or node.is_missing:
            count += 1
        # only subtrees that contain an error are worth entering
        if (node.has_error or node.is_missing) and cur.goto_first_child():
            continue
        while not cur.goto_next_sibling():
            if not cur.goto_parent():
                return count


def subtree_counts(
    codes: Sequence[str | bytes], language: str, max_depth: int = 30
) -> SubtreeCounts:
    """Count the subtree symbols of each sample (parsed once) over a shared vocabulary.

    ``codes``: sample texts (``bytes`` are taken as UTF-8 as they are); ``language``: a
    name or alias known to ``codequorum.parsing``; ``max_depth``: deepest level visited
    (root = 1, must be >= 1). Returns the ``n × V`` structure-only and structure+value
    count matrices and the syntax-error count of each sample.
    """
    if max_depth < 1:
        raise ValueError(f"max_depth must be >= 1, got {max_depth}")
    lang = normalize_language(language)
    parser = get_parser(lang)
    canon, base_names = _kind_table(lang)
    names = list(base_names)
    extra: dict[int, int] = {}

    inner_col: dict[tuple[int, ...], int] = {}  # canonical inner key -> shared column
    inner_keys: list[SymbolKey] = []
    raw_inner: dict[tuple[int, ...], int] = {}  # raw key -> shared column
    leaf_s_col: dict[tuple[int], int] = {}
    leaf_s_keys: list[SymbolKey] = []
    leaf_v_col: dict[tuple[int, bytes], int] = {}
    leaf_v_keys: list[SymbolKey] = []
    raw_leaf: dict[tuple[int, bytes], tuple[int, int]] = {}

    rows_inner: list[tuple[list[int], list[int]]] = []
    rows_ls: list[tuple[list[int], list[int]]] = []
    rows_lv: list[tuple[list[int], list[int]]] = []
    errors: list[int] = []

    for code in codes:
        src = to_bytes(code)
        tree = parser.parse(src)
        errors.append(_count_syntax_errors(tree))
        inner, leaves = _walk(tree, src, max_depth)

        ic: list[int] = []
        iv: list[int] = []
        for key, cnt in Counter(inner).items():
            col = raw_inner.get(key)
            if col is None:
                ckey = tuple(_canon_kind(k, canon, extra, names) for k in key)
                col = inner_col.get(ckey)
                if col is None:
                    col = inner_col[ckey] = len(inner_keys)
                    inner_keys.append(ckey)
                raw_inner[key] = col
            ic.append(col)
            iv.append(cnt)
        rows_inner.append((ic, iv))

        sc: list[int] = []
        sv: list[int] = []
        vc: list[int] = []
        vv: list[int] = []
        for lkey, cnt in Counter(leaves).items():
            cols = raw_leaf.get(lkey)
            if cols is None:
                ck = _canon_kind(lkey[0], canon, extra, names)
                skey = (ck,)
                scol = leaf_s_col.get(skey)
                if scol is None:
                    scol = leaf_s_col[skey] = len(leaf_s_keys)
                    leaf_s_keys.append(skey)
                vkey = (ck, lkey[1])
                vcol = leaf_v_col.get(vkey)
                if vcol is None:
                    vcol = leaf_v_col[vkey] = len(leaf_v_keys)
                    leaf_v_keys.append(vkey)
                cols = raw_leaf[lkey] = (scol, vcol)
            sc.append(cols[0])
            sv.append(cnt)
            vc.append(cols[1])
            vv.append(cnt)
        rows_ls.append((sc, sv))
        rows_lv.append((vc, vv))

    n = len(errors)
    n_inner = len(inner_keys)
    struct = _fill(n, n_inner, rows_inner, len(leaf_s_keys), rows_ls)
    value = _fill(n, n_inner, rows_inner, len(leaf_v_keys), rows_lv)
    return SubtreeCounts(
        struct=struct,
        value=value,
        syntax_errors=errors,
        struct_keys=inner_keys + leaf_s_keys,
        value_keys=inner_keys + leaf_v_keys,
        kind_names=tuple(names),
    )


def _fill(
    n: int,
    n_inner: int,
    rows_inner: list[tuple[list[int], list[int]]],
    n_leaf: int,
    rows_leaf: list[tuple[list[int], list[int]]],
) -> IntMatrix:
    """Dense ``n × (n_inner + n_leaf)`` counts from per-row (columns, counts) lists."""
    out = np.zeros((n, n_inner + n_leaf), dtype=np.int64)
    for i in range(n):
        cols, cnts = rows_inner[i]
        if cols:
            np.add.at(out[i], np.asarray(cols, dtype=np.intp), np.asarray(cnts, dtype=np.int64))
        lcols, lcnts = rows_leaf[i]
        if lcols:
            np.add.at(
                out[i],
                np.asarray(lcols, dtype=np.intp) + n_inner,
                np.asarray(lcnts, dtype=np.int64),
            )
    return out


# --------------------------------------------------------------------------- matrices


@dataclass
class _Prepared:
    """Per-row quantities and pair products shared by SCE and JSD (natural logs).

    For rows i, j: ``x`` = counts / row total, ``ind`` = support indicator.
    ``k[i, j]`` = |A ∩ B|, ``xi[i, j]`` = sum over A ∩ B of x_i, ``li[i, j]`` = same of
    ln x_i, ``xlxi[i, j]`` = same of x_i ln x_i, ``xly[i, j]`` = sum over A ∩ B of
    x_i ln x_j.
    """

    x: FloatMatrix
    lx: FloatMatrix
    nonempty: npt.NDArray[np.bool_]
    same: npt.NDArray[np.bool_]
    size: FloatMatrix  # |A| per row
    xsum: FloatMatrix
    lsum: FloatMatrix
    xlxsum: FloatMatrix
    k: FloatMatrix
    xi: FloatMatrix
    li: FloatMatrix
    xlxi: FloatMatrix
    xly: FloatMatrix
    shared: npt.NDArray[np.intp]  # columns present in >= 2 rows


def _prepare(counts: npt.ArrayLike) -> _Prepared:
    c = np.asarray(counts)
    if c.ndim != 2:
        raise ValueError(f"counts must be a 2-d (samples × symbols) array, got shape {c.shape}")
    if c.size and (c < 0).any():
        raise ValueError("counts must be non-negative")
    c = c.astype(np.float64, copy=False)
    n = c.shape[0]
    tot = c.sum(axis=1)
    nonempty = tot > 0
    x = c / np.where(nonempty, tot, 1.0)[:, None]
    pos = x > 0
    lx = np.zeros_like(x)
    np.log(x, out=lx, where=pos)
    xlx = x * lx
    ind = pos.astype(np.float64)

    df = pos.sum(axis=0)
    shared = np.flatnonzero(df >= 2)
    if shared.size:
        xs, inds, lxs, xlxs = x[:, shared], ind[:, shared], lx[:, shared], xlx[:, shared]
        left = np.concatenate([xs, inds, lxs, xlxs], axis=0)
        right = np.concatenate([inds, lxs], axis=0)
        prod = left @ right.T
        k = prod[n : 2 * n, :n]
        xi = prod[:n, :n]
        li = prod[2 * n : 3 * n, :n]
        xlxi = prod[3 * n :, :n]
        xly = prod[:n, n:]
    else:
        k = xi = li = xlxi = xly = np.zeros((n, n))
    same = _same_rows(x) & nonempty[:, None] & nonempty[None, :]
    return _Prepared(
        x=x,
        lx=lx,
        nonempty=nonempty,
        same=same,
        size=ind.sum(axis=1),
        xsum=x.sum(axis=1),
        lsum=lx.sum(axis=1),
        xlxsum=xlx.sum(axis=1),
        k=np.array(k),
        xi=np.array(xi),
        li=np.array(li),
        xlxi=np.array(xlxi),
        xly=np.array(xly),
        shared=shared,
    )


def _same_rows(x: FloatMatrix) -> npt.NDArray[np.bool_]:
    """``same[i, j]``: rows i and j hold the identical distribution."""
    n = x.shape[0]
    if n == 0:
        return np.zeros((0, 0), dtype=bool)
    _, inverse = np.unique(x, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    return np.asarray(inverse[:, None] == inverse[None, :])


def _sce(p: _Prepared) -> FloatMatrix:
    inv_ln2 = 1.0 / math.log(2.0)
    log2_eps = math.log2(EPS)
    k_a = p.size[:, None] - p.k  # |A \ B|
    h_q = -p.xlxsum[None, :] * inv_ln2 - k_a * EPS * log2_eps
    h_pq = (
        -p.xly * inv_ln2
        - log2_eps * (p.xsum[:, None] - p.xi)
        - EPS * inv_ln2 * (p.lsum[None, :] - p.li.T)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(h_pq > 0, h_q / np.where(h_pq > 0, h_pq, 1.0), 0.0)
    ok = p.nonempty[:, None] & p.nonempty[None, :]
    out = np.where(ok, out, 0.0)
    out[p.same] = 1.0
    return np.asarray(out, dtype=np.float64)


def _intersection_log_sums(p: _Prepared) -> tuple[FloatMatrix, FloatMatrix]:
    """Per-pair sums over A ∩ B that no matrix product gives.

    ``s1[i, j]`` = sum ln(x_i + x_j), ``s2[i, j]`` = sum x_i ln(x_i + x_j), over the
    symbols both rows contain. Row block i takes the columns of row i (only those shared
    with another row) against rows j > i; outside A ∩ B ln(x_i + 0) = ln x_i, which the
    matrix products remove again.
    """
    n = p.x.shape[0]
    s1 = np.zeros((n, n))
    s2 = np.zeros((n, n))
    if p.shared.size == 0:
        return s1, s2
    xs = np.ascontiguousarray(p.x[:, p.shared])
    lxs = p.lx[:, p.shared]
    for i in range(n - 1):
        cols = np.flatnonzero(xs[i])
        if cols.size == 0:
            continue
        xi = xs[i, cols]
        lxi = lxs[i, cols]
        yb = xs[i + 1 :, cols]
        lb = np.log(yb + xi)
        t1 = lb.sum(axis=1)
        t2 = lb @ xi
        t3 = np.einsum("ij,ij->i", yb, lb)
        own_l = lxi.sum()
        own_xl = float(xi @ lxi)
        j = slice(i + 1, n)
        s1[i, j] = t1 - (own_l - p.li[i, j])
        s1[j, i] = s1[i, j]
        s2[i, j] = t2 - (own_xl - p.xlxi[i, j])
        s2[j, i] = t3
    return s1, s2


def _jsd(p: _Prepared, base: float) -> FloatMatrix:
    """1 - JSD for all ordered pairs, smoothing handled to first order in eps.

    The smoothing constants depend on the pair (|U|, |A \\ B|), so the exact JSD is not a
    matrix product; but every eps-dependent part is tiny and expands exactly to first
    order (remainders O(eps² · n_nodes) ≈ 1e-17 for ordinary code), leaving per-pair sums
    of per-row quantities (matrix products) plus ``_intersection_log_sums``.
    """
    ln2 = math.log(2.0)
    ln_eps = math.log(EPS)
    s1, s2 = _intersection_log_sums(p)
    k_i = p.k
    k_a = p.size[:, None] - k_i
    k_b = p.size[None, :] - k_i
    n_u = k_i + k_a + k_b
    z = 1.0 + n_u * EPS
    d = 1.0 / (1.0 + EPS * k_a)  # Q renormalisation
    gamma = 1.0 - d
    tau = EPS * (1.0 + d)

    # A ∩ B: f(x + eps, y·d + eps) ≈ f(x, y) + eps·lx + eps·ly - gamma·y·ly
    sum_lx = k_i * ln2 + p.li - s1
    sum_ly = k_i * ln2 + p.li.T - s1
    g_x = ln2 * p.xi + p.xlxi - s2
    g_y = ln2 * p.xi.T + p.xlxi.T - s2.T
    both = g_x + g_y + EPS * (sum_lx + sum_ly) - gamma * g_y

    # A \ B: f(x + eps, tau) ≈ (x + eps + tau) ln2 - tau + tau ln tau - tau ln x
    only_a_x = p.xsum[:, None] - p.xi
    only_a_l = p.lsum[:, None] - p.li
    only_a = (
        ln2 * (only_a_x + k_a * (EPS + tau)) - k_a * tau + k_a * tau * np.log(tau) - tau * only_a_l
    )

    # B \ A: f(y·d + eps, eps) ≈ (y·d + 2 eps) ln2 - eps + eps ln eps - eps ln(y·d)
    only_b_y = p.xsum[None, :] - p.xi.T
    only_b_l = p.lsum[None, :] - p.li.T + k_b * np.log(d)
    only_b = (
        ln2 * (d * only_b_y + 2.0 * EPS * k_b) - EPS * k_b + EPS * k_b * ln_eps - EPS * only_b_l
    )

    jsd = (both + only_a + only_b) / (2.0 * z) / math.log(base)
    out = 1.0 - jsd
    ok = p.nonempty[:, None] & p.nonempty[None, :]
    out = np.where(ok, out, 0.0)
    out[p.same] = 1.0
    return np.asarray(out, dtype=np.float64)


def sce_matrix(counts: npt.ArrayLike) -> FloatMatrix:
    """Structural cross-entropy for all ordered pairs of rows of a count matrix.

    ``counts``: ``n × V`` non-negative symbol counts (one row per sample). Returns the
    ``n × n`` matrix ``M[i, j] = SCE(i -> j) = H(Q) / H(P, Q)`` with P from row ``i`` and
    Q from row ``j`` over the union of their symbols, probabilities floored at 1e-10 and
    not renormalised, log base 2; 0 when H(P, Q) <= 0; exactly 1.0 when the two rows have
    the same distribution (the diagonal, for non-empty rows). Pairs involving an all-zero
    row score 0.
    """
    return _sce(_prepare(counts))


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
    return _jsd(_prepare(counts), base)


def structural_matrices(
    codes: Sequence[str | bytes],
    language: str,
    max_depth: int = 30,
    jsd_log_base: float = 2.0,
) -> StructuralMatrices:
    """SCE and JSD-similarity matrices, structure-only and structure+value, of ``codes``.

    Each sample is parsed once (see ``subtree_counts``); the four ``n × n`` matrices are
    computed from the two count matrices (see ``sce_matrix``, ``jsd_similarity_matrix``).
    """
    if not jsd_log_base > 1.0:
        raise ValueError(f"log base must be > 1, got {jsd_log_base}")
    counts = subtree_counts(codes, language, max_depth)
    ps = _prepare(counts.struct)
    pv = _prepare(counts.value)
    return StructuralMatrices(
        sce_struct=_sce(ps),
        sce_value=_sce(pv),
        jsd_struct=_jsd(ps, jsd_log_base),
        jsd_value=_jsd(pv, jsd_log_base),
        syntax_errors=counts.syntax_errors,
        jsd_log_base=jsd_log_base,
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
