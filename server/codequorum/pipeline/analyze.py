"""Sample set -> stability report: matrices, summaries, typicality, clusters, verdicts.

The metric modules compute the pairwise matrices; this module only combines them: which
samples are usable, the pair means, how typical each version is, which versions share a
shape (average-linkage clusters on ``1 - JSD``), the consensus version (medoid), and the
verdicts in words. Everything after the metrics is vectorised numpy, so a set of 100
samples costs a few milliseconds on top of the matrices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from codequorum.core.errors import UserError
from codequorum.core.limits import InputLimitError, nesting_problem, version_size_problem
from codequorum.core.model import SampleSet, Verdict
from codequorum.core.parsing import nests_deeper, parse, parse_versions
from codequorum.metrics.clustering import average_linkage, symmetrise, typicality
from codequorum.metrics.structural import structural_matrices

if TYPE_CHECKING:
    import tree_sitter

    from codequorum.judge.recommend import KeyMatrix, Recommendation
    from codequorum.judge.risk import RiskSignals

FloatMatrix = npt.NDArray[np.float64]
#: Scalar token LCS / Levenshtein figures copied into the summary (``textual`` on).
TEXTUAL_KEYS: tuple[str, ...] = ("lcs_mean", "lcs_worst", "led_mean", "led_worst",
                                 "lcs_pair_mean", "led_pair_mean")
#: pycode_similar's similarities (Python only, ``textual`` on): mean over ordered pairs.
AST_DIFF_KEYS: tuple[str, ...] = ("unified_diff", "tree_diff")
Status = Literal["ok", "insufficient"]

#: Trees of the versions kept from the first parse for the tree metrics (TSED): each with
#: at most this many nodes (TSED compares trees of at most 3,000 named nodes), and at most
#: ``KEEP_TOTAL_NODES`` together (about 140 MB); the others are parsed again one at a time.
KEEP_TREE_NODES = 12_000
KEEP_TOTAL_NODES = 1_000_000

#: Pairwise metrics, in the order renderers show them.
PAIR_METRICS: tuple[str, ...] = ("sce_struct", "sce_value", "jsd_struct", "jsd_value", "tsed",
                                 "tsed_08")


class DynamicLike(Protocol):
    """What :func:`analyze` needs from ``codequorum.behaviour.run.DynamicReport``."""

    @property
    def summary(self) -> dict[str, float | None]: ...

    @property
    def verdicts(self) -> list[Verdict]: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class AnalysisOptions:
    """What to compute and where the verdict thresholds lie.

    ``cluster_threshold`` is a distance on ``1 - jsd_struct`` (symmetrised): two groups
    merge while their average distance is at most this. A set is ``stable`` when the mean
    ``jsd_struct`` over ordered pairs is at least the stability line (:func:`stable_line`)
    and the largest group holds at least ``majority`` of the versions (0: no majority
    needed). The line is ``stable_jsd`` when given, else the mean similarity below which
    ``unstable_percentile`` % of the HumanEval reference sets lie (with the reference's
    ``max_depth`` and ``jsd_log_base``; other settings fall back to
    :data:`FALLBACK_STABLE_JSD`). A version is an outlier when its
    typicality lies more than ``outlier_gap`` below the median typicality.
    TSED leaves out (NaN, with a note) pairs with a tree too large to compare.
    ``max_samples`` bounds the usable samples of one set: every matrix is n×n, so 2,000
    samples already take 32 MB per matrix; a larger set is refused with the reason.
    ``sctd``: static opcode divergence of Python sets (compiled, never run) under
    ``interpreter`` (a CPython executable; default: this one).
    """

    max_depth: int = 30
    jsd_log_base: float = 2.0
    tsed: bool = True
    tsed_costs: tuple[float, float, float] = (1.0, 1.0, 1.0)
    tsed_08: bool = False
    textual: bool = True
    cluster_threshold: float = 0.1
    stable_jsd: float | None = None
    unstable_percentile: float = 25.0
    majority: float = 0.0
    outlier_gap: float = 0.1
    keep_matrices: bool = True
    max_samples: int = 2000
    sctd: bool = True
    interpreter: str | None = None

    def __post_init__(self) -> None:
        """Reject settings no analysis can use, at construction rather than mid-run."""
        if self.max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        if not (self.jsd_log_base > 1.0):
            raise ValueError("jsd_log_base must be greater than 1 (2 or e)")
        if self.cluster_threshold < 0:
            raise ValueError("cluster_threshold must not be negative")
        if not 0.0 <= self.unstable_percentile <= 100.0:
            raise ValueError("unstable_percentile must be between 0 and 100")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with the stability line as used: ``stable_jsd`` is the line
        (given or from the reference distribution), ``stable_jsd_given`` whether it was
        given."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["tsed_costs"] = list(self.tsed_costs)
        d["stable_jsd_given"] = self.stable_jsd is not None
        d["stable_jsd"] = stable_line(self).jsd
        return d


@dataclass(frozen=True)
class SkippedSample:
    """A sample left out of the scores, and why."""

    index: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"index": self.index, "reason": self.reason}


@dataclass
class StabilityReport:
    """How much the versions in one sample set agree.

    Indices in ``skipped``, ``empty``, ``medoid``, ``clusters``, ``verdicts`` and
    ``current_index`` are positions in the original sample set. An empty answer is a
    version like any other (``empty`` lists them; ``skipped`` stays empty). ``matrices``,
    ``syntax_errors`` and ``typicality`` follow the order of ``indices``.
    ``summary`` maps each pairwise metric to ``{"ordered": x, "unordered": y}`` and holds
    scalar figures (textual, dynamic) as plain numbers. ``recommended`` (a position in the
    set), ``recommended_by`` and ``recommendation`` (in words) say which version to keep
    (:mod:`codequorum.judge.recommend`); after a run, ``risk`` is the probability that it is
    wrong, ``risk_level`` its step on the coarse scale and ``risk_range`` what that step
    has meant on draws held out of the fit; ``trust`` says how far to trust it in words
    (what is missing when the versions did not run); ``stability_percentile`` is where
    the set's mean similarity falls among the HumanEval reference sets
    (:mod:`codequorum.judge.risk`). ``model`` names the model that made the versions, when
    they say (:func:`codequorum.judge.calibration.model_of`).
    """

    task_id: str
    language: str
    status: Status
    n: int
    n_total: int
    indices: list[int]
    skipped: list[SkippedSample] = field(default_factory=list)
    empty: list[int] = field(default_factory=list)
    message: str | None = None
    syntax_errors: list[int] = field(default_factory=list)
    matrices: dict[str, FloatMatrix] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    typicality: list[float] = field(default_factory=list)
    medoid: int | None = None
    clusters: list[list[int]] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    current_index: int | None = None
    dynamic: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    recommended: int | None = None
    recommended_by: str | None = None
    recommendation: str | None = None
    risk: float | None = None
    risk_level: str | None = None
    risk_range: list[float] | None = None
    trust: str | None = None
    stability_percentile: float | None = None
    model: str | None = None

    @property
    def verdict(self) -> Verdict | None:
        """The headline finding: the first warning or error if any, else the first one."""
        for v in self.verdicts:
            if v.severity in ("error", "warning"):
                return v
        return self.verdicts[0] if self.verdicts else None

    def pair(self, metric: str, kind: str = "ordered") -> float | None:
        """One pair mean (``kind`` ``ordered`` or ``unordered``) from the summary, or None
        when it was not computed."""
        value = self.summary.get(metric)
        if isinstance(value, dict):
            x = value.get(kind)
            return float(x) if x is not None else None
        return None

    def to_dict(self, include_matrices: bool = False) -> dict[str, Any]:
        """JSON-ready form (NaN becomes null). Matrices only when asked: 100 samples give
        10,000 numbers per metric."""
        d: dict[str, Any] = {
            "task_id": self.task_id,
            "language": self.language,
            "status": self.status,
            "message": self.message,
            "n": self.n,
            "n_total": self.n_total,
            "indices": list(self.indices),
            "skipped": [s.to_dict() for s in self.skipped],
            "empty": list(self.empty),
            "syntax_errors": list(self.syntax_errors),
            "summary": _clean(self.summary),
            "typicality": [_num(x) for x in self.typicality],
            "medoid": self.medoid,
            "clusters": [list(c) for c in self.clusters],
            "verdicts": [_clean(v.to_dict()) for v in self.verdicts],
            "notes": list(self.notes),
            "current_index": self.current_index,
            "dynamic": _clean(self.dynamic) if self.dynamic is not None else None,
            "options": _clean(self.options),
            "recommended": self.recommended,
            "recommended_by": self.recommended_by,
            "recommendation": self.recommendation,
            "risk": _num(self.risk),
            "risk_level": self.risk_level,
            "risk_range": None if self.risk_range is None else [_num(v) for v in self.risk_range],
            "trust": self.trust,
            "stability_percentile": _num(self.stability_percentile),
            "model": self.model,
        }
        if include_matrices:
            d["matrices"] = {
                k: [[_num(x) for x in row] for row in m.tolist()] for k, m in self.matrices.items()
            }
        return d


def _num(x: Any) -> float | None:
    """A float for JSON: None for missing, NaN or infinite values."""
    if x is None:
        return None
    f = float(x)
    return f if math.isfinite(f) else None


def _clean(value: Any) -> Any:
    """Numbers made JSON-safe all the way down (numpy scalars to float, NaN to None)."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, np.integer | int):
        return int(value)
    if isinstance(value, np.floating | float):
        return _num(value)
    if isinstance(value, np.ndarray):
        return _clean(value.tolist())
    return value


