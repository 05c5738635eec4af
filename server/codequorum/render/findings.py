"""Findings: what a function's report says, worded once for every front end.

A report's verdicts become :class:`Finding` objects with a severity name, a code and the
message a person reads. The language server turns them into diagnostics, ``codequorum
check`` prints them. Reads the verdicts as they are; computes nothing. Text that is not our
own wording (verdict messages can quote what a version printed or raised, names come from
the document) goes through :func:`~codequorum.core.safe_text.safe_text`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codequorum.behaviour.input_plan import ORIGIN_WORDS
from codequorum.behaviour.runtimes import runtime_for
from codequorum.core.report import SEVERITIES, StabilityReport
from codequorum.core.safe_text import plain_message, safe_text
from codequorum.core.values import shown_output
from codequorum.core.words import versions_compared
from codequorum.judge.risk import NOT_RUN
from codequorum.judge.structure import percentile_words as percentile_words
from codequorum.judge.structure import shape_group
from codequorum.judge.verdicts import NOT_RUN as NOT_RUN_SPEC
from codequorum.judge.verdicts import QUIET_CODES, figure_text
from codequorum.pipeline.session import FunctionAnalysis

if TYPE_CHECKING:
    from codequorum.judge.recommend import Evidence

#: Severity names, most severe first, with their rank (a lower number is more severe).
RANK: dict[str, int] = {name: k + 1 for k, name in enumerate(SEVERITIES)}


@dataclass(frozen=True)
class Finding:
    """One finding about one function.

    ``overview`` says how the versions group; ``concerns`` names the versions the finding
    is about (None when it is about none in particular).
    """

    severity: str
    code: str
    message: str
    figure: float | None
    versions: tuple[int, ...]
    overview: str
    concerns: str | None


def compared_text(analysis: FunctionAnalysis) -> str:
    """``5 versions`` or ``4 versions + your code``: what was compared, counted alike by
    the hover, the diagnostics, the lens and the report (stored versions; the current code
    named apart when it is not one of them)."""
    current = analysis.current_index
    apart = current is not None and current >= analysis.n_stored
    return versions_compared(analysis.n_stored + (1 if apart else 0), apart)


def consensus(analysis: FunctionAnalysis) -> int | None:
    """The consensus version: the most typical stored version of the group that shares
    one shape (:func:`~codequorum.judge.structure.shape_group`, the current code counted
    as the structure verdict counts it); None when no two of those compared share a shape
    (a consensus of one is none) or the group holds no stored version."""
    report = analysis.report
    group = shape_group(report.clusters) if report.status == "ok" else None
    stored = [i for i in group or [] if i < analysis.n_stored and i in report.indices]
    if not stored:
        return None
    typ = {i: report.typicality[report.indices.index(i)] for i in stored
           if report.indices.index(i) < len(report.typicality)}
    return max(stored, key=lambda i: (typ.get(i, 0.0), -i))


def current_standing(analysis: FunctionAnalysis) -> str | None:
    """Where the current code stands, worded from the report's verdicts so the hover says
    what the diagnostics say: far from the consensus exactly when there is an
    ``outlier-current`` finding. None when the current code was not compared."""
    report = analysis.report
    current = analysis.current_index
    if report.status != "ok" or current is None or current not in report.indices:
        return None
    if current in report.empty:
        return "empty"
    where = analysis.cluster_of(current)
    groups = len(report.clusters)
    group = f"cluster {where + 1} of {groups}" if where is not None else "no cluster"
    if any(v.code == "outlier-current" for v in report.verdicts):
        return f"far from the consensus ({group})"
    agreed = consensus(analysis)
    if agreed is None:
        return f"no consensus to compare with ({group})"
    if where is not None and where == analysis.cluster_of(agreed):
        return "in the consensus cluster"
    return f"not far from the consensus ({group})"


def recommended_version(analysis: FunctionAnalysis) -> int | None:
    """The version the report recommends keeping, when it is not the current code."""
    report = analysis.report
    rec = report.recommended
    if report.status != "ok" or rec is None or rec >= analysis.n_stored:
        return None
    return None if rec == analysis.current_index else rec


def version_names(analysis: FunctionAnalysis) -> dict[int, str]:
    """How a message names the versions that are the file's code: ``the current code``
    when it is none of the stored versions, else ``version 3 (the current code)``, so a
    reader sees when the version that parts from the others is their own."""
    total = len(analysis.version_set.versions)
    names = {i: "the current code" for i in range(analysis.n_stored, total)}
    current = analysis.current_index
    if current is not None and current < analysis.n_stored:
        names[current] = f"version {current + 1} (the current code)"
    return names


def recommendation_lines(analysis: FunctionAnalysis, not_run: str | None = None) -> list[str]:
    """The recommendation, how far to trust it and, after a run, the input where the
    recommended version and the others part ways; each line escaped with
    :func:`~codequorum.core.safe_text.safe_text` (callers showing markdown escape again).
    ``not_run`` replaces "not run yet" where the caller knows more (why the versions do
    not run, or that they are running)."""
    report = analysis.report
    rec = report.recommended
    if report.status != "ok" or rec is None or not report.recommendation:
        return []
    sentence, names = report.recommendation, version_names(analysis)
    if rec in names:  # the report may have said it already (a remembered one may not)
        said = f"keep version {rec + 1} (the current code)"
        sentence = sentence.replace(said if said in sentence else f"keep version {rec + 1}",
                                    f"keep {names[rec]}", 1)
    lines = [plain_message(sentence)]
    if report.trust:  # how far to trust it; never a figure from shape alone beside it
        said = not_run if not_run is not None and report.trust == NOT_RUN else report.trust
        lines.append(plain_message(said))
    evidence = evidence_text(analysis)
    if evidence is not None:
        lines.append(evidence)
    return lines


#: The origin of an input in a report that predates ``origin`` (its ``source`` alone).
_OLD_ORIGINS = {"model": "proposed"}


def value_words(language: str | None) -> Callable[[str], str]:
    """How a returned value of ``language`` reads in a message (its runtime's ``shown``)."""
    runtime = runtime_for(language)
    return runtime.shown if runtime is not None else shown_output


def evidence_text(analysis: FunctionAnalysis) -> str | None:
    """After a run, the input where the recommended version and the others part ways
    (:func:`codequorum.judge.recommend.parting_input`) and where it came from
    (:data:`~codequorum.behaviour.input_plan.ORIGIN_WORDS`), escaped; None when there is
    none."""
    from codequorum.judge.recommend import (
        elsewhere_sentence,
        evidence_sentence,
        parting_elsewhere,
        parting_input,
    )

    rec = analysis.report.recommended
    outcomes = getattr(analysis.dynamic, "outcomes", None)
    inputs = getattr(analysis.dynamic, "inputs", None)
    total = len(analysis.version_set.versions)
    if rec is None or not outcomes or not inputs or len(outcomes) != total:
        return None
    shown = value_words(analysis.version_set.language)
    ev = parting_input(outcomes, inputs, rec, shown)
    if ev is None:
        return None
    names = version_names(analysis)
    sentence = evidence_sentence(_said_where(analysis, ev, rec), rec, names)
    elsewhere = [(v, _said_where(analysis, other, rec))
                 for v, other in parting_elsewhere(outcomes, inputs, rec, ev, shown)]
    if elsewhere:
        sentence = f"{sentence}; {elsewhere_sentence(elsewhere, rec, names)}"
    return plain_message(sentence)


def _said_where(analysis: FunctionAnalysis, ev: Evidence, version: int) -> Evidence:
    """``ev`` with where its input came from in its label (``(from a test)``) and, where a
    test asserts the outcome ``version`` gives there, that it is what the test expects."""
    inputs = getattr(analysis.dynamic, "inputs", None) or []
    spec = inputs[ev.input_index] if ev.input_index < len(inputs) else {}
    words = origin_words(spec, ev.source)
    if words:
        ev = dataclasses.replace(ev, label=f"{ev.label} ({words})")
    if _asserted_and_passed(analysis.dynamic, spec, version, ev.input_index):
        ev = dataclasses.replace(ev, shown=f"{ev.shown}, as the test expects")
    return ev


def _asserted_and_passed(dynamic: Any, spec: Mapping[str, Any], version: int,
                         index: int) -> bool:
    """Whether input ``index`` is a workspace test's call whose outcome the test asserts,
    and ``version`` passes it."""
    passes = getattr(dynamic, "passes", None) or []
    row = passes[version] if version < len(passes) else []
    return (spec.get("origin") == "test" and bool(spec.get("checked")) and bool(spec.get("where"))
            and index < len(row) and row[index] is True)


def origin_words(spec: Mapping[str, Any], source: str = "") -> str | None:
    """Where one input of a run came from, in words: ``a caller in app/cli.py:12`` or ``a
    test in tests/test_app.py:40`` for a call found in the workspace, else the words of
    its origin (:data:`~codequorum.behaviour.input_plan.ORIGIN_WORDS`)."""
    origin = str(spec.get("origin") or _OLD_ORIGINS.get(source, ""))
    where = spec.get("where")
    if isinstance(where, str) and where and origin in ("caller", "test"):
        return f"{'a test' if origin == 'test' else 'a caller'} in {where}"
    return ORIGIN_WORDS.get(origin)


def inputs_text(analysis: FunctionAnalysis) -> str | None:
    """After a run, how many inputs it ran on, under which interpreter where it is not
    this Python (``node 20.20.2``), and where they came from (``ran on 12 inputs: 3
    doctest, 8 edge, 1 caller``, origins in run order); None without a run."""
    under = str(getattr(analysis.dynamic, "python", "") or "")
    return ran_on(getattr(analysis.dynamic, "inputs", None) or [],
                  under if not under[:1].isdigit() else "")


def ran_on(inputs: Sequence[Mapping[str, Any]], under: str = "") -> str | None:
    """:func:`inputs_text` of a run's ``inputs`` (the dynamic report's entries) under the
    interpreter named ``under`` (none named when empty)."""
    if not inputs:
        return None
    counts: dict[str, int] = {}
    for spec in inputs:
        origin = str(spec.get("origin") or _OLD_ORIGINS.get(str(spec.get("source")), "")
                     or spec.get("source") or "?")
        counts[origin] = counts.get(origin, 0) + 1
    parts = ", ".join(f"{n} {safe_text(origin, 20)}" for origin, n in counts.items())
    named = f" in {safe_text(under, 40)}" if under else ""
    return f"ran on {len(inputs)} input{'s' if len(inputs) != 1 else ''}{named}: {parts}"


def versions_text(analysis: FunctionAnalysis, indices: Sequence[int]) -> str:
    """``v1, v3, current`` (six at most, then how many more)."""
    labels = [safe_text(analysis.label(i), 40) for i in indices[:6]]
    more = f" and {len(indices) - 6} more" if len(indices) > 6 else ""
    return ", ".join(labels) + more


def not_run_reason(report: StabilityReport) -> str | None:
    """Why the versions of a report ran on no input after a run was asked for (None: they
    ran, or no run was asked): the reason of its ``not-run`` verdict."""
    for verdict in report.verdicts:
        if verdict.code == NOT_RUN_SPEC.code:
            reason = verdict.detail.get("reason")
            return str(reason) if reason else verdict.message
    return None


def function_findings(
    analysis: FunctionAnalysis, name: str, min_severity: str = "hint"
) -> list[Finding]:
    """The findings of one function (``name``: as written in its definition where the
    finding sits on it, a diagnostic; its qualified name in a list of many), at or above
    ``min_severity``. Their texts are plain messages
    (:func:`~codequorum.core.safe_text.plain_message`), whoever shows them (a diagnostic,
    a line of ``check``, SARIF, an agent): they quote names and outputs of a repository's
    or a model's choosing, and no link or tag in those is left live."""
    report = analysis.report
    limit = RANK[min_severity]
    agreed = consensus(analysis)
    groups = len(report.clusters)
    overview = (
        f"`{safe_text(analysis.qualified_name, 200)}`: {compared_text(analysis)} compared in "
        f"{groups} group{'s' if groups != 1 else ''}"
        + (
            f"; consensus is {safe_text(analysis.label(agreed), 40)}"
            if agreed is not None
            else f"; no consensus: no two of the {compared_text(analysis)} share a shape"
            if report.status == "ok"
            else ""
        )
    )
    compared = compared_text(analysis)
    out: list[Finding] = []
    for verdict in report.verdicts:
        if verdict.code in QUIET_CODES or RANK.get(verdict.severity, 4) > limit:
            continue
        message = safe_text(verdict.message)
        said = figure_text(verdict.code, verdict.figure)
        if said and f"{verdict.figure:.2f}" not in message:
            message = f"{message} ({said})"
        message = f"{message} [`{safe_text(name, 200)}`: {compared}]"
        concerns = (
            f"{safe_text(verdict.code, 60)} concerns {versions_text(analysis, verdict.versions)}"
            if verdict.versions
            else None
        )
        out.append(
            Finding(
                severity=verdict.severity if verdict.severity in RANK else "information",
                code=safe_text(verdict.code, 60),
                message=plain_message(message, None),
                figure=verdict.figure,
                versions=tuple(verdict.versions),
                overview=plain_message(overview, None),
                concerns=None if concerns is None else plain_message(concerns, None),
            )
        )
    return out
