"""The verdicts of a dynamic run, one pure function per rule.

Each rule reads figures the dynamic analysis has already computed (OER and the first
input where versions part, growth exponents, BEF) and returns a :class:`Verdict` or
``None``. Nothing here runs code or reads files.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from codequorum.core.report import Verdict
from codequorum.judge.verdicts import (
    COMPLEXITY_OUTLIER,
    DIVERGENT_OUTPUTS,
    NO_VERSION_PASSES,
    NOT_RUN,
    NOT_RUN_IN_MODULE,
    REDUNDANT_ALTERNATIVES,
    RUNTIME_INSTABILITY,
    VerdictSpec,
)
from codequorum.metrics.growth import (
    cost_floor,
    growth_class,
    growth_exponent,
)
from codequorum.metrics.semantic import Divergence

#: What a growth exponent rests on (``growth_points`` are (size, CPU ns) pairs).
GROWTH_MEASURE = "CPU time per call"
#: ... where the portable sandbox ran (``growth_measure`` ``fuel``: (size, instructions)).
FUEL_MEASURE = "WebAssembly instructions per call"
#: ... for JavaScript (``growth_measure`` ``bytecodes``: (size, executed bytecodes)).
BYTECODE_MEASURE = "Ignition bytecodes per call"


class Growth(Protocol):
    """What the complexity rule reads of one version's run: its growth exponent over the
    scaling series, from CPU time per call (:data:`GROWTH_MEASURE`)."""

    @property
    def index(self) -> int: ...

    @property
    def growth(self) -> float | None: ...

    @property
    def growth_points(self) -> list[tuple[int, int]]: ...

    @property
    def unfinished_size(self) -> int | None: ...

    @property
    def growth_measure(self) -> str: ...


class Ranked(Growth, Protocol):
    """What the rules read of one version's run: its growth, its pass rate, and how many
    graded inputs it passed of how many it was graded on."""

    @property
    def pass_rate(self) -> float | None: ...

    @property
    def passed(self) -> int: ...

    @property
    def graded(self) -> int: ...


class RuleInputs(Protocol):
    """What the rules read of a run beyond its summary, with the thresholds it was asked to
    judge by (``codequorum.behaviour.dynamic_analysis.RuleFigures``)."""

    @property
    def divergence(self) -> Divergence | None: ...

    @property
    def input_label(self) -> str: ...

    @property
    def input_source(self) -> str: ...

    @property
    def traced(self) -> int: ...

    @property
    def sctd_jsd(self) -> float: ...

    @property
    def dctd_jsd(self) -> float: ...

    @property
    def oer_threshold(self) -> float: ...

    @property
    def growth_outlier_delta(self) -> float: ...

    @property
    def bef_low(self) -> float: ...

    @property
    def bef_high(self) -> float: ...

    @property
    def module_problem(self) -> str | None: ...

    @property
    def not_run(self) -> str | None: ...


class RunFigures(Protocol):
    """What the rules read of a run (``codequorum.behaviour.dynamic_analysis.DynamicReport``)."""

    @property
    def summary(self) -> Mapping[str, float | None]: ...

    @property
    def candidates(self) -> Sequence[Ranked]: ...

    @property
    def rules(self) -> RuleInputs: ...


def growth_text(exponent: float) -> str:
    """``constant``, ``n``, ``n²``, ``n³``: the exponent's whole-number class
    (:func:`~codequorum.metrics.growth.growth_class`). Measured CPU time tells classes
    apart, not fractions: a sort (n log n) or a builtin that allocates once its items pass
    the small-integer cache grows with a slope of 1.1 to 1.45 over the scaling sizes, and
    both read as ``n``."""
    r = growth_class(exponent)
    if r == 0:
        return "constant"
    if r == 1:
        return "n"
    return {2: "n²", 3: "n³", 4: "n⁴"}.get(r, f"n^{r}")


def _versions(ix: Sequence[int]) -> str:
    nums = [str(i + 1) for i in ix]
    if len(nums) == 1:
        return f"version {nums[0]}"
    return "versions " + ", ".join(nums[:-1]) + " and " + nums[-1]


def divergent_outputs_verdict(
    oer_value: float | None,
    divergence: Divergence | None,
    label: str,
    source: str,
    threshold: float,
    oer_no_ex: float | None = None,
) -> Verdict | None:
    """``divergent-outputs``: OER below ``threshold`` and an input where versions part.

    ``divergence``: the first such input (:func:`codequorum.metrics.semantic.first_divergence`),
    ``label`` and ``source`` naming it; an input from the model is said to be one.
    """
    if oer_value is None or divergence is None or oer_value >= threshold:
        return None
    (a, shown_a), (b, shown_b) = sorted([(divergence.a, divergence.shown_a),
                                         (divergence.b, divergence.shown_b)])
    where = f"{label} (an input from the model)" if source == "model" else label
    return DIVERGENT_OUTPUTS.verdict(
        message=f"versions {a + 1} and {b + 1} disagree on {where}: {shown_a} vs {shown_b}",
        versions=(a, b),
        figure=oer_value,
        detail={"input": label, "source": source,
                "groups": [list(ix) for _, ix in divergence.groups],
                "oer": oer_value, "oer_no_ex": oer_no_ex},
    )


def _bef_verdict(spec: VerdictSpec, words: str, bound: str, bef_jsd: float,
                 sctd_jsd: float, dctd_jsd: float) -> Verdict:
    """A BEF rule's verdict: ``words (BEF 0.01 < 0.1)``, both divergences as detail."""
    return spec.verdict(f"{words} (BEF {bef_jsd:.3g} {bound})", figure=bef_jsd,
                        detail={"sctd_jsd": sctd_jsd, "dctd_jsd": dctd_jsd})


