"""Version set -> sandboxed runs -> SCTD, DCTD, BEF, pass rates, OER, growth.

Steps:

1. inputs (:func:`codequorum.behaviour.input_plan.collect_inputs`): tests, HumanEval, doctests,
   Hypothesis, scaling series, in that order;
2. static opcode counts of every candidate in this process (compiled, never executed);
3. every candidate runs every input in one sandbox child (:mod:`codequorum.behaviour.sandbox`),
   traced. An input that overruns ``test_timeout_seconds`` gets outcome ``Timeout`` and
   the child goes on with the next one, each later input with half the budget of the one
   that overran (down to 0.25 s; in every sandbox and in Node's harness); after a timeout
   on a scaling size the larger sizes are not run. The child's whole run is bounded by
   ``timeout_seconds`` plus ``test_timeout_seconds`` for each of up to
   ``overrun_allowance`` such inputs;
4. metrics: SCTD over the static counts, DCTD over the traces of inputs a candidate
   passed (graded inputs: the test passed; other inputs: returned without an exception),
   BEF = SCTD / (DCTD + 1e-9), pass rates over graded inputs (if there are none: the share
   of inputs run without an exception), OER over all inputs except the scaling series,
   growth = the whole-number exponent of the log-log slope of CPU time per call against
   the scaling size (:mod:`codequorum.metrics.growth`; the child times each scaling input
   untraced, ``sandbox/timing.py``, so work inside builtins and C extensions counts,
   which opcode counts miss); scaling inputs enter OER only where every candidate
   finished them;
5. what the verdict rules read (:class:`RuleFigures`, with the thresholds of
   :class:`DynamicOptions`): the rules themselves are :mod:`codequorum.judge.dynamic_rules`,
   called by the pipeline.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from codequorum.behaviour.input_plan import (
    InputCase,
    InputPlan,
    Proposer,
    collect_inputs,
    find_function,
    with_language,
)
from codequorum.behaviour.module_rules import (
    class_method_inputs,
    judge_module,
    method_inputs,
    runs_alone_after,
    takes_instance,
)
from codequorum.behaviour.runtimes import runtime_for, runtime_names
from codequorum.behaviour.runtimes.runtime import Runtime
from codequorum.behaviour.sandbox.isolation import (
    AUTO,
    PORTABLE_NOTE,
    WEAK_WARNING,
    active_layers,
    choose,
)
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.pool import run_pool
from codequorum.behaviour.sandbox.portable.unsupported import NOT_SUPPORTED, unsupported
from codequorum.behaviour.sandbox.supervisor import (
    SANDBOX_LEVELS,
    CandidateResult,
    ModuleLoad,
    TestOutcome,
)
from codequorum.core.errors import UserError
from codequorum.core.model import ModuleContext, VersionSet
from codequorum.core.report import Verdict
from codequorum.core.safe_text import safe_text
from codequorum.generate.endpoint import ProviderConfig
from codequorum.generate.proposed_inputs import proposer_for
from codequorum.metrics.growth import (
    COST_FLOOR_NS,
    cost_floor,
    growth_class,
    growth_exponent,
    judged_class,
)
from codequorum.metrics.opcodes import (
    DivergenceResult,
    OpcodeMode,
    apply_mode,
    sctd,
    static_opcode_counts,
    total_opcodes,
)
from codequorum.metrics.semantic import (
    Divergence,
    Outcome,
    first_divergence,
    oer,
    output_groups,
    pair_mean_oer,
    pass_rate_stats,
    show_outcome,
)
from codequorum.metrics.trace_divergence import bef, dctd

SUMMARY_KEYS = (
    "sctd_jsd",
    "sctd_tau",
    "dctd_jsd",
    "dctd_tau",
    "bef_jsd",
    "bef_tau",
    "oer",
    "oer_no_ex",
    "pass_rate_mean",
    "pass_rate_var",
    "pass_rate_max_diff",
)
"""Keys every :attr:`DynamicReport.summary` has (values may be ``None``)."""


class InvalidOptionsError(UserError, ValueError):
    """Dynamic analysis options out of range."""

    exit_code = 2


_SCALING_SERIES = "scaling"
_SKIPPED = "Skipped"
_LIMIT_EXCEPTIONS = ("Timeout", "MemoryError", "Cancelled", "SandboxError", "Crash")


@dataclass
class DynamicOptions:
    """Knobs of the dynamic analysis (all thresholds configurable).

    ``test_timeout_seconds`` is the wall budget of each input (``None``: none);
    ``timeout_seconds`` the budget of a candidate's work over all of its inputs. The
    child's wall and CPU limit is ``timeout_seconds + overrun_allowance *
    test_timeout_seconds``: up to ``overrun_allowance`` inputs that hang do not use up
    the time of the others.
    """

    timeout_seconds: float = 3.0
    memory_mb: int = 1024
    jobs: int = 1
    alpha: float = 0.5
    opcode_mode: OpcodeMode = "reference"
    bef_low: float = 0.1
    bef_high: float = 1000.0
    oer_threshold: float = 1.0
    growth_outlier_delta: float = 0.6
    use_doctests: bool = True
    use_hypothesis: bool = True
    hypothesis_examples: int = 10
    scaling: bool = True
    scaling_sizes: tuple[int, ...] = (8, 64, 512)
    test_timeout_seconds: float | None = 2.0
    overrun_allowance: int = 2
    trace: bool = True
    interpreter: str | None = None
    """Python that runs the candidates and counts static opcodes (default: this one)."""
    sandbox: str = "auto"
    """``auto`` (strict where the kernel gives it, else portable, said in every report),
    ``strict`` (kernel isolation; refuses to run where it cannot), ``portable``
    (WebAssembly) or ``weak``."""
    sandbox_reason: str = ""
    """Why ``auto`` ran the level in ``sandbox`` (set when it is chosen; a report note)."""
    input_provider: ProviderConfig | None = None
    """Endpoint asked for call inputs when a function gives nothing else to run."""
    input_proposer: Proposer | None = None
    """Asks for those inputs instead of ``input_provider`` (one asker for a whole run, e.g.
    :class:`~codequorum.generate.proposed_inputs.InputAsker`)."""
    literal_only_inputs: bool = False
    """The older input rules (docstring examples only as literal calls; no edge values,
    types from use or calls from the workspace): the baseline of a benchmark."""

    def __post_init__(self) -> None:
        problems = []
        if not 0.0 <= self.alpha <= 1.0:
            problems.append(f"alpha must lie in [0, 1], not {self.alpha}")
        if self.timeout_seconds <= 0 or (
            self.test_timeout_seconds is not None and self.test_timeout_seconds <= 0
        ):
            problems.append("timeouts must be positive")
        if self.memory_mb < 64:
            problems.append("memory_mb must be at least 64")
        if self.jobs < 1 or self.hypothesis_examples < 0 or self.overrun_allowance < 0:
            problems.append("jobs must be >= 1, hypothesis_examples, overrun_allowance >= 0")
        if self.opcode_mode not in ("reference", "family"):
            problems.append(
                f"opcode_mode must be 'reference' or 'family', not {self.opcode_mode!r}"
            )
        if self.sandbox not in (AUTO, *SANDBOX_LEVELS):
            problems.append(f"sandbox must be one of {AUTO}, "
                            f"{', '.join(SANDBOX_LEVELS)}")
        if any(n <= 0 for n in self.scaling_sizes):
            problems.append("scaling sizes must be positive")
        if self.bef_low < 0 or self.bef_high < self.bef_low or self.growth_outlier_delta <= 0:
            problems.append("need 0 <= bef_low <= bef_high and growth_outlier_delta > 0")
        if problems:
            raise InvalidOptionsError("dynamic options: " + "; ".join(problems))


@dataclass
class CandidateDynamic:
    """What one candidate did.

    ``pass_rate`` over graded inputs (``pass_basis`` says which basis was used);
    ``growth``: the whole-number exponent of CPU time per call against the scaling size
    (0 constant, 1 about n, 2 about n², ...; ``None`` with fewer than two sizes timed),
    ``growth_points`` its ``(size, CPU ns)`` pairs (in JSON only the sizes,
    ``growth_sizes``: CPU nanoseconds differ from run to run, a report must not);
    ``unfinished_size``: the smallest scaling size it did not
    finish; ``mean_traced_opcodes``: mean traced opcodes over inputs it completed;
    ``static_opcodes``: opcodes in its compiled code (``None`` if it does not compile);
    ``growth_measure``: what the costs are, ``cpu-time`` (CPU ns per call), ``fuel``
    (WebAssembly instructions per call, where the portable sandbox ran) or ``bytecodes``
    (executed Ignition bytecodes per call: JavaScript and TypeScript).
    """

    index: int
    status: str
    detail: str
    pass_rate: float | None
    passed: int
    graded: int
    pass_basis: str
    growth: float | None
    growth_points: list[tuple[int, int]]
    unfinished_size: int | None
    mean_traced_opcodes: float | None
    static_opcodes: int | None
    growth_measure: str = "cpu-time"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "index": self.index,
            "status": self.status,
            "detail": self.detail,
            "pass_rate": self.pass_rate,
            "passed": self.passed,
            "graded": self.graded,
            "pass_basis": self.pass_basis,
            "growth": self.growth,
            "growth_sizes": [size for size, _ in self.growth_points],
            "growth_measure": self.growth_measure,
            "unfinished_size": self.unfinished_size,
            "mean_traced_opcodes": self.mean_traced_opcodes,
            "static_opcodes": self.static_opcodes,
        }


@dataclass(frozen=True)
class RuleFigures:
    """What the verdict rules (:mod:`codequorum.judge.dynamic_rules`) read of a run beyond the
    summary and the versions' figures, with the thresholds it was asked to judge by.

    ``divergence``: the first input where versions part (None with fewer than two versions
    or none parting), ``input_label`` and ``input_source`` naming it; ``traced``: how many
    versions left a trace; ``sctd_jsd``/``dctd_jsd``: the divergences as computed (also
    when the summary leaves them out); ``module_problem``: why the versions could not run
    in their module as asked (:func:`~codequorum.behaviour.module_rules.judge_module`);
    ``not_run``: why no version ran on any input (None when one did).
    """

    divergence: Divergence | None
    input_label: str
    input_source: str
    traced: int
    sctd_jsd: float
    dctd_jsd: float
    oer_threshold: float
    growth_outlier_delta: float
    bef_low: float
    bef_high: float
    module_problem: str | None = None
    not_run: str | None = None


@dataclass
class DynamicReport:
    """Result of :func:`run_dynamic`: figures only; the pipeline judges them
    (:func:`codequorum.judge.dynamic_rules.dynamic_verdicts`)."""

    task_id: str
    summary: dict[str, float | None]
    candidates: list[CandidateDynamic]
    rules: RuleFigures
    fastest: int | None
    layers: list[str]
    inputs_source: list[str]
    inputs: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    python: str = ""
    outcomes: list[list[Outcome | None]] = field(default_factory=list)
    """Per version, per input (aligned with ``inputs``): ``(output, exc_type, exc_message)``
    or None when it did not run. Candidate text: escape it before showing it."""
    passes: list[list[bool | None]] = field(default_factory=list)
    """Per version, per input: whether it passed an input with an expected value, graded
    or not (a docstring example beside a benchmark's tests is checked, not graded); None
    without an expected value, or not run."""
    output_clusters: list[list[int]] = field(default_factory=list)
    """Versions grouped by their outcomes on every compared input (equal values alike),
    largest group first."""

    def to_dict(self, verdicts: Sequence[Verdict] = ()) -> dict[str, Any]:
        """JSON-ready form, with the ``verdicts`` judged on it."""
        return {
            "task_id": self.task_id,
            "summary": dict(self.summary),
            "candidates": [c.to_dict() for c in self.candidates],
            "verdicts": [v.to_dict() for v in verdicts],
            "fastest": self.fastest,
            "layers": list(self.layers),
            "inputs_source": list(self.inputs_source),
            "inputs": list(self.inputs),
            "notes": list(self.notes),
            "python": self.python,
            "outcomes": [[_outcome_json(o) for o in row] for row in self.outcomes],
            "passes": [list(row) for row in self.passes],
            "output_clusters": [list(g) for g in self.output_clusters],
        }


# ----------------------------------------------------------------------------- running


def _limits(options: DynamicOptions) -> Limits:
    seconds = options.timeout_seconds
    if options.test_timeout_seconds is not None:
        seconds += options.overrun_allowance * options.test_timeout_seconds
    return Limits(
        wall_seconds=seconds,
        cpu_seconds=seconds,
        memory_mb=max(64, options.memory_mb),
        test_seconds=options.test_timeout_seconds,
    )


@dataclass
class Runs:
    """Per candidate: outcome per input position (None = not run), final status."""

    outcomes: list[list[TestOutcome | None]]
    status: list[str]
    detail: list[str]
    layers: list[str]
    python: str


@dataclass
class _CandidateRun:
    """One candidate's outcomes over every input (None: not run), how its module
    loaded when it ran in one, and whether an input was left unrun as the portable
    sandbox does not support it (:mod:`~codequorum.behaviour.sandbox.portable.unsupported`)."""

    outcomes: list[TestOutcome | None]
    status: str
    detail: str
    layers: list[str]
    python: str
    module: ModuleLoad | None = None
    unsupported: list[int] = field(default_factory=list)  # inputs asking what it lacks


def _run_one(
    code: str,
    index: int,
    plan: InputPlan,
    options: DynamicOptions,
    cancel: threading.Event | None,
    module: ModuleContext | None = None,
    language: str = "python",
) -> _CandidateRun:
    """Run one candidate on every input of ``plan`` in one sandbox child (in ``module``
    when given)."""
    tests = plan.tests
    n = len(tests)
    run = _CandidateRun([None] * n, "cancelled", "not run", [], "")
    runtime = runtime_for(language)
    if runtime is None:
        return run
    if options.interpreter is None:
        error = runtime.compile_error(code)
        if error is not None:
            # the child would report the same: spare it (compiling executes nothing)
            run.status, run.detail = "syntax-error", error
            failed = TestOutcome(
                "", False, None, "SyntaxError", error.removeprefix("SyntaxError: "), None, 0, 0.0
            )
            run.outcomes = [failed] * n
            return run
    result = _run_in(runtime, code, index, plan, options, cancel, module)
    load = result.module
    if (module is not None and load is not None and not (cancel and cancel.is_set())
            and runs_alone_after(module, load, runtime.outside_names(code))):
        result = _run_in(runtime, code, index, plan, options, cancel, None)
        result.module = dataclasses.replace(load, ran_alone=True)
    run.module = result.module
    portable = options.sandbox == "portable"
    for k, outcome in enumerate(result.tests[:n]):
        if portable and unsupported(outcome.exc_type, outcome.exc_message):
            run.unsupported.append(k)  # the sandbox's lack only where every version hit it
        run.outcomes[k] = None if outcome.exc_type == _SKIPPED else outcome
    run.status, run.detail = result.status, result.detail
    if run.unsupported and not run.detail:
        run.detail = NOT_SUPPORTED
    run.layers, run.python = list(result.layers), result.python
    if result.status == "syntax-error":
        message = result.detail.removeprefix("SyntaxError: ")
        failed = TestOutcome("", False, None, "SyntaxError", message, None, 0, 0.0)
        run.outcomes = [failed] * n
    return run


def _run_in(runtime: Runtime, code: str, index: int, plan: InputPlan, options: DynamicOptions,
            cancel: threading.Event | None, module: ModuleContext | None) -> CandidateResult:
    """One sandboxed run of ``code`` on ``plan``'s inputs (in ``module`` when given)."""
    result: CandidateResult = runtime.run(
        code,
        plan.tests,
        plan.entry_point,
        _limits(options),
        options.trace,
        index,
        interpreter=options.interpreter,
        cancel=cancel,
        sandbox=options.sandbox,
        # a scaling size that times out: the larger sizes would too
        series=[_SCALING_SERIES if case.size is not None else None for case in plan.cases],
        module=module,
    )
    return result


def _outside(language: str) -> Callable[[str], frozenset[str]]:
    """The names a version of ``language`` takes from its module (none: no runtime)."""
    runtime = runtime_for(language)
    return runtime.outside_names if runtime is not None else (lambda _code: frozenset())


Job = tuple[int, int, str, InputPlan, ModuleContext | None, str]
"""One candidate to run: (set, candidate, code, inputs, module, language)."""


def _execute_many(
    jobs: Sequence[Job],
    options: DynamicOptions,
    progress: Callable[[int, int], None] | None,
    cancel: threading.Event | None,
) -> dict[tuple[int, int], _CandidateRun]:
    """Run ``(set, candidate, code, plan, module)`` jobs on one pool of ``options.jobs``
    workers.

    Each worker runs one candidate to the end, so a slow candidate holds one worker
    only and the others move on (also to the next sample set).
    """
    runs = run_pool(jobs, lambda job: _run_one(job[2], job[1], job[3], options, cancel, job[4],
                                               job[5]),
                    options.jobs, progress, "dynamic")
    return {(job[0], job[1]): run for job, run in zip(jobs, runs, strict=True)}


def runtime_version(language: str, interpreter: str | None) -> str:
    """What runs (or would have run) ``language``'s versions, with its version
    (``3.11.7``, ``node 22.3.0``): "" when unknown, never this process's Python for
    another language."""
    runtime = runtime_for(language)
    return runtime.version(interpreter) if runtime is not None else ""


def _collect_runs(runs: Sequence[_CandidateRun], fallback: str) -> Runs:
    """The runs of one set; ``fallback`` names the interpreter where no run said hello."""
    layers = next((r.layers for r in runs if r.layers and r.python), None)
    python = next((r.python for r in runs if r.layers and r.python), "")
    return Runs(
        outcomes=[r.outcomes for r in runs],
        status=[r.status for r in runs],
        detail=[r.detail for r in runs],
        layers=list(layers) if layers else ["deadline"],
        python=python or fallback,
    )


# ----------------------------------------------------------------------------- metrics


OUTCOME_TEXT_LIMIT = 200


def _outcome_json(outcome: Outcome | None) -> list[str | None] | None:
    """One outcome for JSON: bounded, control characters escaped."""
    if outcome is None:
        return None
    return [None if x is None else safe_text(x, OUTCOME_TEXT_LIMIT) for x in outcome]


def _outcome_tuple(o: TestOutcome | None, kind: str = "call") -> Outcome | None:
    if o is None:
        return None
    if kind == "check" and o.exc_type is None:
        return ("passes", None, None)
    return (o.output, o.exc_type, o.exc_message)


#: How a returned value's repr prints alike (a runtime's ``canonical``).
Canonical = Callable[[str | None], str | None]


def _as_is(output: str | None) -> str | None:
    """No canonical form (a language without a runtime runs nothing to compare)."""
    return output


def _words(runtime: Runtime | None) -> Canonical:
    """A value as the runtime's messages show it (as it is without a runtime)."""
    if runtime is None:
        return _as_is
    shown = runtime.shown
    return lambda output: None if output is None else shown(output)


def _compared_tuple(o: TestOutcome | None, canonical: Canonical,
                    kind: str = "call") -> Outcome | None:
    """:func:`_outcome_tuple` with the returned value as its comparison key
    (the runtime's ``canonical``: :func:`codequorum.core.values.canonical_output` for
    Python), so that equal values (``2`` and
    ``2.0``) count as the same output in OER."""
    t = _outcome_tuple(o, kind)
    if t is None or t[1] is not None or t[0] is None or t[0] == "passes":
        return t
    return (canonical(t[0]), t[1], t[2])


def _ok(o: TestOutcome | None, graded: bool) -> bool:
    if o is None:
        return False
    if graded:
        return o.passed is True
    return o.exc_type is None


def _finished(o: TestOutcome | None) -> bool:
    """Whether a run of one input came to an end of its own (no limit hit)."""
    return o is not None and o.exc_type not in _LIMIT_EXCEPTIONS


def growth_of(points: Sequence[tuple[int, int]], measure: str = "cpu-time") -> float | None:
    """The growth class of ``(size, cost)`` points (CPU ns, or fuel or executed bytecodes
    as ``measure`` says): the whole-number exponent
    (:func:`~codequorum.metrics.growth.growth_class`) of their log-log slope
    (:func:`~codequorum.metrics.growth.growth_exponent`); None with fewer than two sizes.
    CPU time is judged only where its points support a class
    (:func:`~codequorum.metrics.growth.judged_class`; None when the timings were too noisy,
    :data:`NOISY_NOTE`); fuel and bytecodes do not depend on the machine's load."""
    if not points:
        return None
    sizes, costs = zip(*points, strict=True)
    if measure in ("fuel", "bytecodes"):
        slope = growth_exponent(np.array(sizes), np.array(costs), cost_floor(measure))
        return None if slope is None else float(growth_class(slope))
    judged = judged_class(np.array(sizes), np.array(costs), COST_FLOOR_NS)
    return None if judged is None else float(judged)


#: The note of a version whose timed sizes support no growth class.
NOISY_NOTE = "growth not judged for version {k}: the timings were too noisy"


def _run_notes(candidates: Sequence[CandidateDynamic]) -> list[str]:
    """What a version's run that ended well says of its figures (its executed bytecodes
    not taken, or approximate), as ``version k: ...``, once for the versions that say
    the same (:func:`grouped_notes`)."""
    return grouped_notes([(c.index, c.detail) for c in candidates
                          if c.status == "ok" and c.detail and c.detail != NOT_SUPPORTED])


_HOW_MANY = re.compile(r" on (\d+) of (\d+) inputs")


def grouped_notes(details: Sequence[tuple[int, str]]) -> list[str]:
    """``(index, detail)`` -> one note per detail, naming its versions (``versions 1 and
    3: ...``); details that differ only in how many inputs they count are one (the
    counts summed: ``on 3 of 10 inputs``)."""
    groups: dict[str, list[tuple[int, int, int]]] = {}
    for index, detail in details:
        m = _HOW_MANY.search(detail)
        key = _HOW_MANY.sub(" on {n} of {of} inputs", detail, count=1)
        groups.setdefault(key, []).append(
            (index, int(m.group(1)) if m else 0, int(m.group(2)) if m else 0))
    notes = []
    for key, members in groups.items():
        names = [str(i + 1) for i, _n, _of in members]
        who = (f"version {names[0]}" if len(names) == 1 else
               f"versions {', '.join(names[:-1])} and {names[-1]}")
        n, of = sum(m[1] for m in members), sum(m[2] for m in members)
        notes.append(f"{who}: {key.replace('{n}', str(n)).replace('{of}', str(of))}")
    return notes


def _growth_notes(candidates: Sequence[CandidateDynamic]) -> list[str]:
    """:data:`NOISY_NOTE` for each version timed at two sizes or more and not judged."""
    return [NOISY_NOTE.format(k=c.index + 1) for c in candidates
            if c.growth is None and c.growth_measure == "cpu-time"
            and len({n for n, _ in c.growth_points}) >= 2]


@dataclass(frozen=True)
class _Basis:
    """Which inputs count for what: ``graded`` ones; ``behaviour`` (compared across
    versions: every input but a scaling size some version did not finish); ``rate`` (the
    pass rate's: graded inputs, else the behaviour ones), in words as ``words``."""

    graded: list[int]
    behaviour: list[int]
    rate: list[int]
    words: str


def _basis(cases: Sequence[InputCase], runs: Runs, m: int) -> _Basis:
    graded = [i for i, c in enumerate(cases) if c.graded]
    behaviour = [
        t for t, case in enumerate(cases)
        if case.size is None or all(_finished(runs.outcomes[c][t]) for c in range(m))
    ]
    if graded:
        return _Basis(graded, behaviour, graded, "graded tests")
    return _Basis(graded, behaviour, behaviour, "inputs run without an exception")


def _traces(runs: Runs, cases: Sequence[InputCase], m: int) -> list[list[dict[str, int] | None]]:
    """Per version, per input: the traced opcode counts where it passed (DCTD's input).
    None where none of its own opcodes ran: an example that only reads what an earlier
    example's call returned (``s = b.sortedvalues()``, then ``s.getlist('even')``) runs no
    version, and empty counts would make every version look alike."""
    out: list[list[dict[str, int] | None]] = []
    for c in range(m):
        row = [runs.outcomes[c][t] for t in range(len(cases))]
        out.append([o.opcodes if o is not None and o.opcodes and _ok(o, case.graded)
                    else None for o, case in zip(row, cases, strict=True)])
    return out


def _compared_rows(runs: Runs, cases: Sequence[InputCase], ix: Sequence[int],
                   m: int, canonical: Canonical) -> list[list[Outcome | None]]:
    """Per version, its outcomes on inputs ``ix`` as OER compares them."""
    return [[_compared_tuple(runs.outcomes[c][t], canonical, cases[t].test.kind) for t in ix]
            for c in range(m)]


def _measure(outcomes: Sequence[TestOutcome | None],
             cases: Sequence[InputCase]) -> str:
    """What a version's growth rests on: ``fuel`` where only the portable sandbox's
    instruction counts were taken (no CPU time), ``bytecodes`` where neither was but the
    scaling sizes' executed bytecodes were (JavaScript), else ``cpu-time``."""
    timed = [o for o in outcomes if o is not None and (o.cpu_ns is not None
                                                        or o.fuel is not None)]
    if not timed and any(o is not None and o.opcodes is not None and case.size is not None
                         for o, case in zip(outcomes, cases, strict=False)):
        return "bytecodes"
    return "fuel" if timed and all(o.cpu_ns is None for o in timed) else "cpu-time"


def _cost(o: TestOutcome, measure: str) -> int | None:
    """One call's cost as ``measure`` counts it."""
    if measure == "bytecodes":
        return o.opcode_total if o.opcodes is not None else None
    return o.fuel if measure == "fuel" else o.cpu_ns


def _candidate(c: int, runs: Runs, cases: Sequence[InputCase], basis: _Basis,
               static: dict[str, int] | None) -> CandidateDynamic:
    """One version's pass rate, growth over the scaling series (CPU time per call) and
    opcode totals."""
    oks = [_ok(runs.outcomes[c][t], cases[t].graded) for t in basis.rate]
    points: list[tuple[int, int]] = []
    unfinished: int | None = None
    measure = _measure(runs.outcomes[c], cases)
    for t, case in enumerate(cases):
        if case.size is None:
            continue
        o = runs.outcomes[c][t]
        cost = None if o is None else _cost(o, measure)
        if o is not None and o.exc_type is None and cost is not None:
            points.append((case.size, cost))
        elif not _finished(o) and unfinished is None:
            unfinished = case.size
    totals = [o.opcode_total for o in runs.outcomes[c]
              if o is not None and o.exc_type is None and o.opcodes is not None]
    return CandidateDynamic(
        index=c, status=runs.status[c], detail=runs.detail[c],
        pass_rate=(sum(oks) / len(oks)) if oks else None, passed=sum(oks), graded=len(oks),
        pass_basis=basis.words, growth=growth_of(points, measure),
        growth_points=points, unfinished_size=unfinished, growth_measure=measure,
        mean_traced_opcodes=float(np.mean(totals)) if totals else None,
        static_opcodes=total_opcodes(static) if static is not None else None,
    )


def _summary(s_res: DivergenceResult, d_res: DivergenceResult, rows: list[list[Outcome | None]],
             graded_rows: list[list[Outcome | None]], rates: Sequence[float | None],
             basis: _Basis, n_inputs: int, trace: bool) -> dict[str, float | None]:
    """The dynamic summary keys (:data:`SUMMARY_KEYS`; docs/metrics.md)."""
    stats = pass_rate_stats(list(rates))
    have_dctd = trace and d_res.used > 0
    have_sctd = s_res.used >= 2
    both = have_sctd and have_dctd
    return {
        "sctd_jsd": s_res.jsd if have_sctd else None,
        "sctd_tau": s_res.tau if have_sctd else None,
        "dctd_jsd": d_res.jsd if have_dctd else None,
        "dctd_tau": d_res.tau if have_dctd else None,
        "bef_jsd": bef(s_res.jsd, d_res.jsd) if both else None,
        "bef_tau": bef(s_res.tau, d_res.tau) if both else None,
        "oer": oer(rows),
        "oer_no_ex": oer(rows, include_exceptions=False),
        "pass_rate_mean": stats.mean if stats else None,
        "pass_rate_var": stats.var if stats else None,
        "pass_rate_max_diff": stats.max_diff if stats else None,
        "oer_pair_mean": pair_mean_oer(rows),
        "oer_graded": oer(graded_rows) if basis.graded else None,
        "dctd_inputs": float(d_res.used),
        "inputs": float(n_inputs),
        "graded_inputs": float(len(basis.graded)),
    }


def _rule_figures(rows: list[list[Outcome | None]], given: list[list[Outcome | None]],
                  cases: Sequence[InputCase], basis: _Basis, traced: int, sctd_jsd: float,
                  dctd_jsd: float, options: DynamicOptions) -> RuleFigures:
    """What the dynamic rules read beyond the summary (:class:`RuleFigures`): the first
    input where ``rows`` (comparison keys) part, shown as the versions gave it (``given``:
    ``False``, not its key ``0``)."""
    div = first_divergence(rows) if len(rows) >= 2 else None
    if div is not None:
        t = div.input_index
        div = replace(div, shown_a=show_outcome(given[div.a][t]),
                      shown_b=show_outcome(given[div.b][t]))
    case = cases[basis.behaviour[div.input_index]] if div is not None else None
    return RuleFigures(
        divergence=div, input_label=case.label if case else "",
        input_source=case.source if case else "", traced=traced, sctd_jsd=sctd_jsd,
        dctd_jsd=dctd_jsd, oer_threshold=options.oer_threshold,
        growth_outlier_delta=options.growth_outlier_delta, bef_low=options.bef_low,
        bef_high=options.bef_high)


def build_report(
    version_set: VersionSet,
    plan: InputPlan,
    runs: Runs,
    options: DynamicOptions,
    static: Sequence[dict[str, int] | None] | None = None,
) -> DynamicReport:
    """Metrics from finished runs (pure: no process is started here).

    ``static``: opcode counts per candidate as given by the runtime's ``static_counts`` (computed
    here under this interpreter when omitted)."""
    codes = version_set.codes
    m = len(codes)
    cases = plan.cases
    basis = _basis(cases, runs, m)
    if static is None:
        static = [static_opcode_counts(code) for code in codes]
    static = [None if c is None else apply_mode(c, options.opcode_mode) for c in static]
    s_res = sctd(static, options.alpha)  # counts already in options.opcode_mode
    traces = _traces(runs, cases, m)
    d_res = dctd(traces, options.alpha, options.opcode_mode)
    traced = sum(1 for row in traces if any(x is not None for x in row))
    runtime = runtime_for(version_set.language)
    canonical = runtime.canonical if runtime is not None else _as_is
    rows = _compared_rows(runs, cases, basis.behaviour, m, canonical)
    candidates = [_candidate(c, runs, cases, basis, static[c]) for c in range(m)]
    summary = _summary(s_res, d_res, rows, _compared_rows(runs, cases, basis.graded, m, canonical),
                       [c.pass_rate for c in candidates], basis, len(cases), options.trace)
    notes = list(plan.notes)
    if not options.trace:
        notes.append("tracing off: no DCTD or BEF")
    elif runtime is not None and runtime.unmeasured:
        notes.append(runtime.unmeasured)
    notes.extend(_growth_notes(candidates))
    notes.extend(_run_notes(candidates))
    return DynamicReport(
        task_id=version_set.task_id,
        summary=summary,
        candidates=candidates,
        rules=_rule_figures(rows, _compared_rows(runs, cases, basis.behaviour, m,
                                                 _words(runtime)),
                            cases, basis, traced, s_res.jsd, d_res.jsd, options),
        fastest=_fastest(candidates, runs, cases),
        layers=runs.layers,
        inputs_source=plan.sources,
        inputs=[{"source": c.source, "origin": c.origin, "label": c.label, "graded": c.graded,
                 "checked": c.test.has_expected, "size": c.size, "where": c.where}
                for c in cases],
        notes=notes,
        python=runs.python,
        outcomes=[[_outcome_tuple(runs.outcomes[c][t], cases[t].test.kind)
                   for t in range(len(cases))] for c in range(m)],
        passes=[[_passed(runs.outcomes[c][t], cases[t]) for t in range(len(cases))]
                for c in range(m)],
        output_clusters=output_groups(rows),
    )


def _passed(o: TestOutcome | None, case: InputCase) -> bool | None:
    """Whether an input with an expected value (or a graded one) passed; None for the
    others, and when it did not run."""
    if o is None or not (case.graded or case.test.has_expected):
        return None
    return o.passed is True


def _fastest(
    candidates: Sequence[CandidateDynamic], runs: Runs, cases: Sequence[Any]
) -> int | None:
    """The passing candidate with the fewest traced opcodes over inputs all of them ran."""
    best_rate = max((c.pass_rate for c in candidates if c.pass_rate is not None), default=None)
    if best_rate is None or best_rate <= 0:
        return None
    pool = [c.index for c in candidates if c.pass_rate == best_rate]

    def total(c: int, t: int) -> int | None:
        o = runs.outcomes[c][t]
        if o is None or o.exc_type is not None or o.opcodes is None:
            return None
        return o.opcode_total

    common = [t for t in range(len(cases)) if all(total(c, t) is not None for c in pool)]
    if not common:
        return None
    totals = {c: sum(total(c, t) or 0 for t in common) for c in pool}
    return min(pool, key=lambda c: (totals[c], c))


# ----------------------------------------------------------------------------- entry


def plan_inputs(version_set: VersionSet, options: DynamicOptions) -> InputPlan:
    """The inputs the versions of ``version_set`` run on (read statically)."""
    proposer = options.input_proposer
    if proposer is None and options.input_provider is not None:
        proposer = proposer_for(options.input_provider)
    runtime = runtime_for(version_set.language)
    if runtime is None or not runtime.proposed_inputs:
        proposer = None
    elif proposer is not None:
        proposer = with_language(proposer, runtime.inputs)
    collect = runtime.test_inputs if runtime is not None else collect_inputs
    plan = collect(
        version_set,
        use_doctests=options.use_doctests,
        use_hypothesis=options.use_hypothesis,
        hypothesis_examples=options.hypothesis_examples,
        scaling=options.scaling,
        sizes=options.scaling_sizes,
        proposer=proposer,
        literal_only=options.literal_only_inputs,
    )
    if version_set.module is not None and runtime is not None and not runtime.modules:
        plan.notes.append(ALONE_NOTE.format(name=runtime.name))
    if version_set.module is None and runtime is not None and runtime.instances_alone:
        return plan  # run alone, an instance is one of a class every version defines
    if version_set.module is None and "." in (plan.entry_point or ""):
        return class_method_inputs(plan, _texts(version_set))  # versions are whole classes
    return method_inputs(plan, version_set.module, _takes_instance(version_set))


def _texts(version_set: VersionSet) -> list[str]:
    """Where a function's definition is read: the prompt, the current code, the versions."""
    return ([version_set.prompt] if version_set.prompt else []) + [
        s.code for s in version_set.versions if s.origin == "current"] + version_set.codes


def _takes_instance(version_set: VersionSet) -> bool:
    """Whether the function is a method called on an instance (:func:`takes_instance`, in
    the current code, else the first version)."""
    module, entry = version_set.module, version_set.entry_point
    if module is None or module.kind != "method" or not entry:
        return False
    texts = [s.code for s in version_set.versions if s.origin == "current"] + version_set.codes
    fn = next((f for f in (find_function(text, entry) for text in texts) if f), None)
    return fn is not None and takes_instance(fn)


def run_dynamic_many(
    version_sets: Sequence[VersionSet],
    options: DynamicOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
) -> list[DynamicReport]:
    """:func:`run_dynamic` for several sample sets, all candidates on one worker pool.

    ``progress(done, total)`` counts candidates over all sets. Only Python sets run: a set
    in another language gets no run, no figures and a note saying so.
    """
    options = options or DynamicOptions()
    runnable = [runtime_for(ss.language) is not None for ss in version_sets]
    if any(ss.codes for ss, ok in zip(version_sets, runnable, strict=True) if ok):
        view = any(_module_for(ss) is not None for ss in version_sets)
        if options.sandbox == AUTO and not any(ss.codes and ss.language == "python"
                                               for ss in version_sets):
            level, why = "strict", ""  # JavaScript's only level: never Python's choice
        else:
            level, why = choose(options.interpreter, options.sandbox, view)
        options = dataclasses.replace(options, sandbox=level, sandbox_reason=why)
        for language in dict.fromkeys(ss.language for ss, ok in zip(version_sets, runnable,
                                                                    strict=True)
                                      if ok and ss.codes):
            runtime = runtime_for(language)
            assert runtime is not None
            runtime.require(options.interpreter, options.sandbox,
                            view=any(_module_for(ss) is not None for ss in version_sets
                                     if ss.language == language))
    elif options.sandbox == AUTO:
        options = dataclasses.replace(options, sandbox="strict")
    plans = [plan_inputs(ss, options) if ok else InputPlan(ss.entry_point)
             for ss, ok in zip(version_sets, runnable, strict=True)]
    jobs: list[Job] = [
        (s, c, code, plans[s], _module_for(ss), ss.language)
        for s, ss in enumerate(version_sets)
        if plans[s].cases
        for c, code in enumerate(ss.codes)
    ]
    done = _execute_many(jobs, options, progress, cancel)
    return [
        _set_report(ss, plans[s], [done[(s, c)] for c in range(len(ss.codes))]
                    if plans[s].cases else None, runnable[s], options)
        for s, ss in enumerate(version_sets)
    ]


#: The note of a set whose runtime runs versions alone, not in their module.
ALONE_NOTE = ("not-run-in-module: {name} versions run alone, without their module's "
              "imports and helpers")


def _module_for(ss: VersionSet) -> ModuleContext | None:
    """The module ``ss``'s versions run in: None where its runtime runs versions alone
    (its plan's notes say so: :data:`ALONE_NOTE`)."""
    runtime = runtime_for(ss.language)
    return ss.module if runtime is not None and runtime.modules else None


def _set_report(ss: VersionSet, plan: InputPlan, ran: list[_CandidateRun] | None,
                runnable: bool, options: DynamicOptions) -> DynamicReport:
    """One set's report from its runs (None: nothing ran). In a module, the runs count only
    where :func:`~codequorum.behaviour.module_rules.judge_module` says they stand."""
    problem: str | None = None
    module_notes: tuple[str, ...] = ()
    unrun: list[int] = []
    python = runtime_version(ss.language, options.interpreter)
    if ran is None:
        runs = _not_run(len(ss.codes), "no inputs", options, python)
    else:
        runs = _collect_runs(ran, python)
        unrun = unsupported_by_all(ran)
        plan, runs = _without_inputs(plan, runs, unrun)
        plan, runs = _without_failing_inputs(plan, runs)
        module = _module_for(ss)
        if module is not None:
            judged = judge_module(module, [r.module for r in ran], ss.codes,
                                  _outside(ss.language))
            problem, module_notes = judged.problem, judged.notes
            if not judged.keep:  # no verdict may rest on these runs
                plan = InputPlan(plan.entry_point, notes=list(plan.notes))
                runs = _not_run(len(ss.codes), "not run in its module", options,
                                runs.python)
    runtime = runtime_for(ss.language) if runnable else None
    static = (runtime.static_counts(ss.codes, options.interpreter) if runtime is not None
              else [None] * len(ss.codes))
    report = build_report(ss, plan, runs, options, static)
    report.rules = dataclasses.replace(
        report.rules, module_problem=problem,
        not_run=not_run_reason(runnable, ran is not None, problem, runs,
                               inputs_left=bool(plan.cases) or bool(unrun)))
    report.notes.extend(module_notes)
    if unrun:
        report.notes.append(NOT_SUPPORTED)
    if not runnable:
        report.notes.append(f"behaviour metrics are for {runtime_names()} only: the "
                            f"{ss.language} versions were not run")
    elif not plan.cases and (problem is None or ran is None) and not unrun:
        report.notes.append("no inputs to run: behaviour metrics unavailable")
    if options.sandbox == "weak":
        report.notes.insert(0, WEAK_WARNING)
    elif options.sandbox == "portable":
        report.notes.insert(0, PORTABLE_NOTE)
    if options.sandbox_reason:
        report.notes.insert(0, options.sandbox_reason)
    return report


def unsupported_by_all(ran: Sequence[_CandidateRun]) -> list[int]:
    """Inputs the portable sandbox could not give to any version that ran them: its lack,
    not a version's fault. A version that raises it alone has failed that input, as it
    would anywhere: one version cannot take an input from the others."""
    tried = [r for r in ran if r.unsupported or any(o is not None for o in r.outcomes)]
    if not tried:
        return []
    common = set(tried[0].unsupported)
    for run in tried[1:]:
        common &= set(run.unsupported)
    return sorted(common)


def not_run_reason(runnable: bool, had_inputs: bool, module_problem: str | None,
                   runs: Runs, inputs_left: bool = True) -> str | None:
    """Why no version ran on any input, in a few words (None when one did): the language
    does not run, there were no inputs, every version raised on every input (they were
    all left out: ``inputs_left`` false), the module refused the run, or every version
    stopped before its first input (the first version's reason)."""
    if not runnable:
        return f"only {runtime_names()} versions run"
    if not had_inputs:
        return "no inputs"
    if not inputs_left and module_problem is None:
        return "every version raised on every input (none of the kind the function takes)"
    if any(o is not None for row in runs.outcomes for o in row):
        return None
    if module_problem is not None:
        return "not run in its module"
    why = next((d for d in runs.detail if d), "") or next((s for s in runs.status if s), "")
    return f"no version ran ({safe_text(why, 120)})" if why else "no version ran"


#: Inputs that stay when every version raised on them: they grade, or their sizes
#: measure growth (a limit hit on one is a finding of its own).
_KEPT_WHEN_ALL_RAISE = ("tests", "humaneval", "scaling")


def _without_inputs(plan: InputPlan, runs: Runs, unrun: Sequence[int]) -> tuple[InputPlan, Runs]:
    """``plan`` and ``runs`` without the inputs ``unrun`` (the sandbox could not run them
    for some version: :data:`NOT_SUPPORTED`): compared for none, they part no versions."""
    if not unrun:
        return plan, runs
    keep = [t for t in range(len(plan.cases)) if t not in unrun]
    plan = dataclasses.replace(plan, cases=[plan.cases[t] for t in keep])
    outcomes = [[row[t] if t < len(row) else None for t in keep] for row in runs.outcomes]
    return plan, dataclasses.replace(runs, outcomes=outcomes)


def unfounded_series(sources: Sequence[str], raised: Sequence[bool], dropped: bool) -> bool:
    """Whether the scaling series should go too: every other input was left out (every
    version raised on it) and every version raised on every size, so the series was built
    of the same wrong types (a callback drawn as a number) and measures nothing."""
    series = [r for src, r in zip(sources, raised, strict=True) if src == "scaling"]
    return (dropped and bool(series) and all(series)
            and all(src == "scaling" for src in sources))


def _without_failing_inputs(plan: InputPlan, runs: Runs) -> tuple[InputPlan, Runs]:
    """``plan`` and ``runs`` without the inputs on which every version raised (an input
    the function does not take: guessed types, an example needing what the sandbox does
    not give), unless they grade; inputs on which versions part ways stay. A note counts
    what was left out."""
    m = len(runs.outcomes)

    def all_raised(t: int) -> bool:
        return m > 0 and all(len(row) > t and row[t] is not None
                             and row[t].exc_type is not None  # type: ignore[union-attr]
                             for row in runs.outcomes)

    keep = [t for t, case in enumerate(plan.cases)
            if case.source in _KEPT_WHEN_ALL_RAISE or case.graded or case.test.has_expected
            or not all_raised(t)]
    if unfounded_series([plan.cases[t].source for t in keep],
                        [all_raised(t) for t in keep], len(keep) < len(plan.cases)):
        keep = [t for t in keep if plan.cases[t].source != "scaling"]
    if len(keep) == len(plan.cases):
        return plan, runs
    dropped = len(plan.cases) - len(keep)
    which = "1 input" if dropped == 1 else f"{dropped} inputs"
    notes = [*plan.notes, f"{which} left out: every version raised on "
             f"{'it' if dropped == 1 else 'them'}"]
    plan = dataclasses.replace(plan, cases=[plan.cases[t] for t in keep], notes=notes)
    outcomes = [[row[t] if t < len(row) else None for t in keep] for row in runs.outcomes]
    return plan, dataclasses.replace(runs, outcomes=outcomes)


def _not_run(m: int, why: str, options: DynamicOptions, python: str) -> Runs:
    """Runs of ``m`` versions that did not happen (or do not count), for ``why``; ``python``
    names what ran or would have run them (:func:`runtime_version`)."""
    return Runs(
        [[] for _ in range(m)],
        ["not run"] * m,
        [why] * m,
        active_layers(options.interpreter, options.sandbox),
        python,
    )


def run_dynamic(
    version_set: VersionSet,
    options: DynamicOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
) -> DynamicReport:
    """Run every candidate of ``version_set`` in the sandbox and score the behaviour.

    Candidate code runs only in sandbox children; this process reads it statically.
    ``progress(done, total)`` counts candidates; setting ``cancel`` stops the children.
    """
    return run_dynamic_many([version_set], options, progress, cancel)[0]


__all__ = [
    "SUMMARY_KEYS",
    "CandidateDynamic",
    "DynamicOptions",
    "DynamicReport",
    "InvalidOptionsError",
    "RuleFigures",
    "Runs",
    "build_report",
    "growth_of",
    "plan_inputs",
    "run_dynamic",
    "run_dynamic_many",
    "runtime_version",
]