def pair_means(m: FloatMatrix) -> tuple[float, float]:
    """(mean over i != j, mean over i < j) of an n×n pair matrix.

    NaN entries (pairs a metric could not compare) are left out of the means; NaN when
    n < 2 or no pair has a value.
    """
    n = m.shape[0]
    if n < 2:
        return math.nan, math.nan
    pairs = n * (n - 1)
    if not np.isnan(m).any():
        ordered = (float(m.sum()) - float(np.trace(m))) / pairs
        return ordered, float(np.triu(m, k=1).sum()) / (pairs / 2)
    values = m[~np.eye(n, dtype=bool)]
    upper = m[np.triu_indices(n, k=1)]
    ordered = float(np.nanmean(values)) if not np.isnan(values).all() else math.nan
    unordered = float(np.nanmean(upper)) if not np.isnan(upper).all() else math.nan
    return ordered, unordered


def versions_compared(n: int, current_apart: bool) -> str:
    """How many versions were compared, in the words every front end uses: ``5 versions``,
    or ``4 versions + your code`` when the code in the editor is compared beside the
    versions (``current_apart``: it is one of the ``n`` and not one of the versions)."""
    versions = n - 1 if current_apart else n
    text = f"{versions} version{'s' if versions != 1 else ''}"
    return f"{text} + your code" if current_apart else text


