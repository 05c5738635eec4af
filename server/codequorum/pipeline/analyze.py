"""Version set -> stability report: matrices, summaries, typicality, clusters, verdicts.

The metric modules compute the pairwise matrices; this module only combines them: which
versions are usable, the pair means, how typical each version is, which versions share a
shape (average-linkage clusters on ``1 - JSD``), the consensus version (medoid), and the
verdicts in words. Everything after the metrics is vectorised numpy, so a set of 100
versions costs a few milliseconds on top of the matrices.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from codequorum.core.errors import SandboxUnavailableError, UserError
from codequorum.core.limits import InputLimitError, nesting_problem, version_size_problem
from codequorum.core.model import VersionSet
from codequorum.core.parsing import member_form, nests_deeper, parse, parse_versions
from codequorum.core.report import (
    FloatMatrix,
    SkippedVersion,
    StabilityReport,
    Verdict,
    json_number,
)
from codequorum.core.words import versions_compared, versions_named
from codequorum.judge.dynamic_rules import RunFigures, dynamic_verdicts, not_run_headline
from codequorum.judge.structure import ShapeFacts, shape_verdicts
from codequorum.judge.verdicts import INPUT_LIMIT as INPUT_LIMIT_SPEC
from codequorum.judge.verdicts import NOT_RUN, STABLE
from codequorum.metrics.clustering import average_linkage, pair_means, symmetrise, typicality
from codequorum.metrics.registry import PAIR_METRICS, Prepared
from codequorum.pipeline.config import AnalysisConfig

if TYPE_CHECKING:

    from codequorum.judge.recommend import KeyMatrix, Recommendation
    from codequorum.judge.risk import RiskSignals

#: Scalar token LCS / Levenshtein figures copied into the summary (``textual`` on).
TEXTUAL_KEYS: tuple[str, ...] = ("lcs_mean", "lcs_worst", "led_mean", "led_worst",
                                 "lcs_pair_mean", "led_pair_mean")
#: pycode_similar's similarities (Python only, ``textual`` on): mean over ordered pairs.
AST_DIFF_KEYS: tuple[str, ...] = ("unified_diff", "tree_diff")

#: Trees of the versions kept from the first parse for the tree metrics (TSED): each with
#: at most this many nodes (TSED compares trees of at most 3,000 named nodes), and at most
#: ``KEEP_TOTAL_NODES`` together (about 140 MB); the others are parsed again one at a time.
KEEP_TREE_NODES = 12_000
KEEP_TOTAL_NODES = 1_000_000

log = logging.getLogger(__name__)



class DynamicLike(RunFigures, Protocol):
    """What :func:`analyze` reads of a run
    (``codequorum.behaviour.dynamic_analysis.DynamicReport``):
    its figures, what the verdict rules read, and its JSON form."""

    def to_dict(self, verdicts: Sequence[Verdict] = ()) -> dict[str, Any]: ...


def _insufficient(version_set: VersionSet, indices: list[int], empty: list[int],
                  options: AnalysisConfig, current_index: int | None) -> StabilityReport:
    """The no-score report for a set with fewer than two versions or none with code, with
    the reason."""
    n_total = len(version_set.versions)
    usable = len(indices)
    word = "version" if usable == 1 else "versions"
    message = f"only {usable} usable {word} of {n_total}; at least two are needed to compare"
    return StabilityReport(
        task_id=version_set.task_id, language=version_set.language, status="insufficient",
        n=usable, n_total=n_total, indices=indices, empty=empty, message=message,
        current_index=current_index, options=options.to_dict(),
    )


#: The note of a set whose every version is empty.
ALL_EMPTY_NOTE = ("every version is empty: nothing to compare in shape or behaviour; token "
                  "LCS 0 and LED 0, as the study's scripts give")


def _all_empty(version_set: VersionSet, indices: list[int], options: AnalysisConfig,
               current_index: int | None) -> StabilityReport:
    """The report of a set whose every version is empty: an outcome, scored as the
    study's scripts score it (token LCS 0 and LED 0 for every pair, as figures and, when
    matrices are kept, as the ``lcs`` and ``led`` matrices; no tree, so no shape figure,
    no verdict and nothing to keep), with a note saying so."""
    shapes = [m.key for m in PAIR_METRICS
              if m.wanted(options.metrics) and m.applies(version_set.language)]
    summary: dict[str, Any] = {name: {"ordered": None, "unordered": None} for name in shapes}
    matrices: dict[str, FloatMatrix] = {}
    if options.textual:
        from codequorum.metrics.textual import textual_summary

        textual = textual_summary(version_set.codes)
        summary.update({key: float(getattr(textual, key)) for key in TEXTUAL_KEYS})
        summary.update(dict.fromkeys(AST_DIFF_KEYS))
        matrices["lcs"] = np.asarray(textual.lcs, dtype=np.float64)
        matrices["led"] = np.asarray(textual.led, dtype=np.float64)
    return StabilityReport(
        task_id=version_set.task_id, language=version_set.language, status="ok",
        n=len(indices), n_total=len(indices), indices=indices, empty=list(indices),
        syntax_errors=[0] * len(indices), summary=summary, notes=[ALL_EMPTY_NOTE],
        matrices=matrices if options.keep_matrices else {},
        current_index=current_index, options=options.to_dict(),
    )


def analyze(
    version_set: VersionSet,
    options: AnalysisConfig | None = None,
    dynamic: DynamicLike | None = None,
    current_index: int | None = None,
) -> StabilityReport:
    """Score how much the versions in ``version_set`` agree (:func:`_analyze`), and name
    the model that made them."""
    from codequorum.judge.calibration import model_of

    report = _analyze(version_set, options, dynamic, current_index)
    report.model = model_of([s.model for s in version_set.versions])
    return report


def _analyze(
    version_set: VersionSet,
    options: AnalysisConfig | None = None,
    dynamic: DynamicLike | None = None,
    current_index: int | None = None,
) -> StabilityReport:
    """Score how much the versions in ``version_set`` agree.

    Every version is scored: an empty answer is an outcome (listed in ``empty``; each metric
    treats it as its reference does, see docs/metrics.md), versions with syntax errors are
    scored as parsed (tree-sitter recovers) and counted in ``syntax_errors`` (not a
    JavaScript method given alone: it parses as a class's member). Fewer than two
    versions give a report with ``status="insufficient"`` and the reason, not an
    exception; a set whose every version is empty is scored as the study's scripts score
    it (token LCS 0 and LED 0) with a note. ``current_index`` (a position in the set)
    marks the version in the editor: when it is far from the consensus an
    ``outlier-current`` verdict says so.
    ``dynamic`` (a ``DynamicLike``) merges its summary figures and verdicts into the report.
    A version over a bound of :mod:`codequorum.core.limits` (size, nesting, parse time) raises
    :class:`~codequorum.core.limits.InputLimitError` naming it before anything reads it
    recursively.
    """
    opts = options or AnalysisConfig()
    codes_all = version_set.codes
    if current_index is not None and not 0 <= current_index < len(codes_all):
        raise ValueError(f"current_index {current_index} is outside the set "
                         f"(0..{len(codes_all) - 1})")
    indices = list(range(len(codes_all)))
    skipped: list[SkippedVersion] = []
    empty = [i for i, code in enumerate(codes_all) if not code.strip()]
    if len(indices) < 2:
        report = _insufficient(version_set, indices, empty, opts, current_index)
        _merge_dynamic(report, dynamic)
        return report
    if len(empty) == len(indices):
        report = _all_empty(version_set, indices, opts, current_index)
        _merge_dynamic(report, dynamic)
        return report

    codes = [codes_all[i] for i in indices]
    n = len(codes)
    if n > opts.max_versions:
        raise UserError(f"{n:,} usable versions; at most {opts.max_versions:,} are compared at "
                        "once (the pairs grow as n²): score the first K with --samples K")
    trees = parse_versions(codes, version_set.language, keep_nodes=KEEP_TREE_NODES,
                           keep_total=KEEP_TOTAL_NODES)
    prepared = Prepared(codes, version_set.language, max_depth=opts.max_depth,
                        jsd_log_base=opts.jsd_log_base, tsed_costs=opts.tsed_costs,
                        parsed=trees)
    matrices: dict[str, FloatMatrix] = {
        m.key: m.compute(prepared) for m in PAIR_METRICS
        if m.wanted(opts.metrics) and m.applies(version_set.language)
    }
    syntax_errors = [0 if e and member_form(code, version_set.language) else int(e)
                     for code, e in zip(codes, prepared.structural.syntax_errors, strict=True)]
    notes = _input_notes(empty, [indices[k] for k, e in enumerate(syntax_errors) if e > 0],
                         current_index)
    notes.extend(_tsed_note(matrices, indices, current_index))
    summary = _summary(codes, version_set.language, opts, matrices)

    similarity = symmetrise(matrices["jsd_struct"])
    typ = typicality(similarity)
    medoid_pos = int(np.argmax(typ))
    groups = average_linkage(1.0 - similarity, opts.cluster_threshold)
    clusters = [[indices[k] for k in g] for g in groups]

    report = StabilityReport(
        task_id=version_set.task_id, language=version_set.language, status="ok", n=n,
        n_total=len(codes_all), indices=indices, skipped=skipped, empty=empty,
        syntax_errors=syntax_errors,
        matrices=matrices if opts.keep_matrices else {},
        summary=summary, typicality=[float(x) for x in typ], medoid=indices[medoid_pos],
        clusters=clusters, notes=notes, current_index=current_index, options=opts.to_dict(),
    )
    current_apart = (current_index is not None
                     and version_set.versions[current_index].origin == "current")
    report.verdicts = shape_verdicts(ShapeFacts(report, similarity, typ, groups, opts,
                                                versions_compared(n, current_apart)))
    _merge_dynamic(report, dynamic)
    _recommend(report, dynamic, opts, codes_all)
    return report


def admit(version_set: VersionSet) -> None:
    """Raise :class:`~codequorum.core.limits.InputLimitError` when a version of the set, its
    prompt or a test harness is over a bound of :mod:`codequorum.core.limits`: what must hold
    before they are compiled, read with ``ast`` or run (``analyze`` checks the versions
    itself)."""
    texts = [("the prompt", version_set.prompt or "", version_set.language)]
    texts += [(f"test {t.name or k + 1}", t.source or "", "python")  # harnesses are Python
              for k, t in enumerate(version_set.tests)]
    for what, text, language in texts:
        too_big = version_size_problem(text)
        if too_big is not None:
            raise InputLimitError(f"not run: {what} is {too_big}")
        if text and nests_deeper(parse(text, language)):
            raise InputLimitError(f"not run: {what} is {nesting_problem()}")
    parse_versions(version_set.codes, version_set.language, keep_nodes=0, keep_total=0)


#: The verdict of a set refused before scoring (a version over a bound).
INPUT_LIMIT = INPUT_LIMIT_SPEC.code


def refused(version_set: VersionSet, reason: str, options: AnalysisConfig | None = None,
            current_index: int | None = None) -> StabilityReport:
    """The report of a set refused before scoring (``reason``: the
    :class:`~codequorum.core.limits.InputLimitError`'s message): nothing compared, the reason as
    its message and as an ``input-limit`` verdict, so an editor and ``check`` show it on
    the function like any finding."""
    n_total = len(version_set.versions)
    return StabilityReport(
        task_id=version_set.task_id, language=version_set.language, status="insufficient",
        n=0, n_total=n_total, indices=[], message=reason, current_index=current_index,
        options=(options or AnalysisConfig()).to_dict(),
        verdicts=[INPUT_LIMIT_SPEC.verdict(reason)],
    )


def _input_notes(empty: Sequence[int], with_errors: Sequence[int],
                 current: int | None) -> list[str]:
    """What the report says about empty answers and versions with syntax errors."""
    notes: list[str] = []
    if empty:
        verb = "is" if len(empty) == 1 else "are"
        notes.append(f"{versions_named(empty, current)} {verb} empty: scored as an empty "
                     "answer (token LCS 0; left out of SCTD)")
    if with_errors:
        verb = "has" if len(with_errors) == 1 else "have"
        notes.append(f"{versions_named(with_errors, current)} {verb} syntax errors "
                     "(scored as parsed)")
    return notes


def _tsed_note(matrices: dict[str, FloatMatrix], indices: Sequence[int],
               current: int | None) -> list[str]:
    """The note naming the versions (positions ``indices``, one per code) whose tree was
    too large for TSED to compare."""
    tsed_any = matrices.get("tsed", matrices.get("tsed_08"))
    if tsed_any is None:
        return []
    n = len(indices)
    # a version no other could be compared with: its tree was too large
    nan_off = np.isnan(tsed_any) & ~np.eye(n, dtype=bool)
    too_large = [indices[k] for k in range(n) if int(nan_off[k].sum()) == n - 1]
    if too_large and n == 2:
        return ["TSED left out: a tree is too large to compare"]
    if too_large:
        return [f"TSED left out for {versions_named(too_large, current)}: tree too large to "
                "compare"]
    return []


def _summary(codes: Sequence[str], language: str, opts: AnalysisConfig,
             matrices: dict[str, FloatMatrix]) -> dict[str, Any]:
    """Static SCTD (Python), the pair means of every matrix, and with ``textual`` the
    token and AST-diff similarities (their matrices join ``matrices``)."""
    from codequorum.behaviour.runtimes import runtime_for  # the sandbox's modules, when used

    summary: dict[str, Any] = {}
    if opts.sctd and runtime_for(language) is not None:
        summary.update(static_sctd(codes, opts.interpreter, language))
    for metric in PAIR_METRICS:
        if metric.key in matrices:
            ordered, unordered = pair_means(matrices[metric.key])
            summary[metric.key] = {"ordered": ordered, "unordered": unordered}
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
        out[key] = json_number(pair_means(m)[0])
    return out


def static_sctd(codes: Sequence[str], interpreter: str | None = None,
                language: str = "python") -> dict[str, float | None]:
    """``sctd_jsd`` and ``sctd_tau`` from static opcode counts (see
    :func:`codequorum.metrics.opcodes.sctd`): each version is compiled under ``interpreter``
    (default: this one), never run. Versions that are empty or do not compile are left out,
    as in the reference; fewer than two left give None. The keys are the dynamic report's:
    a ``--dynamic`` run writes the same value under the same name.
    """
    from codequorum.behaviour.runtimes import runtime_for
    from codequorum.metrics.opcodes import sctd

    present = [k for k, code in enumerate(codes) if code.strip()]
    runtime = runtime_for(language)
    if runtime is None:
        return {"sctd_jsd": None, "sctd_tau": None}
    try:  # CPython compiles here (identical versions once); Node in its sandbox
        counted = runtime.static_counts([codes[k] for k in present], interpreter)
    except SandboxUnavailableError as exc:
        log.info("no static opcode counts of %s versions: %s", language, exc)
        return {"sctd_jsd": None, "sctd_tau": None}
    result = sctd(counted)
    have = result.used >= 2
    return {"sctd_jsd": result.jsd if have else None, "sctd_tau": result.tau if have else None}


def _recommend(report: StabilityReport, dynamic: DynamicLike | None,
               opts: AnalysisConfig, codes: Sequence[str]) -> None:
    """The version to keep, the risk that it is wrong (after a run only: from shape
    alone no probability holds across models), and the stability percentile."""
    from codequorum.judge.recommend import (
        example_columns,
        examples_from_dynamic,
        examples_named,
        keys_from_dynamic,
        recommend,
    )
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
                    [report.indices[k] for k in answered], examples, example_count,
                    report.current_index,
                    examples_named(getattr(dynamic, "inputs", None) or []))
    if rec is None:
        return
    report.recommended, report.recommended_by = rec.index, rec.by
    report.recommendation = current_named(rec.sentence, rec.index, report.current_index)
    mean_similarity = report.pair("jsd_struct") or 0.0
    est = (estimate(risk_signals(rec, keys, codes, examples, example_columns(
        getattr(dynamic, "inputs", None) or []))) if keys is not None else None)
    if est is not None:
        report.risk = report.risk_alone = est.probability
        report.risk_evidence = est.kind
        report.risk_level = est.level
        if est.low is not None and est.high is not None:
            report.risk_range = [est.low, est.high]
    report.trust = trust_words(est, ran=dynamic is not None,
                               why=dynamic.rules.not_run if dynamic is not None else None,
                               language=report.language)
    if (opts.max_depth == REFERENCE_OPTIONS["max_depth"]
            and opts.jsd_log_base == REFERENCE_OPTIONS["jsd_log_base"]):
        report.stability_percentile = stability_percentile(mean_similarity)


def current_named(sentence: str, kept: int, current: int | None) -> str:
    """``keep version 1 (the current code): ...`` where the version kept is the file's code,
    so every front end (``score`` on an exported set too) says so."""
    if kept != current:
        return sentence
    return sentence.replace(f"keep version {kept + 1}",
                            f"keep version {kept + 1} (the current code)", 1)


def risk_signals(rec: Recommendation, keys: KeyMatrix, codes: Sequence[str],
                 examples: Sequence[int] | None = None,
                 example_cols: Sequence[int] = ()) -> RiskSignals:
    """What a run says about the kept version (:class:`~codequorum.judge.risk.RiskSignals`):
    ``keys``, the outcome matrix of every version; ``codes``, their texts; ``examples``,
    per version the docstring examples it passes, at the columns ``example_cols``."""
    from codequorum.judge.recommend import agreeing_versions, behaviours
    from codequorum.judge.risk import RiskSignals

    def text(code: str) -> str:
        return " ".join(code.split())

    agreed = rec.by == "behaviour"
    agreeing = agreeing_versions(keys, rec.index) if agreed else [rec.index]
    distinct, runner_up = behaviours(keys, rec.index)
    own = keys[rec.index]
    shown = set(example_cols)
    beyond = [t for t, k in enumerate(own) if k is not None and t not in shown]
    apart = 0
    if rec.passes_examples and examples is not None:
        apart = sum(1 for v, row in enumerate(keys) if v < len(examples)
                    and examples[v] == rec.examples
                    and any(t >= len(row) or row[t] != own[t] for t in beyond))
    return RiskSignals(
        versions=rec.versions, agreed=agreed, agreeing=len(agreeing),
        agreeing_texts=len({text(codes[v]) for v in agreeing}),
        texts=len({text(c) for c in codes}), share=rec.share, examples=rec.examples,
        passes_examples=rec.passes_examples,
        passing=round(rec.examples_consensus * rec.versions),
        runner_up=runner_up if agreed else 0, behaviours=distinct,
        inputs=max((len(r) for r in keys), default=0), beyond=len(beyond),
        passing_apart=apart)


def _merge_dynamic(report: StabilityReport, dynamic: DynamicLike | None) -> None:
    """Dynamic summary figures join the structural ones, and the dynamic verdicts
    (:func:`codequorum.judge.dynamic_rules.dynamic_verdicts`) the structural verdicts."""
    if dynamic is None:
        return
    from codequorum.behaviour.runtimes import runtime_for, runtime_names

    if runtime_for(report.language) is None:
        report.notes.append(f"behaviour metrics are for {runtime_names()} only: the "
                            f"{report.language} versions were not run")
    for key, value in dynamic.summary.items():
        report.summary[key] = value
    verdicts = dynamic_verdicts(dynamic)
    report.verdicts.extend(v for v in verdicts if v.code != NOT_RUN.code)
    for verdict in verdicts:
        if verdict.code == NOT_RUN.code:  # the headline where nothing warns: never "stable"
            report.verdicts.insert(0, _not_run_headline(verdict, report.verdicts))
            report.notes.append(verdict.message)
    report.dynamic = dynamic.to_dict(verdicts)


def _not_run_headline(verdict: Verdict, others: Sequence[Verdict]) -> Verdict:
    """The ``not-run`` verdict in front of the others (:func:`not_run_headline`: the
    shape's agreement named as the shape's, what would give inputs)."""
    return not_run_headline(verdict, any(v.code == STABLE.code for v in others))
