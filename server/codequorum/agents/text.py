"""The readable text beside each tool's structured answer: a few lines an agent (or the
person watching it) reads at a glance. Built only from the result models, whose strings are
agent text already (:class:`~codequorum.agents.schema._Answer`: one line each, escaped, no live
link); a function's name is a code span it cannot close."""

from __future__ import annotations

from codequorum.agents.schema import CheckResult, CompareResult, SampleResult
from codequorum.core.safe_text import code_span
from codequorum.judge.structure import percentile_words
from codequorum.metrics.registry import STRUCTURE


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _agreement(result: CheckResult) -> str:
    """What no finding means: the versions agree, or, when none ran, agree in shape only
    (their outputs were never compared, so nothing says they behave alike)."""
    if result.dynamic.ran:
        return "no findings: the versions agree"
    if result.dynamic.requested:
        return "no findings: the versions agree in shape"
    return ("no findings: the versions agree in shape; their outputs were not compared "
            "(dynamic: true runs them in the sandbox)")


def check_text(result: CheckResult) -> str:
    """``check_function``: the headline, each finding, the version to keep and the input
    where the versions part ways."""
    head = f"{code_span(result.function, None)} in {result.path}"
    if result.status == "no-versions":
        return f"{head}: {result.message}"
    lines = [f"{head}: {result.compared} versions compared ({result.versions} stored); "
             f"stability {_figure(result.stability)}"
             + (f", {percentile_words(result.stability_percentile)}"
                if result.stability_percentile is not None else "")]
    if result.message:
        lines.append(result.message)
    if result.current:
        lines.append(f"current code: {result.current}")
    lines.extend(f"{f.severity} {f.code}: {f.message}" for f in result.findings)
    if not result.findings and result.status == "ok":
        lines.append(_agreement(result))
    rec = result.recommendation
    if rec is not None:
        lines.append(f"{rec.sentence} ({rec.trust})" if rec.trust else rec.sentence)
    if result.parting_input is not None:
        lines.append(result.parting_input.sentence)
    dyn = result.dynamic
    said = any(f.code == "not-run" for f in result.findings)  # the finding says why already
    if dyn.not_run is not None and not said:
        lines.append(f"behaviour not run: {dyn.not_run}")
    if dyn.requested and dyn.note:
        lines.append(f"sandbox: {dyn.note}")
    lines.extend(f"note: {n}" for n in result.notes
                 if not (said and n.startswith("behaviour not run")))
    return "\n".join(lines)


def compare_text(result: CompareResult) -> str:
    """``compare_versions``: agreement, groups, verdicts and the version to keep."""
    if result.status != "ok":
        return f"{result.n_total} versions: {result.message}"
    jsd = result.summary.get(STRUCTURE)
    mean = jsd.get("ordered") if isinstance(jsd, dict) else None
    lines = [f"{result.n} versions in {len(result.clusters)} group"
             f"{'s' if len(result.clusters) != 1 else ''}; stability {_figure(mean)}"
             + (f", {percentile_words(result.stability_percentile)}"
                if result.stability_percentile is not None else "")]
    lines.extend(f"{v.severity} {v.code}: {v.message}" for v in result.verdicts)
    if result.recommendation:
        trust = f" ({result.trust})" if result.trust else ""
        lines.append(f"{result.recommendation}{trust}")
    lines.extend(f"note: {n}" for n in result.notes)
    return "\n".join(lines)


def sample_text(result: SampleResult) -> str:
    """``sample_versions``: what came back and how many versions are stored now."""
    function = code_span(result.function, None)
    lines = [f"{result.summary} from {result.model} at {result.endpoint}; {function} in "
             f"{result.path} now has {result.stored} stored version"
             f"{'s' if result.stored != 1 else ''}"]
    lines.extend(o.detail if o.outcome != "accepted"
                 else f"version {o.index + 1}: accepted, {o.detail}" for o in result.outcomes)
    return "\n".join(lines)