def _versions(indices: Sequence[int], current: int | None = None, limit: int = 6) -> str:
    """'version 4', 'versions 2, 5 and 9', 'versions 1, 2, 3, 4, 5, 6 and 4 more'.

    Versions are numbered from 1 by their place in the set, as the editor labels them
    (``v4``); index ``current`` is called "the current code" and named first.
    """
    others = [i for i in indices if i != current]
    lead = "the current code" if current is not None and current in indices else ""
    names = [str(i + 1) for i in others]
    if not names:
        return lead
    if len(names) == 1:
        text = f"version {names[0]}"
    elif len(names) > limit:
        text = f"versions {', '.join(names[:limit])} and {len(names) - limit} more"
    else:
        text = f"versions {', '.join(names[:-1])} and {names[-1]}"
    return f"{lead} and {text}" if lead else text


def _insufficient(sample_set: SampleSet, indices: list[int], empty: list[int],
                  options: AnalysisOptions, current_index: int | None) -> StabilityReport:
    """The no-score report for a set with fewer than two versions or none with code, with
    the reason."""
    n_total = len(sample_set.samples)
    usable = len(indices)
    word = "version" if usable == 1 else "versions"
    message = f"only {usable} usable {word} of {n_total}; at least two are needed to compare"
    return StabilityReport(
        task_id=sample_set.task_id, language=sample_set.language, status="insufficient",
        n=usable, n_total=n_total, indices=indices, empty=empty, message=message,
        current_index=current_index, options=options.to_dict(),
    )


#: The note of a set whose every version is empty.
ALL_EMPTY_NOTE = ("every version is empty: nothing to compare in shape or behaviour; token "
                  "LCS 0 and LED 0, as the study's scripts give")


def _all_empty(sample_set: SampleSet, indices: list[int], options: AnalysisOptions,
               current_index: int | None) -> StabilityReport:
    """The report of a set whose every version is empty: an outcome, scored as the
    study's scripts score it (token LCS 0 and LED 0; no tree, so no shape figure, no
    verdict and nothing to keep), with a note saying so."""
    shapes = ["sce_struct", "sce_value", "jsd_struct", "jsd_value"]
    shapes += [name for name, on in (("tsed", options.tsed), ("tsed_08", options.tsed_08)) if on]
    summary: dict[str, Any] = {name: {"ordered": None, "unordered": None} for name in shapes}
    if options.textual:
        from codequorum.metrics.textual import textual_summary

        textual = textual_summary(sample_set.codes)
        summary.update({key: float(getattr(textual, key)) for key in TEXTUAL_KEYS})
        summary.update(dict.fromkeys(AST_DIFF_KEYS))
    return StabilityReport(
        task_id=sample_set.task_id, language=sample_set.language, status="ok",
        n=len(indices), n_total=len(indices), indices=indices, empty=list(indices),
        syntax_errors=[0] * len(indices), summary=summary, notes=[ALL_EMPTY_NOTE],
        current_index=current_index, options=options.to_dict(),
    )