def runtime_instability_verdict(bef_jsd: float | None, sctd_jsd: float, dctd_jsd: float,
                                passing: int, low: float) -> Verdict | None:
    """``runtime-instability``: alike in bytecode, different at run time (BEF below
    ``low``, some traced divergence, two or more versions with traces)."""
    if bef_jsd is None or passing < 2 or not (bef_jsd < low and dctd_jsd > 1e-6):
        return None
    return _bef_verdict(RUNTIME_INSTABILITY,
                        "the versions look alike in bytecode but run differently",
                        f"< {low:g}", bef_jsd, sctd_jsd, dctd_jsd)


def redundant_alternatives_verdict(bef_jsd: float | None, sctd_jsd: float, dctd_jsd: float,
                                   passing: int, high: float) -> Verdict | None:
    """``redundant-alternatives``: different bytecode running the same way (BEF above
    ``high``, two or more versions with traces)."""
    if bef_jsd is None or passing < 2 or bef_jsd <= high:
        return None
    return _bef_verdict(REDUNDANT_ALTERNATIVES,
                        "the versions differ in bytecode but run the same way",
                        f"> {high:g}", bef_jsd, sctd_jsd, dctd_jsd)


def _complexity_outliers(measured: Sequence[Growth], slopes: dict[int, float],
                         delta: float) -> list[int]:
    """Versions at least ``delta`` from the median exponent, or that did not finish a
    scaling size another version finished."""
    center = statistics.median(slopes.values())
    finished_sizes = {s for c in measured if c.unfinished_size is None for s, _ in c.growth_points}
    outliers: list[int] = []
    for c in measured:
        slower = c.unfinished_size is not None and any(
            s >= c.unfinished_size for s in finished_sizes
        )
        apart = (c.growth is not None and abs(c.growth - center) >= delta
                 and _slopes_apart(c, measured))
        if slower or apart:
            outliers.append(c.index)
    return outliers


#: How far a version's measured slope must lie from the others' median slope for its
#: class to count as different: two slopes either side of a class boundary (0.45 and 0.6)
#: are one growth measured twice, not two.
SLOPE_APART = 0.5


def _raw_slope(c: Growth) -> float | None:
    """The measured log-log slope of ``c``'s points (before rounding to a class)."""
    if not c.growth_points:
        return None
    floor = cost_floor(str(getattr(c, "growth_measure", "cpu-time")))
    sizes, costs = zip(*c.growth_points, strict=True)
    return growth_exponent(sizes, costs, floor)


def _slopes_apart(c: Growth, measured: Sequence[Growth]) -> bool:
    """Whether ``c``'s measured slope lies :data:`SLOPE_APART` from the median of the
    others' (True where the slopes are not known: the classes decide alone)."""
    own = _raw_slope(c)
    others = [s for o in measured if o.index != c.index and (s := _raw_slope(o)) is not None]
    if own is None or not others:
        return True
    return abs(own - statistics.median(others)) >= SLOPE_APART


