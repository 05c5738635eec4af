"""``check_function``: one function of a file against the versions in the workspace's store,
through the same :class:`~codequorum.pipeline.session.Session` and wording as ``codequorum check``
and the editor; with ``dynamic`` the versions also run, at the server's ``--sandbox``: by
default in the strict sandbox where this machine gives it, else in the portable one (its
interpreter compiled first, with progress); never in the weak one.
"""

from __future__ import annotations

import threading

from codequorum.agents.agent_workspace import (
    AgentWorkspace,
    Cancelled,
    FunctionTarget,
    Progress,
)
from codequorum.agents.schema import (
    CheckArgs,
    CheckResult,
    DynamicOut,
    FindingOut,
    OtherOutcome,
    PartingInput,
    RecommendationOut,
)
from codequorum.behaviour.runtimes import runtime_for, runtime_names
from codequorum.core.errors import SandboxUnavailableError
from codequorum.core.safe_text import agent_block, safe_text
from codequorum.pipeline.session import FunctionAnalysis, Preparation
from codequorum.render.findings import (
    current_standing,
    evidence_text,
    function_findings,
    not_run_reason,
    recommendation_lines,
    value_words,
)

#: Longest code of a kept version returned, in characters.
MAX_CODE_CHARS = 100_000


def sandbox_problem(language: str = "python", progress: Progress | None = None,
                    level: str = "auto") -> str | None:
    """Why versions of ``language`` cannot run here at ``level`` (None when they can):
    Python at the level the server was started with (``auto``: the strict sandbox, else
    the portable one; never weak); other languages in the strict sandbox only."""
    from codequorum.pipeline.score import dynamic_available

    if not dynamic_available():
        return "dynamic analysis is not installed"
    from codequorum.behaviour.sandbox import isolation
    from codequorum.behaviour.sandbox.isolation import AUTO

    if level not in (AUTO, "strict", "portable"):
        return f"an agent's versions never run in the {safe_text(level)} sandbox"
    runtime = runtime_for(language)
    if language != "python" and runtime is not None:
        try:
            runtime.require(None, "strict", False)
        except SandboxUnavailableError as exc:
            return f"the strict sandbox is not available on this machine ({safe_text(str(exc))})"
        return None
    if level == "portable" or (level == AUTO and not isolation.probe(sandbox="strict").ok):
        _prepare_portable(progress)
    try:
        isolation.require(None, level)
    except SandboxUnavailableError as exc:
        return safe_text(str(exc))
    return None


def _prepare_portable(progress: Progress | None) -> None:
    """Compile the portable interpreter before its probe (once; said as progress)."""
    from codequorum.behaviour.sandbox.portable import interpreter as wasm

    def said(line: str) -> None:
        if progress is not None:
            progress(0.0, 100.0, line)

    try:
        wasm.compiled_module(progress=said)
    except (wasm.PortableUnavailable, OSError):
        return  # the portable probe says why it cannot start


def check_function(ws: AgentWorkspace, args: CheckArgs, progress: Progress,
                   cancel: threading.Event) -> CheckResult:
    """The report of ``args.function`` in ``args.path``; after a sandboxed run when
    ``args.dynamic`` asks and a sandbox runs here. Raises
    :class:`~codequorum.core.errors.UserError` for a file or function that cannot be read and
    :class:`Cancelled` when ``cancel`` is set during the run."""
    target = ws.function(args.path, args.function, args.language)
    dynamic = DynamicOut(requested=args.dynamic, ran=False)
    store = ws.store_path()
    if not store.is_file():
        return _no_versions(ws, target, dynamic)
    prepared = _prepare(ws, target, args.dynamic)
    if prepared is None:
        return _no_versions(ws, target, dynamic)
    analysis = prepared.analysis
    if args.dynamic:
        analysis, dynamic = _run(ws, prepared, progress, cancel)
    elif analysis.dynamic is not None:  # a remembered run of these versions in this module
        dynamic = _dynamic_out(analysis, requested=False)
    return _result(ws, target, analysis, dynamic)


def _prepare(ws: AgentWorkspace, target: FunctionTarget, module: bool) -> Preparation | None:
    """The function prepared as ``check`` and the editor prepare it (its module included
    when it is to run); None when it has no stored versions."""
    return ws.session().prepare(target.source.text, target.source.path, target.language,
                                target.info, module=module, file_key=target.key)