def analyze(
    sample_set: SampleSet,
    options: AnalysisOptions | None = None,
    dynamic: DynamicLike | None = None,
    current_index: int | None = None,
) -> StabilityReport:
    """Score how much the versions in ``sample_set`` agree (:func:`_analyze`), and name
    the model that made them."""
    from codequorum.judge.calibration import model_of

    report = _analyze(sample_set, options, dynamic, current_index)
    report.model = model_of([s.model for s in sample_set.samples])
    return report


def _analyze(
    sample_set: SampleSet,
    options: AnalysisOptions | None = None,
    dynamic: DynamicLike | None = None,
    current_index: int | None = None,
) -> StabilityReport:
    """Score how much the versions in ``sample_set`` agree.

    Every version is scored: an empty answer is an outcome (listed in ``empty``; each metric
    treats it as its reference does, see docs/metrics.md), samples with syntax errors are
    scored as parsed (tree-sitter recovers) and counted in ``syntax_errors``. Fewer than two
    versions give a report with ``status="insufficient"`` and the reason, not an
    exception; a set whose every version is empty is scored as the study's scripts score
    it (token LCS 0 and LED 0) with a note. ``current_index`` (a position in the set)
    marks the version in the editor: when it is far from the consensus an
    ``outlier-current`` verdict says so.
    ``dynamic`` (a ``DynamicReport``) merges its summary figures and verdicts into the report.
    A version over a bound of :mod:`codequorum.core.limits` (size, nesting, parse time) raises
    :class:`~codequorum.core.limits.InputLimitError` naming it before anything reads it
    recursively.
    """
    opts = options or AnalysisOptions()
    codes_all = sample_set.codes
    if current_index is not None and not 0 <= current_index < len(codes_all):
        raise ValueError(f"current_index {current_index} is outside the set "
                         f"(0..{len(codes_all) - 1})")
    indices = list(range(len(codes_all)))
    skipped: list[SkippedSample] = []
    empty = [i for i, code in enumerate(codes_all) if not code.strip()]
    if len(indices) < 2:
        report = _insufficient(sample_set, indices, empty, opts, current_index)
        _merge_dynamic(report, dynamic)
        return report
    if len(empty) == len(indices):
        report = _all_empty(sample_set, indices, opts, current_index)
        _merge_dynamic(report, dynamic)
        return report

    codes = [codes_all[i] for i in indices]
    n = len(codes)
    if n > opts.max_samples:
        raise UserError(f"{n:,} usable versions; at most {opts.max_samples:,} are compared at "
                        "once (the pairs grow as n²): score the first K with --samples K")
    trees = parse_versions(codes, sample_set.language, keep_nodes=KEEP_TREE_NODES,
                           keep_total=KEEP_TOTAL_NODES)
    sm = structural_matrices(codes, sample_set.language, max_depth=opts.max_depth,
                             jsd_log_base=opts.jsd_log_base, parsed=trees)
    matrices: dict[str, FloatMatrix] = {
        name: np.asarray(getattr(sm, name), dtype=np.float64)
        for name in ("sce_struct", "sce_value", "jsd_struct", "jsd_value")
    }
    syntax_errors = [int(x) for x in sm.syntax_errors]
    notes = _input_notes(empty, [indices[k] for k, e in enumerate(syntax_errors) if e > 0],
                         current_index)
    if opts.tsed or opts.tsed_08:
        notes.extend(_tsed_matrices(codes, sample_set.language, sm.parsed, opts, matrices,
                                    indices, current_index))
    summary = _summary(codes, sample_set.language, opts, matrices)

    similarity = symmetrise(matrices["jsd_struct"])
    typ = typicality(similarity)
    medoid_pos = int(np.argmax(typ))
    groups = average_linkage(1.0 - similarity, opts.cluster_threshold)
    clusters = [[indices[k] for k in g] for g in groups]

    report = StabilityReport(
        task_id=sample_set.task_id, language=sample_set.language, status="ok", n=n,
        n_total=len(codes_all), indices=indices, skipped=skipped, empty=empty,
        syntax_errors=syntax_errors,
        matrices=matrices if opts.keep_matrices else {},
        summary=summary, typicality=[float(x) for x in typ], medoid=indices[medoid_pos],
        clusters=clusters, notes=notes, current_index=current_index, options=opts.to_dict(),
    )
    current_apart = (current_index is not None
                     and sample_set.samples[current_index].origin == "current")
    report.verdicts = _structure_verdicts(report, similarity, typ, groups, opts,
                                          versions_compared(n, current_apart))
    if current_index is not None:
        report.verdicts.extend(_current_verdicts(report, similarity, typ, opts))
    _merge_dynamic(report, dynamic)
    _recommend(report, dynamic, opts, codes_all)
    return report