def measure_words(candidates: Sequence[Growth]) -> str:
    """What the growth rests on: ``CPU time per call, n=8 to 512`` (the sizes timed), or
    ``WebAssembly instructions per call, ...`` where the portable sandbox ran, ``Ignition
    bytecodes per call, ...`` for JavaScript."""
    words = _measure_name(candidates)
    sizes = sorted({s for c in candidates for s, _ in c.growth_points})
    if len(sizes) < 2:
        return words
    return f"{words}, n={sizes[0]} to {sizes[-1]}"


def _measure_name(candidates: Sequence[Growth]) -> str:
    """:data:`FUEL_MEASURE` (:data:`BYTECODE_MEASURE`) when every measured version's
    growth rests on fuel (executed bytecodes)."""
    measured = [c for c in candidates if c.growth_points]
    for measure, words in (("fuel", FUEL_MEASURE), ("bytecodes", BYTECODE_MEASURE)):
        if measured and all(c.growth_measure == measure for c in measured):
            return words
    return GROWTH_MEASURE


def _complexity_words(candidates: Sequence[Growth], outliers: Sequence[int],
                      slopes: dict[int, float], rest: Sequence[float]) -> str:
    """``version 3 grows about n², the others about n (CPU time per call, n=8 to 512)``."""
    parts: list[str] = []
    slow = [c.index for c in candidates if c.index in outliers and c.unfinished_size is not None]
    if slow:
        size = min(c.unfinished_size or 0 for c in candidates if c.index in slow)
        parts.append(f"{_versions(slow)} did not finish n={size} in time")
    by_text: dict[str, list[int]] = {}
    for i in outliers:
        if i in slopes and i not in slow:
            by_text.setdefault(growth_text(slopes[i]), []).append(i)
    for text, ix in sorted(by_text.items(), key=lambda kv: kv[1][0]):
        one = len(ix) == 1
        if text == "constant":
            parts.append(f"{_versions(ix)} {'does' if one else 'do'} not grow with n")
        else:
            parts.append(f"{_versions(ix)} {'grows' if one else 'grow'} about {text}")
    texts = {growth_text(v) for v in rest}
    top = growth_text(max(rest))
    if len(texts) > 1:
        tail = f"the others at most about {top}"
    elif top == "constant":
        tail = "the others do not grow with n"
    else:
        tail = f"the others about {top}"
    return f"{', '.join(parts)}, {tail} ({measure_words(candidates)})"


def complexity_verdict(candidates: Sequence[Growth], delta: float) -> Verdict | None:
    """``complexity-outlier``: a minority of versions whose growth exponent is at least
    ``delta`` away from the median of all measured versions, or that did not finish a
    scaling size another version finished."""
    slopes = {c.index: c.growth for c in candidates if c.growth is not None}
    measured = [c for c in candidates if c.growth is not None or c.unfinished_size is not None]
    if len(measured) < 2 or not slopes:
        return None
    outliers = _complexity_outliers(measured, slopes, delta)
    if not outliers or 2 * len(outliers) >= len(measured):
        return None
    rest = [s for i, s in slopes.items() if i not in outliers]
    if not rest:
        return None
    grown = [slopes[i] for i in outliers if i in slopes]
    return COMPLEXITY_OUTLIER.verdict(
        message=_complexity_words(candidates, outliers, slopes, rest),
        versions=tuple(outliers),
        figure=statistics.median(grown) if grown else None,
        detail={"growth": {str(i): v for i, v in slopes.items()},
                "typical": statistics.median(rest), "measure": _measure_name(candidates)},
    )


def module_verdict(problem: str | None) -> Verdict | None:
    """``not-run-in-module``: the versions could not run in their module as asked (it did
    not load in the sandbox, or they need names it cannot give), said on the function so
    that no verdict rests on a run that would have judged them wrongly
    (:func:`codequorum.behaviour.module_rules.judge_module` decides)."""
    if problem is None:
        return None
    return NOT_RUN_IN_MODULE.verdict(problem)


#: The reason of a run that had nothing to call the versions with.
NO_INPUTS_REASON = "no inputs"
#: What gives a run inputs, said beside :data:`NO_INPUTS_REASON` where the headline says it.
NO_INPUTS_HINT = ("a docstring example, a test, a call elsewhere in the workspace or "
                  "parameter types give inputs")


