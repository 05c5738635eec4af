"""Every pairwise metric of a report, declared once, and the scalar figures shown beside.

One :class:`PairMetric` per matrix a report can carry: its summary key, the words every
front end shows, whether it is a similarity or a distance, the languages it applies to,
whether it is computed by default, how it is computed from the set's shared work
(:class:`Prepared`, built lazily once: one parse and one count of subtrees for the four
structural matrices, one tree build for both TSED cost settings), its row of
docs/metrics.md and where the renderers show it (:class:`Show`). The analysis computes the
metrics in this order; the table, CSV and JSON keys, the HTML report, the hover and the
docs are read from here. :data:`SCALAR_FIGURES` does the same for single figures
(textual and behaviour) the renderers show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal, TypeVar

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import tree_sitter

    from codequorum.metrics.structural import StructuralMatrices
    from codequorum.metrics.tree_edit import TsedTree

FloatMatrix = npt.NDArray[np.float64]
Direction = Literal["similarity", "distance"]

#: TSED's published costs (insert, delete, rename), used by ``tsed_08``.
PUBLISHED_TSED_COSTS = (1.0, 0.8, 1.0)


@dataclass(frozen=True)
class Show:
    """Where a figure is shown, each a rank among that renderer's figures (None: not
    shown there): ``table`` column, ``drop`` (columns left out first on a narrow terminal
    have a lower rank; ranked together with the table's other columns), ``html`` column and
    histogram, ``hover`` line (with ``hover_label``, shorter than ``label``)."""

    table: int | None = None
    drop: int | None = None
    html: int | None = None
    hover: int | None = None
    hover_label: str | None = None


@dataclass
class Prepared:
    """The shared work of one set, built on first use: the versions' ``codes`` in
    ``language``, the trees already parsed (``parsed``) and the settings the metrics read."""

    codes: Sequence[str]
    language: str
    max_depth: int
    jsd_log_base: float = 2.0
    tsed_costs: tuple[float, float, float] = (1.0, 1.0, 1.0)
    parsed: Sequence[tree_sitter.Tree | None] | None = None

    @cached_property
    def structural(self) -> StructuralMatrices:
        """The four structural matrices, from one count of subtrees."""
        from codequorum.metrics.structural import structural_matrices

        return structural_matrices(self.codes, self.language, max_depth=self.max_depth,
                                   jsd_log_base=self.jsd_log_base, parsed=self.parsed)

    @cached_property
    def tsed_trees(self) -> list[TsedTree]:
        """The trees TSED compares, built once for every cost setting."""
        from codequorum.metrics.tree_edit import build_trees

        return build_trees(self.codes, self.language, parsed=self.structural.parsed)


def _structural(name: str) -> Callable[[Prepared], FloatMatrix]:
    def compute(p: Prepared) -> FloatMatrix:
        return np.asarray(getattr(p.structural, name), dtype=np.float64)
    return compute


def _tsed(costs: tuple[float, float, float] | None) -> Callable[[Prepared], FloatMatrix]:
    def compute(p: Prepared) -> FloatMatrix:
        from codequorum.metrics.tree_edit import tsed_tree_matrix

        return np.asarray(tsed_tree_matrix(p.tsed_trees, costs=costs or p.tsed_costs),
                          dtype=np.float64)
    return compute


@dataclass(frozen=True)
class PairMetric:
    """One pairwise metric: ``key`` (summary, JSON, CSV ``<key>_ordered``/``_unordered``,
    matrices), ``label`` (table and HTML column), ``title`` (the matrix's name in the
    editor's report), ``direction``, ``languages`` (None: every language), ``optional``
    (a run chooses it by its key, see :data:`METRIC_CHOICES`; else always computed),
    ``default`` (an optional metric chosen when a run names none), ``compute``, ``doc``
    and ``reference`` (its row of docs/metrics.md)."""

    key: str
    label: str
    title: str
    direction: Direction
    compute: Callable[[Prepared], FloatMatrix]
    doc: str
    reference: str
    languages: frozenset[str] | None = None
    optional: bool = False
    default: bool = True
    show: Show = field(default_factory=Show)

    def applies(self, language: str) -> bool:
        """Whether the metric is defined for ``language``."""
        return self.languages is None or language in self.languages

    def wanted(self, chosen: Iterable[str]) -> bool:
        """Whether a run that chose the optional metrics ``chosen`` computes it."""
        return not self.optional or self.key in chosen


#: Pairwise metrics, in the order the analysis computes them and CSV and JSON list them.
PAIR_METRICS: tuple[PairMetric, ...] = (
    PairMetric(
        "sce_struct", "SCE struct", "Structural cross-entropy", "similarity",
        _structural("sce_struct"),
        "structural cross-entropy `H(Q)/H(P,Q)` of the distributions of syntax-tree subtrees, "
        "structure only (node types)", "`code-sce` 0.1.0, to 1e-9",
        show=Show(table=0, drop=2, html=2, hover=1, hover_label="SCE")),
    PairMetric(
        "sce_value", "SCE value", "Structural cross-entropy with names", "similarity",
        _structural("sce_value"), "the same with the text of the leaves",
        "`code-sce` 0.1.0, to 1e-9", show=Show(table=1, drop=1, html=3)),
    PairMetric(
        "jsd_struct", "JSD struct", "Structure (JSD similarity)", "similarity",
        _structural("jsd_struct"),
        "`1 - JSD(P, Q)` of the same distributions, base 2 (in [0, 1])",
        "`code-sce` 0.1.0, to 1e-9 with `--jsd-log-base e`",
        show=Show(table=2, drop=12, html=0, hover=0, hover_label="JSD")),
    PairMetric(
        "jsd_value", "JSD value", "Structure and names (JSD similarity)", "similarity",
        _structural("jsd_value"), "the same with the text of the leaves", "as `jsd_struct`",
        show=Show(table=3, drop=3, html=1)),
    PairMetric(
        "tsed", "TSED", "Tree edit distance similarity (TSED)", "similarity", _tsed(None),
        "tree edit distance similarity `(L - d)/L` over the named-node tree, costs (1, 1, 1)",
        "`tsed` 0.1.0, to 1e-9", optional=True,
        show=Show(table=4, drop=4, html=4, hover=2, hover_label="TSED")),
    PairMetric(
        "tsed_08", "TSED 0.8", "TSED, insertions cost 0.8", "similarity",
        _tsed(PUBLISHED_TSED_COSTS),
        "the same with the published costs (1, 0.8, 1) (`--tsed-08`)", "`tsed` 0.1.0, to 1e-9",
        optional=True, default=False, show=Show(html=5)),
)
BY_KEY: dict[str, PairMetric] = {m.key: m for m in PAIR_METRICS}

#: The token and pycode_similar figures (LCS, LED, UnifiedDiff, TreeDiff), chosen as one.
TEXTUAL = "textual"
#: What a run may choose to compute (``--metrics``, the editor's ``analysis.metrics``): the
#: optional pair metrics by key, then the textual figures.
METRIC_CHOICES: tuple[str, ...] = (*(m.key for m in PAIR_METRICS if m.optional), TEXTUAL)
#: What a run computes when it names nothing: the optional pair metrics on by default.
DEFAULT_METRICS: tuple[str, ...] = tuple(m.key for m in PAIR_METRICS if m.optional and m.default)
#: What a function's analysis in the editor, ``check`` and the agents' tools computes when
#: nothing is chosen: the default metrics and the textual figures (the editor's report shows
#: the token matrix).
EDITOR_METRICS: tuple[str, ...] = (*DEFAULT_METRICS, TEXTUAL)


class UnknownMetric(ValueError):
    """A metric name that is not one of :data:`METRIC_CHOICES`."""


def metric_choice(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` as one choice: each once, in the order of :data:`METRIC_CHOICES` (so the
    same choice is the same value, whatever order it was given in). Raises
    :class:`UnknownMetric` naming the first unknown name."""
    given = set(names)
    unknown = sorted(given.difference(METRIC_CHOICES))
    if unknown:
        raise UnknownMetric(
            f"unknown metric {unknown[0]!r} (choose from {', '.join(METRIC_CHOICES)})")
    return tuple(name for name in METRIC_CHOICES if name in given)


@dataclass(frozen=True)
class ScalarFigure:
    """A single figure of the summary shown beside the pair means: ``key``, ``label``
    and where it is shown."""

    key: str
    label: str
    show: Show = field(default_factory=Show)


#: Scalar figures the renderers show (textual and behaviour figures; the summary holds more).
SCALAR_FIGURES: tuple[ScalarFigure, ...] = (
    ScalarFigure("lcs_mean", "LCS", Show(html=6)),
    ScalarFigure("led_mean", "LED", Show(html=7)),
    ScalarFigure("pass_rate_mean", "Pass", Show(table=0, drop=7, html=8)),
    ScalarFigure("oer", "OER", Show(table=1, drop=6, html=9, hover=3, hover_label="OER")),
    ScalarFigure("sctd_jsd", "SCTD", Show(html=10, hover=0, hover_label="SCTD")),
    ScalarFigure("dctd_jsd", "DCTD", Show(html=11, hover=1, hover_label="DCTD")),
    ScalarFigure("bef_jsd", "BEF", Show(table=2, drop=5, html=12, hover=2, hover_label="BEF")),
)

@dataclass(frozen=True)
class FigureMatrix:
    """A pair matrix kept beside a scalar figure (the textual figures' matrices): ``key``
    in ``matrices``, its ``title`` in the editor's report ("" for none), ``direction``."""

    key: str
    title: str
    direction: Direction


#: Pair matrices behind scalar figures, in the order the analysis keeps them.
FIGURE_MATRICES: tuple[FigureMatrix, ...] = (
    FigureMatrix("lcs", "Token longest common block (LCS)", "similarity"),
    FigureMatrix("led", "", "distance"),
)
#: The matrix (and summary figure) that says how alike the versions are in shape: the
#: verdicts, the heatmap and the editor's report read it.
STRUCTURE = "jsd_struct"

Shown = PairMetric | ScalarFigure
F = TypeVar("F", PairMetric, ScalarFigure, Shown)
#: Every figure shown: the pair metrics, then the scalar figures.
FIGURES: tuple[Shown, ...] = (*PAIR_METRICS, *SCALAR_FIGURES)


def shown(figures: Sequence[F], where: str) -> list[F]:
    """``figures`` shown by a renderer (``where``: a field of :class:`Show`), in its order."""
    ranked = [(getattr(f.show, where), f) for f in figures if getattr(f.show, where) is not None]
    return [f for _, f in sorted(ranked, key=lambda rf: rf[0])]


def labels() -> dict[str, str]:
    """The label of every figure shown, by key."""
    return {f.key: f.label for f in FIGURES}


def docs_table(metrics: Sequence[PairMetric] = PAIR_METRICS) -> str:
    """The table of docs/metrics.md that lists ``metrics``."""
    rows = ["| key | direction | what | reference |", "| --- | --- | --- | --- |"]
    rows += [f"| `{m.key}` | {m.direction} | {m.doc} | {m.reference} |" for m in metrics]
    return "\n".join(rows) + "\n"


#: The markers of the generated table in docs/metrics.md (``scripts/generate`` writes it).
BEGIN = "<!-- pair metrics: written by `scripts/generate` from metrics/registry.py -->"
END = "<!-- end of pair metrics -->"
_SCHEMA_PAIR = '            "{key}": {{ "$ref": "#/$defs/pairMean" }},'
_SCHEMA_REQUIRED = '              "summary": {{ "required": [{keys}] }}'


def with_docs_table(text: str) -> str:
    """``text`` (docs/metrics.md) with the generated table replaced."""
    pattern = re.compile(re.escape(BEGIN) + r"\n.*?" + re.escape(END) + r"\n", re.S)
    if not pattern.search(text):
        raise ValueError("docs/metrics.md has no generated pair-metric table")
    return pattern.sub(lambda _m: f"{BEGIN}\n{docs_table()}{END}\n", text, count=1)


def required_keys() -> list[str]:
    """The summary keys every scored set has: the metrics always computed, in every
    language."""
    return [m.key for m in PAIR_METRICS if not m.optional and m.languages is None]


def with_schema_keys(text: str) -> str:
    """``text`` (shared/report.schema.json, laid out by hand) with the summary's pair-metric
    properties and its required keys written from the registry."""
    lines = text.split("\n")
    pair = [k for k, line in enumerate(lines)
            if re.fullmatch(r' {12}"\w+": \{ "\$ref": "#/\$defs/pairMean" \},', line)]
    if not pair or pair != list(range(pair[0], pair[-1] + 1)):
        raise ValueError("report schema: the summary's pair metrics are not one block")
    lines[pair[0]:pair[-1] + 1] = [_SCHEMA_PAIR.format(key=m.key) for m in PAIR_METRICS]
    required = [k for k, line in enumerate(lines) if line.startswith('              "summary": {')]
    if len(required) != 1:
        raise ValueError("report schema: no single list of required summary keys")
    keys = ", ".join(json.dumps(k) for k in required_keys())
    lines[required[0]] = _SCHEMA_REQUIRED.format(keys=keys)
    return "\n".join(lines)


def shared_text() -> str:
    """``shared/metrics.json``, what the editors read of the registry (the VS Code extension
    generates ``src/generated/metrics.ts`` from it): every matrix a report can carry (key,
    title, direction) and the structure matrix."""
    every: list[PairMetric | FigureMatrix] = [*PAIR_METRICS, *FIGURE_MATRICES]
    matrices = [{"key": m.key, "title": m.title, "direction": m.direction} for m in every]
    return json.dumps({"structure": STRUCTURE, "matrices": matrices}, indent=2) + "\n"