def admit(sample_set: SampleSet) -> None:
    """Raise :class:`~codequorum.core.limits.InputLimitError` when a version of the set, its
    prompt or a test harness is over a bound of :mod:`codequorum.core.limits`: what must hold
    before they are compiled, read with ``ast`` or run (``analyze`` checks the versions
    itself)."""
    texts = [("the prompt", sample_set.prompt or "", sample_set.language)]
    texts += [(f"test {t.name or k + 1}", t.source or "", "python")  # harnesses are Python
              for k, t in enumerate(sample_set.tests)]
    for what, text, language in texts:
        too_big = version_size_problem(text)
        if too_big is not None:
            raise InputLimitError(f"not run: {what} is {too_big}")
        if text and nests_deeper(parse(text, language)):
            raise InputLimitError(f"not run: {what} is {nesting_problem()}")
    parse_versions(sample_set.codes, sample_set.language, keep_nodes=0, keep_total=0)


#: The verdict of a set refused before scoring (a version over a bound).
INPUT_LIMIT = "input-limit"


def refused(sample_set: SampleSet, reason: str, options: AnalysisOptions | None = None,
            current_index: int | None = None) -> StabilityReport:
    """The report of a set refused before scoring (``reason``: the
    :class:`~codequorum.core.limits.InputLimitError`'s message): nothing compared, the reason as
    its message and as an ``input-limit`` verdict, so an editor and ``check`` show it on
    the function like any finding."""
    n_total = len(sample_set.samples)
    return StabilityReport(
        task_id=sample_set.task_id, language=sample_set.language, status="insufficient",
        n=0, n_total=n_total, indices=[], message=reason, current_index=current_index,
        options=(options or AnalysisOptions()).to_dict(),
        verdicts=[Verdict(code=INPUT_LIMIT, severity="information", message=reason)],
    )


def _input_notes(empty: Sequence[int], with_errors: Sequence[int],
                 current: int | None) -> list[str]:
    """What the report says about empty answers and versions with syntax errors."""
    notes: list[str] = []
    if empty:
        verb = "is" if len(empty) == 1 else "are"
        notes.append(f"{_versions(empty, current)} {verb} empty: scored as an empty "
                     "answer (token LCS 0; left out of SCTD)")
    if with_errors:
        verb = "has" if len(with_errors) == 1 else "have"
        notes.append(f"{_versions(with_errors, current)} {verb} syntax errors "
                     "(scored as parsed)")
    return notes


def _tsed_matrices(codes: Sequence[str], language: str,
                   parsed: Sequence[tree_sitter.Tree | None], opts: AnalysisOptions,
                   matrices: dict[str, FloatMatrix], indices: Sequence[int],
                   current: int | None) -> list[str]:
    """TSED (and TSED at (1, 0.8, 1)) into ``matrices``, from the structural metrics'
    parse (``parsed``), the trees built once for both cost settings; the note naming the
    versions (positions ``indices``, one per code) whose tree was too large to compare."""
    from codequorum.metrics.tree_edit import build_trees, tsed_tree_matrix

    trees = build_trees(codes, language, parsed=parsed)
    if opts.tsed:
        matrices["tsed"] = np.asarray(tsed_tree_matrix(trees, costs=opts.tsed_costs),
                                      dtype=np.float64)
    if opts.tsed_08:
        matrices["tsed_08"] = np.asarray(tsed_tree_matrix(trees, costs=(1.0, 0.8, 1.0)),
                                         dtype=np.float64)
    tsed_any = matrices.get("tsed", matrices.get("tsed_08"))
    if tsed_any is None:
        return []
    n = len(codes)
    # a version no other could be compared with: its tree was too large
    nan_off = np.isnan(tsed_any) & ~np.eye(n, dtype=bool)
    too_large = [indices[k] for k in range(n) if int(nan_off[k].sum()) == n - 1]
    if too_large and n == 2:
        return ["TSED left out: a tree is too large to compare"]
    if too_large:
        return [f"TSED left out for {_versions(too_large, current)}: tree too large to "
                "compare"]
    return []