def _run(ws: AgentWorkspace, prepared: Preparation, progress: Progress,
         cancel: threading.Event) -> tuple[FunctionAnalysis, DynamicOut]:
    """Run the versions in their module in the sandbox (strict, else portable) and read the
    analysis again with the run merged in; a note instead when no sandbox runs here or the
    language does not run."""
    analysis = prepared.analysis
    if runtime_for(analysis.language) is None:
        reason = f"only {runtime_names()} versions run"
        return analysis, DynamicOut(requested=True, ran=False, not_run=reason,
                                    note=f"{reason} in the sandbox; the figures are structural")
    problem = sandbox_problem(analysis.language, progress, ws.options.analysis.sandbox)
    if problem is not None:
        return analysis, DynamicOut(requested=True, ran=False, not_run="sandbox unavailable",
                                    note=f"the versions were not run: {problem}")
    session = ws.session()
    if not session.has_dynamic(analysis):
        def report(text: str, percent: int | None) -> None:
            progress(float(percent or 0), 100.0, text)

        analysis = session.run_prepared(prepared, report, cancel)
        if cancel.is_set():
            raise Cancelled()
    return analysis, _dynamic_out(analysis, requested=True)


def _dynamic_out(analysis: FunctionAnalysis, requested: bool) -> DynamicOut:
    """What a run of the versions (asked for now, or remembered) came to: whether any
    version ran on an input, why not, its notes and figures."""
    summary = dict(getattr(analysis.dynamic, "summary", {}) or {})
    notes = list(getattr(analysis.dynamic, "notes", []) or [])
    reason = not_run_reason(analysis.report)
    return DynamicOut(requested=requested, ran=analysis.dynamic is not None and reason is None,
                      not_run=safe_text(reason, 300) if reason is not None else None,
                      note="; ".join(safe_text(n) for n in notes) or None,
                      interpreter=safe_text(getattr(analysis.dynamic, "python", ""), 40) or None,
                      summary={k: v for k, v in summary.items()
                               if v is None or isinstance(v, int | float)})


def _no_versions(ws: AgentWorkspace, target: FunctionTarget, dynamic: DynamicOut) -> CheckResult:
    """The answer for a function without stored versions: how to get some."""
    name = str(target.info.qualified_name)
    return CheckResult(
        path=target.key, function=name, language=target.language, status="no-versions",
        message=(f"no versions of `{safe_text(name, 200)}` are stored in "
                 f"{safe_text(ws.store_path())}; call sample_versions to ask the configured "
                 "endpoint for some, or compare_versions with versions you hold"),
        versions=0, compared=0, dynamic=dynamic, notes=_problems(ws))


def _problems(ws: AgentWorkspace) -> list[str]:
    """What the session reported since the last answer (a store moved aside...)."""
    out = [safe_text(p) for p in ws.problems]
    ws.problems.clear()
    return out


def _result(ws: AgentWorkspace, target: FunctionTarget, analysis: FunctionAnalysis,
            dynamic: DynamicOut) -> CheckResult:
    """The answer from a function's analysis."""
    report = analysis.report
    headline = report.verdict
    return CheckResult(
        path=target.key, function=analysis.qualified_name, language=analysis.language,
        status="ok" if report.status == "ok" else "insufficient",
        message=safe_text(report.message) if report.message else None,
        versions=analysis.n_stored, compared=len(analysis.version_set.versions),
        current_index=analysis.current_index, current=current_standing(analysis),
        stability=analysis.stability, stability_percentile=report.stability_percentile,
        stable=analysis.stable if report.status == "ok" else None,
        verdict=headline.code if headline is not None else None,
        findings=[FindingOut(severity=f.severity, code=f.code, message=f.message,
                             figure=f.figure, versions=list(f.versions))
                  for f in function_findings(analysis, str(target.info.qualified_name))],
        clusters=[list(c) for c in report.clusters],
        recommendation=_recommendation(analysis),
        parting_input=_parting(analysis),
        dynamic=dynamic,
        notes=[safe_text(n) for n in report.notes] + _problems(ws),
    )


def _recommendation(analysis: FunctionAnalysis) -> RecommendationOut | None:
    """The version to keep, in the editor's words, with its code."""
    report = analysis.report
    rec = report.recommended
    lines = recommendation_lines(analysis)
    if rec is None or not lines:
        return None
    return RecommendationOut(
        version=rec, is_current=rec == analysis.current_index, by=report.recommended_by,
        sentence=lines[0], risk=report.risk, risk_level=report.risk_level,
        risk_range=report.risk_range, trust=report.trust,
        code=agent_block(analysis.code(rec), MAX_CODE_CHARS))


def _parting(analysis: FunctionAnalysis) -> PartingInput | None:
    """After a run, the input where the kept version and the others part ways."""
    from codequorum.judge.recommend import parting_input

    rec = analysis.report.recommended
    outcomes = getattr(analysis.dynamic, "outcomes", None)
    inputs = getattr(analysis.dynamic, "inputs", None)
    sentence = evidence_text(analysis)
    if rec is None or not outcomes or not inputs or sentence is None:
        return None
    ev = parting_input(outcomes, inputs, rec, value_words(analysis.version_set.language))
    if ev is None:
        return None
    return PartingInput(
        input=safe_text(ev.label), source=ev.source, recommended_gives=safe_text(ev.shown),
        others=[OtherOutcome(gives=safe_text(words), versions=list(vs))
                for words, vs in ev.others],
        sentence=sentence)