def no_version_passes_verdict(candidates: Sequence[Ranked]) -> Verdict | None:
    """``no-version-passes``: two versions or more were graded and none passed every graded
    input; the closest is named (the first of those passing most)."""
    graded = [c for c in candidates if c.graded > 0]
    if len(graded) < 2 or any(c.passed >= c.graded for c in graded):
        return None
    closest = max(graded, key=lambda c: (c.passed, -c.index))
    most = max(c.graded for c in graded)
    inputs = "the graded input" if most == 1 else f"all {most} graded inputs"
    message = f"none of {len(graded)} versions passes {inputs}"
    if closest.passed:
        message += f"; the closest, version {closest.index + 1}, passes {closest.passed}"
    return NO_VERSION_PASSES.verdict(message, versions=(closest.index,),
                                     detail={"graded": most, "closest": closest.index,
                                             "passed": closest.passed})


def not_run_headline(verdict: Verdict, shape_stable: bool) -> Verdict:
    """The ``not-run`` verdict as the headline: the shape's agreement named as the
    shape's (``shape stable; behaviour not run: no inputs``) and, for no inputs, what
    would give some (:data:`NO_INPUTS_HINT`)."""
    message = verdict.message
    if verdict.detail.get("reason") == NO_INPUTS_REASON:
        message = f"{message} ({NO_INPUTS_HINT})"
    if shape_stable:
        message = f"shape stable; {message}"
    return dataclasses.replace(verdict, message=message)


def not_run_verdict(reason: str | None) -> Verdict | None:
    """``not-run``: no version ran on any input, so nothing about behaviour was measured;
    said with the reason (no inputs, the module, the language...) so that no front end shows
    the shape's agreement as if the behaviour had been checked."""
    if reason is None:
        return None
    return NOT_RUN.verdict(f"behaviour not run: {reason}", detail={"reason": reason})


def _divergent_outputs(run: RunFigures) -> Verdict | None:
    rules, summary = run.rules, run.summary
    return divergent_outputs_verdict(summary.get("oer"), rules.divergence, rules.input_label,
                                     rules.input_source, rules.oer_threshold,
                                     summary.get("oer_no_ex"))


def _no_version_passes(run: RunFigures) -> Verdict | None:
    """Never beside ``not-run``: versions that never ran were not judged by the inputs."""
    if _not_run(run) is not None:
        return None
    return no_version_passes_verdict(run.candidates)


def _complexity(run: RunFigures) -> Verdict | None:
    """Among the versions with the best pass rate."""
    best = max((c.pass_rate for c in run.candidates if c.pass_rate is not None),
               default=None)
    working = [c for c in run.candidates if best and c.pass_rate == best]
    return complexity_verdict(working, run.rules.growth_outlier_delta)


def _runtime_instability(run: RunFigures) -> Verdict | None:
    r = run.rules
    return runtime_instability_verdict(run.summary.get("bef_jsd"), r.sctd_jsd, r.dctd_jsd,
                                       r.traced, r.bef_low)


def _redundant_alternatives(run: RunFigures) -> Verdict | None:
    """Never beside ``divergent-outputs``: versions whose outputs part ways do not "run the
    same way", however few of their opcodes the run reached."""
    if _divergent_outputs(run) is not None:
        return None
    r = run.rules
    return redundant_alternatives_verdict(run.summary.get("bef_jsd"), r.sctd_jsd, r.dctd_jsd,
                                          r.traced, r.bef_high)


def _module(run: RunFigures) -> Verdict | None:
    return module_verdict(run.rules.module_problem)


def _not_run(run: RunFigures) -> Verdict | None:
    return not_run_verdict(getattr(run.rules, "not_run", None))


#: Every dynamic rule, in the order its verdicts are listed: each reads a run's figures and
#: gives its verdict or None. A new dynamic verdict is its spec in ``judge/verdicts.py``
#: and its rule here.
DYNAMIC_RULES: tuple[Callable[[RunFigures], Verdict | None], ...] = (
    _divergent_outputs, _no_version_passes, _complexity, _runtime_instability,
    _redundant_alternatives, _module, _not_run,
)


def dynamic_verdicts(run: RunFigures) -> list[Verdict]:
    """Every rule of :data:`DYNAMIC_RULES` that fires on ``run``'s figures, in order."""
    found = (rule(run) for rule in DYNAMIC_RULES)
    return [v for v in found if v is not None]


__all__ = [
    "FUEL_MEASURE",
    "GROWTH_MEASURE",
    "Growth",
    "Ranked",
    "RuleInputs",
    "RunFigures",
    "complexity_verdict",
    "divergent_outputs_verdict",
    "dynamic_verdicts",
    "growth_text",
    "measure_words",
    "module_verdict",
    "no_version_passes_verdict",
    "not_run_headline",
    "not_run_verdict",
    "redundant_alternatives_verdict",
    "runtime_instability_verdict",
]