def _summary(codes: Sequence[str], language: str, opts: AnalysisOptions,
             matrices: dict[str, FloatMatrix]) -> dict[str, Any]:
    """Static SCTD (Python), the pair means of every matrix, and with ``textual`` the
    token and AST-diff similarities (their matrices join ``matrices``)."""
    from codequorum.behaviour.runtimes import runtime_for  # the sandbox's modules, when used

    summary: dict[str, Any] = {}
    if opts.sctd and runtime_for(language) is not None:
        summary.update(static_sctd(codes, opts.interpreter, language))
    for name in PAIR_METRICS:
        if name in matrices:
            ordered, unordered = pair_means(matrices[name])
            summary[name] = {"ordered": ordered, "unordered": unordered}
    if opts.textual:
        from codequorum.metrics.textual import textual_summary

        textual = textual_summary(codes)
        for key in TEXTUAL_KEYS:
            summary[key] = float(getattr(textual, key))
        matrices["lcs"] = np.asarray(textual.lcs, dtype=np.float64)
        matrices["led"] = np.asarray(textual.led, dtype=np.float64)
        summary.update(_ast_diffs(codes, language, matrices))
    return summary


def _ast_diffs(codes: Sequence[str], language: str,
               matrices: dict[str, FloatMatrix]) -> dict[str, float | None]:
    """``unified_diff`` and ``tree_diff`` (pycode_similar's UnifiedDiff and TreeDiff): mean
    over the ordered pairs with a value, as the non-determinism study averages them; None
    for other languages than Python or when no pair has a value."""
    if language != "python":
        return dict.fromkeys(AST_DIFF_KEYS)
    from codequorum.metrics.pycode_similar import pycode_similar_matrices

    out: dict[str, float | None] = {}
    for key, m in zip(AST_DIFF_KEYS, pycode_similar_matrices(codes), strict=True):
        matrices[key] = m
        out[key] = _num(pair_means(m)[0])
    return out


def static_sctd(codes: Sequence[str], interpreter: str | None = None,
                language: str = "python") -> dict[str, float | None]:
    """``sctd_jsd`` and ``sctd_tau`` from static opcode counts (see
    :func:`codequorum.metrics.opcodes.sctd`): each version is compiled under ``interpreter``
    (default: this one), never run. Versions that are empty or do not compile are left out,
    as in the reference; fewer than two left give None. The keys are the dynamic report's:
    a ``--dynamic`` run writes the same value under the same name.
    """
    from codequorum.metrics.opcodes import sctd, static_opcode_counts

    present = [k for k, code in enumerate(codes) if code.strip()]
    if interpreter is None:
        once: dict[str, dict[str, int] | None] = {}
        for k in present:  # identical versions compiled once
            if codes[k] not in once:
                once[codes[k]] = static_opcode_counts(codes[k])
        counted = [once[codes[k]] for k in present]
    else:
        from codequorum.behaviour.runtimes import runtime_for

        runtime = runtime_for(language)
        if runtime is None:
            return {"sctd_jsd": None, "sctd_tau": None}
        counted = runtime.static_counts([codes[k] for k in present], interpreter)
    result = sctd(counted)
    have = result.used >= 2
    return {"sctd_jsd": result.jsd if have else None, "sctd_tau": result.tau if have else None}


def _recommend(report: StabilityReport, dynamic: DynamicLike | None,
               opts: AnalysisOptions, codes: Sequence[str]) -> None:
    """The version to keep, the risk that it is wrong (after a run only: from shape
    alone no probability holds across models), and the stability percentile."""
    from codequorum.judge.recommend import examples_from_dynamic, keys_from_dynamic, recommend
    from codequorum.judge.risk import (
        REFERENCE_OPTIONS,
        estimate,
        stability_percentile,
        trust_words,
    )

    keys = keys_from_dynamic(dynamic) if dynamic is not None else None
    if keys is not None and len(keys) != report.n_total:
        keys = None  # not one row per version: no evidence to trust
    examples, example_count = (examples_from_dynamic(dynamic) if keys is not None
                               else (None, 0))
    if examples is not None and len(examples) != report.n_total:
        examples, example_count = None, 0
    answered = [k for k, i in enumerate(report.indices) if i not in report.empty]
    rec = recommend(keys, [report.typicality[k] for k in answered],
                    [report.indices[k] for k in answered], examples, example_count)
    if rec is None:
        return
    report.recommended, report.recommended_by = rec.index, rec.by
    report.recommendation = rec.sentence
    mean_similarity = report.pair("jsd_struct") or 0.0
    est = estimate(risk_signals(rec, keys, codes)) if keys is not None else None
    if est is not None:
        report.risk = est.probability
        report.risk_level = est.level
        if est.low is not None and est.high is not None:
            report.risk_range = [est.low, est.high]
    report.trust = trust_words(est, ran=dynamic is not None)
    if (opts.max_depth == REFERENCE_OPTIONS["max_depth"]
            and opts.jsd_log_base == REFERENCE_OPTIONS["jsd_log_base"]):
        report.stability_percentile = stability_percentile(mean_similarity)


def risk_signals(rec: Recommendation, keys: KeyMatrix, codes: Sequence[str]) -> RiskSignals:
    """What a run says about the kept version (:class:`~codequorum.judge.risk.RiskSignals`):
    ``keys``, the outcome matrix of every version; ``codes``, their texts."""
    from codequorum.judge.recommend import agreeing_versions, behaviours
    from codequorum.judge.risk import RiskSignals

    def text(code: str) -> str:
        return " ".join(code.split())

    agreed = rec.by == "behaviour"
    agreeing = agreeing_versions(keys, rec.index) if agreed else [rec.index]
    distinct, runner_up = behaviours(keys, rec.index)
    return RiskSignals(
        versions=rec.versions, agreed=agreed, agreeing=len(agreeing),
        agreeing_texts=len({text(codes[v]) for v in agreeing}),
        texts=len({text(c) for c in codes}), share=rec.share, examples=rec.examples,
        passes_examples=rec.passes_examples,
        passing=round(rec.examples_consensus * rec.versions),
        runner_up=runner_up if agreed else 0, behaviours=distinct)


#: The stability line when the analysis options differ from the reference distribution's.
FALLBACK_STABLE_JSD = 0.8


@dataclass(frozen=True)
class StableLine:
    """Where ``stable`` ends: mean ``jsd_struct`` below ``jsd`` is unstable. ``percentile``:
    the share (%) of the HumanEval reference sets below that line, when it comes from them
    (None for a constant)."""

    jsd: float
    percentile: float | None


def stable_line(opts: AnalysisOptions) -> StableLine:
    """The stability line of ``opts`` (see :class:`AnalysisOptions`)."""
    from codequorum.judge.risk import REFERENCE_OPTIONS, load_model

    if opts.stable_jsd is not None:
        return StableLine(opts.stable_jsd, None)
    if (opts.max_depth != REFERENCE_OPTIONS["max_depth"]
            or opts.jsd_log_base != REFERENCE_OPTIONS["jsd_log_base"]):
        return StableLine(FALLBACK_STABLE_JSD, None)
    q = np.asarray(load_model()["stability"]["quantiles"], dtype=np.float64)
    levels = np.linspace(0.0, 100.0, q.size)
    return StableLine(float(np.interp(opts.unstable_percentile, levels, q)),
                      opts.unstable_percentile)


def percentile_words(percentile: float) -> str:
    """Where a set stands among the HumanEval reference sets: ``less stable than 92 % of
    HumanEval functions`` (below the median) or ``more stable than 60 % of ...``."""
    if percentile < 50:
        return f"less stable than {100 - percentile:.0f} % of HumanEval functions"
    return f"more stable than {percentile:.0f} % of HumanEval functions"


def is_stable(mean_jsd: float, largest_share: float, line: StableLine, majority: float) -> bool:
    """The ``stable`` rule: mean similarity on or above the line, and a large enough
    largest group."""
    return mean_jsd >= line.jsd and largest_share >= majority


def _jsd_words(mean_jsd: float, line: StableLine) -> str:
    """``mean JSD 0.62 < 0.80`` for a constant line; for the reference line, where the set
    stands and where the line lies, in the same words."""
    if line.percentile is None:
        digits = 2 if f"{mean_jsd:.2f}" != f"{line.jsd:.2f}" else 3
        below = f" < {line.jsd:.{digits}f}" if mean_jsd < line.jsd else ""
        return f"mean JSD {mean_jsd:.{digits}f}{below}"
    from codequorum.judge.risk import stability_percentile

    where = percentile_words(stability_percentile(mean_jsd))
    if mean_jsd >= line.jsd:
        return f"mean JSD {mean_jsd:.2f}, {where}"
    return (f"mean JSD {mean_jsd:.2f}, {where} (flagged when less stable than "
            f"{100 - line.percentile:g} % of them)")


def _outlier_words(report: StabilityReport, similarity: FloatMatrix,
                   typ: npt.NDArray[np.float64], outlier_pos: Sequence[int], median: float,
                   detail: dict[str, Any]) -> str:
    """``; version 7 is an outlier: JSD 0.61 vs 1.00 mean`` (empty without outliers); their
    typicality and the others' mean similarity go into ``detail``."""
    if not outlier_pos:
        return ""
    idx = report.indices
    keep = np.ones(report.n, dtype=bool)
    keep[list(outlier_pos)] = False
    rest = np.flatnonzero(keep)
    among = pair_means(similarity[np.ix_(rest, rest)])[0] if len(rest) >= 2 else float(median)
    # the current code is named first (see _versions): its figure comes first too
    in_text = sorted(outlier_pos, key=lambda k: idx[k] != report.current_index)
    figures = ", ".join(f"{typ[k]:.2f}" for k in in_text[:6])
    verb = "is an outlier" if len(outlier_pos) == 1 else "are outliers"
    named = _versions([idx[k] for k in in_text], report.current_index)
    detail["outlier_typicality"] = [float(typ[k]) for k in outlier_pos]
    detail["consensus_mean"] = float(among)
    return f"; {named} {verb}: JSD {figures} vs {among:.2f} mean"


def _structure_verdicts(report: StabilityReport, similarity: FloatMatrix,
                        typ: npt.NDArray[np.float64], groups: list[list[int]],
                        opts: AnalysisOptions, compared: str) -> list[Verdict]:
    """``stable`` or ``unstable-structure``, with the outliers named (``compared``: how
    many versions, in :func:`versions_compared`'s words)."""
    n = report.n
    idx = report.indices
    mean_jsd = report.pair("jsd_struct") or 0.0
    largest = groups[0]
    share = len(largest) / n
    median = float(np.median(typ))
    outlier_pos = [int(k) for k in np.argsort(typ, kind="stable")
                   if typ[k] < median - opts.outlier_gap]
    detail: dict[str, Any] = {
        "mean_jsd_struct": mean_jsd,
        "largest_group": [idx[k] for k in largest],
        "groups": len(groups),
        "outliers": [idx[k] for k in outlier_pos],
        "medoid": report.medoid,
    }
    shape = (f"{len(largest)} of {compared} share one shape" if len(largest) > 1
             else f"no two of the {compared} share a shape")
    outlier_text = _outlier_words(report, similarity, typ, outlier_pos, median, detail)
    line = stable_line(opts)
    detail["stable_line"] = line.jsd
    detail["stable_line_percentile"] = line.percentile
    if is_stable(mean_jsd, share, line, opts.majority):
        message = f"{shape} ({_jsd_words(mean_jsd, line)}){outlier_text}"
        return [Verdict(code="stable", severity="information", message=message,
                        samples=tuple(idx[k] for k in largest), figure=mean_jsd,
                        detail=detail)]
    reasons = [_jsd_words(mean_jsd, line)]
    if len(largest) == 1:
        reasons.append(f"no two of the {compared} share a shape")
    elif share < opts.majority:
        reasons.append(f"only {len(largest)} of {compared} share one shape "
                       f"({len(groups)} groups)")
    else:
        reasons.append(shape)
    message = f"Versions disagree in shape: {'; '.join(reasons)}{outlier_text}"
    return [Verdict(code="unstable-structure", severity="warning", message=message,
                    samples=tuple(idx[k] for k in outlier_pos), figure=mean_jsd,
                    detail=detail)]


def _current_verdicts(report: StabilityReport, similarity: FloatMatrix,
                      typ: npt.NDArray[np.float64], opts: AnalysisOptions) -> list[Verdict]:
    """``outlier-current`` when the version in the editor is far from the others."""
    current = report.current_index
    assert current is not None
    if current in report.empty:
        return []  # nothing to replace
    if report.n < 3:
        return []  # one other version is no consensus to be far from
    pos = report.indices.index(current)
    others = np.array([k for k in range(report.n) if k != pos])
    own = float(typ[pos])
    among = pair_means(similarity[np.ix_(others, others)])[0]
    if own >= among - opts.outlier_gap:
        return []
    best = report.medoid if report.medoid != current else None
    if best is None:
        others_typ = typ[others]
        best = report.indices[int(others[int(np.argmax(others_typ))])]
    message = (f"The current code is far from the consensus: JSD {own:.2f} to the others "
               f"vs {among:.2f} among them; {_versions([best])} is the most typical")
    return [Verdict(code="outlier-current", severity="warning", message=message,
                    samples=(current,), figure=own,
                    detail={"typicality": own, "others_mean": among, "consensus": best})]


def _merge_dynamic(report: StabilityReport, dynamic: DynamicLike | None) -> None:
    """Dynamic summary figures and verdicts join the structural ones."""
    if dynamic is None:
        return
    from codequorum.behaviour.runtimes import runtime_for, runtime_names

    if runtime_for(report.language) is None:
        report.notes.append(f"behaviour metrics are for {runtime_names()} only: the "
                            f"{report.language} versions were not run")
    for key, value in dynamic.summary.items():
        report.summary[key] = value
    report.verdicts.extend(dynamic.verdicts)
    report.dynamic = dynamic.to_dict()
