"""``workspace/executeCommand`` handlers: regenerate, analyze, add/import/clear samples,
show a sample, compare, run the dynamic analysis.

Each handler takes its command's arguments class and answers its result class (see
:mod:`codequorum.lsp.contract`); :data:`HANDLERS` maps every command to its handler.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from codequorum.findings import consensus, evidence_text
from codequorum.limits import InputLimitError, check_call_sizes, json_depth_problem
from codequorum.lsp import contract as c
from codequorum.lsp.documents import FunctionEntry, Snapshot, reindent
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.gates import input_proposer, may_run_store, may_send_key
from codequorum.lsp.hover import DYNAMIC_FIGURES
from codequorum.lsp.progress import WorkProgress
from codequorum.model import Sample
from codequorum.safe_text import safe_text

if TYPE_CHECKING:
    from codequorum.lsp.gates import ConsentedProposer
    from codequorum.lsp.server import CodequorumServer
    from codequorum.lsp.settings import Settings
    from codequorum.sources.openai_compat import ProviderConfig, RegenerationResult

log = logging.getLogger(__name__)

REGENERATE = c.RegenerateArgs.COMMAND
ANALYZE = c.AnalyzeArgs.COMMAND
ADD_SAMPLES = c.AddSamplesArgs.COMMAND
IMPORT_SAMPLES = c.ImportSamplesArgs.COMMAND
CLEAR_SAMPLES = c.ClearSamplesArgs.COMMAND
SHOW_SAMPLE = c.ShowSampleArgs.COMMAND
COMPARE = c.CompareArgs.COMMAND
RUN_DYNAMIC = c.RunDynamicArgs.COMMAND

ALL_COMMANDS: tuple[str, ...] = tuple(c.COMMANDS)


class CommandError(JsonRpcInvalidParams):
    """Bad arguments, or a function that cannot be found: the message says which (made
    safe to show: it may quote names, paths and text from a repository)."""

    def __init__(self, message: str) -> None:
        super().__init__(message=safe_text(message, limit=2000))


async def _resolve(
    ls: CodequorumServer, target: c.FunctionArgs, command: str, required: bool = True
) -> tuple[Snapshot, FunctionEntry | None]:
    await ls.settled()
    snapshot = ls.snapshot(target.uri)
    if snapshot is None:
        raise CommandError(f"{command}: {target.uri} is not open")
    if snapshot.language is None:
        raise CommandError(f"{command}: codequorum does not know the language of {target.uri}")
    entry: FunctionEntry | None = None
    if target.qualified_name:
        entry = await ls.engine.run(snapshot.function_named, target.qualified_name)
    elif target.position is not None:
        entry = await ls.engine.run(snapshot.function_at, target.position)
    if entry is None and required:
        what = target.qualified_name or (
            f"line {target.position.line + 1}" if target.position else "the given place"
        )
        raise CommandError(f"{command}: no function {what!r} in {target.uri}")
    return snapshot, entry


async def _analysis(
    ls: CodequorumServer, target: c.FunctionArgs, command: str
) -> tuple[Snapshot, FunctionEntry, FunctionAnalysis | None]:
    snapshot, entry = await _resolve(ls, target, command)
    assert entry is not None
    analysis = await ls.engine_for(target.uri).analysis(snapshot, entry, ls.file_key(target.uri))
    return snapshot, entry, analysis


def _versions(analysis: FunctionAnalysis) -> list[c.VersionInfo]:
    return [
        c.VersionInfo(
            index=i,
            version=i + 1,
            label=analysis.label(i),
            origin=sample.origin,
            provider=sample.provider,
            model=sample.model,
            cluster=analysis.cluster_of(i),
        )
        for i, sample in enumerate(analysis.sample_set.samples)
    ]


def _summary(
    snapshot: Snapshot, entry: FunctionEntry, analysis: FunctionAnalysis
) -> dict[str, Any]:
    """The fields every answer about an analysed function carries."""
    return {
        "uri": snapshot.uri,
        "qualified_name": entry.qualified_name,
        "range": entry.range,
        "samples": analysis.n_stored,
        "current_index": analysis.current_index,
        "consensus": consensus(analysis),
        "most_different": analysis.most_different,
        "fastest": analysis.fastest,
        "stable": analysis.stable,
        "stability": analysis.stability,
        "versions": _versions(analysis),
    }


def analysis_result(
    snapshot: Snapshot,
    entry: FunctionEntry,
    analysis: FunctionAnalysis,
    include_matrices: bool = False,
) -> c.AnalyzeResult:
    """The answer about one analysed function (the pair matrices too when asked: the
    client's report view draws them)."""
    return c.AnalyzeResult(
        **_summary(snapshot, entry, analysis),
        report=analysis.report.to_dict(include_matrices=include_matrices),
        evidence=evidence_text(analysis),
    )


# --------------------------------------------------------------------------- commands


async def analyze_command(ls: CodequorumServer, args: c.AnalyzeArgs) -> c.AnalyzeResult | None:
    """The report of the function at a position (or by name); None at a position outside
    every function (the status bar asks wherever the cursor is)."""
    if args.qualified_name is None:
        _, found = await _resolve(ls, args, ANALYZE, required=False)
        if found is None:
            return None
    snapshot, entry, analysis = await _analysis(ls, args, ANALYZE)
    if analysis is None:
        return c.AnalyzeResult(
            uri=snapshot.uri,
            qualified_name=entry.qualified_name,
            range=entry.range,
            samples=0,
            report=None,
            message=f"no versions of `{entry.qualified_name}` yet",
        )
    return analysis_result(snapshot, entry, analysis, args.matrices)


async def compare_command(ls: CodequorumServer, args: c.CompareArgs) -> c.CompareResult:
    """Versions side by side: the current code, the consensus and the most different."""
    snapshot, entry, analysis = await _analysis(ls, args, COMPARE)
    if analysis is None:
        raise CommandError(f"{COMPARE}: no versions of `{entry.qualified_name}` yet")
    from codequorum.lsp.hover import short_diff

    anchor = (
        analysis.current_index if analysis.current_index is not None else analysis.report.medoid
    )
    other = analysis.most_different
    diff = None
    if anchor is not None and other is not None:
        diff = short_diff(
            analysis.code(anchor),
            analysis.code(other),
            analysis.label(anchor),
            analysis.label(other),
            10_000,
        )
    return c.CompareResult(
        **_summary(snapshot, entry, analysis),
        codes=[s.code for s in analysis.sample_set.samples],
        diff=diff,
    )


async def show_sample_command(ls: CodequorumServer, args: c.ShowSampleArgs) -> c.ShowSampleResult:
    """The text of version k (1-based, or consensus / current / fastest / mostDifferent)."""
    which: int | str | None = args.version
    if which is None and args.index is not None:
        which = args.index + 1
    snapshot, entry, analysis = await _analysis(ls, args, SHOW_SAMPLE)
    if analysis is None:
        raise CommandError(f"{SHOW_SAMPLE}: no versions of `{entry.qualified_name}` yet")
    named = {
        "consensus": consensus(analysis),
        "current": analysis.current_index,
        "fastest": analysis.fastest,
        "mostDifferent": analysis.most_different,
    }
    index: int | None
    if isinstance(which, str) and which in named:
        index = named[which]
    else:
        try:
            index = int(which) - 1  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise CommandError(
                f"{SHOW_SAMPLE}: expected a version number 1..{len(analysis.sample_set.samples)}"
                " or consensus / current / fastest / mostDifferent"
            ) from exc
    if index is None or not 0 <= index < len(analysis.sample_set.samples):
        raise CommandError(f"{SHOW_SAMPLE}: no version {which!r} of `{entry.qualified_name}`")
    sample = analysis.sample_set.samples[index]
    return c.ShowSampleResult(
        uri=snapshot.uri,
        qualified_name=entry.qualified_name,
        index=index,
        version=index + 1,
        label=analysis.label(index),
        origin=sample.origin,
        provider=sample.provider,
        model=sample.model,
        language=analysis.language,
        code=sample.code,
        indented=reindent(sample.code, entry.indent),
    )


def _sample(item: c.SampleInput, origin: str) -> Sample:
    return Sample(
        code=item.code,
        origin=origin,  # type: ignore[arg-type]
        label=item.label or "",
        provider=item.provider,
        model=item.model,
        temperature=item.temperature,
        seed=item.seed,
    )


def _samples_from(value: Any, origin: str) -> list[Sample]:
    """Versions from JSON read in a file: code strings or ``{code, provider, model}``."""
    out: list[Sample] = []
    for i, item in enumerate(value if isinstance(value, list) else [value]):
        if isinstance(item, str):
            out.append(Sample(code=item, origin=origin))  # type: ignore[arg-type]
        elif isinstance(item, dict) and isinstance(item.get("code"), str):
            t, seed = item.get("temperature"), item.get("seed")
            out.append(
                _sample(
                    c.SampleInput(
                        code=item["code"],
                        provider=_text_or_none(item.get("provider")),
                        model=_text_or_none(item.get("model")),
                        temperature=float(t) if isinstance(t, int | float) else None,
                        seed=seed if isinstance(seed, int) else None,
                        label=str(item.get("label") or ""),
                    ),
                    origin,
                )
            )
        else:
            raise CommandError(f"sample {i + 1} is neither a string nor an object with 'code'")
    return out


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def _store_samples(
    ls: CodequorumServer, target: c.FunctionArgs, command: str, samples: list[Sample]
) -> c.StoreResult:
    snapshot, entry = await _resolve(ls, target, command, required=target.qualified_name is None)
    name = entry.qualified_name if entry else target.qualified_name
    assert name is not None and snapshot.language is not None
    key = ls.file_key(target.uri)
    engine = ls.engine_for(target.uri)
    try:
        ids = await engine.run(engine.add_sync, key, snapshot.language, name, samples)
    except Exception as exc:
        raise CommandError(f"{command}: cannot store the samples: {exc}") from exc
    total = len(await engine.run(engine.samples_sync, key, name))
    ls.refresh(target.uri)
    return c.StoreResult(uri=target.uri, qualified_name=name, added=len(set(ids)), total=total)


async def add_samples_command(ls: CodequorumServer, args: c.AddSamplesArgs) -> c.StoreResult:
    """Store versions the client relays (origin ``relayed``); versions over the bounds of
    :mod:`codequorum.limits` are refused before anything reads them."""
    samples = [_sample(item, "relayed") for item in args.samples]
    if not samples:
        raise CommandError(f"{ADD_SAMPLES}: no samples given")
    try:
        check_call_sizes([s.code for s in samples])
    except InputLimitError as exc:
        raise CommandError(f"{ADD_SAMPLES}: {exc}; nothing was stored") from exc
    return await _store_samples(ls, args, ADD_SAMPLES, samples)


def read_sample_file(path: Path) -> list[Sample]:
    """Versions from a file: JSON or JSON Lines of ``{"code"}`` or ``{"prompt",
    "completion"}`` objects or code strings, or plain code (one version per file). Sample
    sets (rows with ``samples``) are left to
    :func:`~codequorum.sources.importing.read_candidates`."""
    text = path.read_text(encoding="utf-8", errors="replace")
    stripped = text.lstrip()
    items: list[Any] = []
    if stripped.startswith("[") or stripped.startswith("{"):
        deep = json_depth_problem(text)
        if deep is not None:
            raise CommandError(f"{path}: {deep}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
            lines = [ln for ln in text.splitlines() if ln.strip()]
            try:
                items = [json.loads(ln) for ln in lines]
            except json.JSONDecodeError as exc:
                raise CommandError(f"{path}: neither JSON nor JSON Lines ({exc})") from exc
        if data is not None:
            items = data if isinstance(data, list) else [data]
    else:
        return [Sample(code=text, origin="imported", label=path.name)]
    out: list[Sample] = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("code"), str):
            out.extend(_samples_from([item], "imported"))
        elif isinstance(item, dict) and isinstance(item.get("completion"), str):
            prompt = str(item["prompt"]) if isinstance(item.get("prompt"), str) else ""
            out.append(Sample(code=prompt + item["completion"], origin="imported"))
        elif isinstance(item, str):
            out.append(Sample(code=item, origin="imported"))
    return out


async def import_samples_command(ls: CodequorumServer, args: c.ImportSamplesArgs) -> c.StoreResult:
    """Store versions read from a file (origin ``imported``)."""
    target = args
    if not args.path:
        raise CommandError(f"{IMPORT_SAMPLES}: needs the path of a sample file")
    path = Path(args.path).expanduser()
    root = ls.engine_for(target.uri).root
    if not path.is_absolute() and root:
        path = Path(root) / path
    language = ls.snapshot(target.uri)
    lang = language.language if language and language.language else "python"
    short = (target.qualified_name or "").rsplit(".", 1)[-1] or None
    task_id = args.task_id

    def read() -> list[Sample]:
        from codequorum.errors import UserError
        from codequorum.sources.importing import read_candidates

        if not path.is_dir():
            found = read_sample_file(path)
            if found:
                return found
        try:
            candidates, _ = read_candidates(
                path,
                lang,
                task_id=task_id if isinstance(task_id, str) else None,
                entry_point=short,
            )
        except UserError as exc:
            raise CommandError(f"{IMPORT_SAMPLES}: {exc}") from exc
        return [dataclasses.replace(c.sample, origin="imported") for c in candidates]

    try:
        samples = await ls.engine.run(read)
    except OSError as exc:
        raise CommandError(f"{IMPORT_SAMPLES}: cannot read {path}: {exc.strerror or exc}") from exc
    if not samples:
        raise CommandError(f"{IMPORT_SAMPLES}: no samples in {path}")
    result = await _store_samples(ls, target, IMPORT_SAMPLES, samples)
    result.path = str(path)
    return result


async def clear_samples_command(ls: CodequorumServer, args: c.ClearSamplesArgs) -> c.ClearResult:
    """Delete the stored versions of one function (or of the whole file without one)."""
    target = args
    name = target.qualified_name
    if name is None and target.position is not None:
        _, entry = await _resolve(ls, target, CLEAR_SAMPLES)
        name = entry.qualified_name if entry else None
    count = await ls.engine.run(ls.engine_for(target.uri).clear_sync, ls.file_key(target.uri), name)
    ls.refresh(target.uri)
    return c.ClearResult(uri=target.uri, qualified_name=name, removed=count)


def requested_count(n: int | None, default: int) -> int:
    """How many versions a regeneration asks for: ``n`` when given (1 to 50), else the
    configured number."""
    if n is None:
        return default
    if not 1 <= n <= 50:
        raise CommandError(f"{REGENERATE}: n must be a whole number from 1 to 50")
    return n


def regeneration_message(result: RegenerationResult, shown: str) -> tuple[types.MessageType, str]:
    """What the user is told once a regeneration ends (``shown`` is the function's name,
    safe to show): the summary, with the errors when some versions still came, or why
    none did."""
    summary = result.summary()
    if result.cancelled:
        return types.MessageType.Info, f"codequorum: regeneration of `{shown}` cancelled: {summary}"
    if result.ok:
        extra = f" ({safe_text(result.error_summary())})" if result.errors else ""
        return types.MessageType.Info, f"codequorum: `{shown}`: {summary}{extra}"
    reasons = result.error_summary() or "; ".join(sorted({r.reason for r in result.rejected}))
    return (
        types.MessageType.Error,
        f"codequorum: regeneration of `{shown}` failed: {safe_text(reasons or summary)}",
    )


def regeneration_status(result: RegenerationResult) -> Literal["ok", "failed", "cancelled"]:
    """The result's ``status``: cancelled, ok (a version was accepted) or failed."""
    if result.cancelled:
        return "cancelled"
    return "ok" if result.ok else "failed"


def runs_dynamic_after(ok: bool, settings: Settings, language: str) -> bool:
    """Whether a regeneration that accepted versions (``ok``) starts a dynamic run: only
    with ``dynamic.auto`` and ``dynamic.enable`` on, for Python."""
    return ok and settings.dynamic.auto and settings.dynamic.enable and language == "python"


@dataclass(frozen=True)
class _Request:
    """One regeneration: the function, the file's store key (also the path the prompt
    names), its language, the prompt and how many versions to ask for."""

    uri: str
    key: str
    language: str
    entry: FunctionEntry
    messages: list[dict[str, str]]
    n: int


@dataclass
class _Arrivals:
    """Stores each accepted version as it arrives and reports the answers counted so far."""

    ls: CodequorumServer
    request: _Request
    progress: WorkProgress
    prompt_hash: str
    done: int = 0
    stored: int = 0

    async def on_sample(self, index: int, outcome: Any) -> None:
        """One answer came: store it when it holds a version, then report progress."""
        self.done += 1
        if isinstance(outcome, Sample):
            await self._store(outcome)
        n = self.request.n
        self.progress.report(f"{self.done} of {n} answers, {self.stored} stored",
                             int(100 * self.done / n))

    async def _store(self, sample: Sample) -> None:
        """Store one version; a failure is logged and the other versions still come."""
        request = self.request
        try:
            engine = self.ls.engine_for(request.uri)
            await engine.run(engine.add_sync, request.key, request.language,
                             request.entry.qualified_name, [sample], self.prompt_hash)
            self.stored += 1
        except Exception as exc:
            log.warning("could not store a regenerated version: %s", exc)


def _relay_result(request: _Request) -> c.RegenerateResult:
    """The prompt handed to the client, which asks its own model (``provider.kind`` is
    ``client``) and sends the versions back with ``addSamples``."""
    return c.RegenerateResult(
        uri=request.uri,
        qualified_name=request.entry.qualified_name,
        status="relay",
        n=request.n,
        language=request.language,
        messages=[
            c.PromptMessage(role=m["role"], content=m["content"])  # type: ignore[arg-type]
            for m in request.messages
        ],
    )


async def _regenerate_storing(
    ls: CodequorumServer, request: _Request, config: ProviderConfig
) -> tuple[RegenerationResult, int]:
    """Ask the endpoint under a cancellable progress, storing versions as they arrive; the
    result and how many versions were stored. A failure is shown and becomes a
    :class:`CommandError`; a cancelled request is shown and re-raised."""
    from codequorum.sources.openai_compat import regenerate
    from codequorum.sources.prompting import prompt_hash

    entry = request.entry
    digest = prompt_hash(request.messages)
    shown = safe_text(entry.qualified_name, 200)
    title = f"codequorum: regenerating {safe_text(entry.name, 100)}"
    async with WorkProgress(ls, title) as progress:
        arrivals = _Arrivals(ls, request, progress, digest)
        try:
            result = await regenerate(config, request.messages, request.n, request.language,
                                      entry.qualified_name, cancel=progress.async_cancelled,
                                      on_sample=arrivals.on_sample)
        except asyncio.CancelledError:
            progress.cancel()
            ls.refresh(request.uri)
            ls.show(types.MessageType.Info, f"codequorum: regeneration of `{shown}` cancelled")
            raise
        except Exception as exc:  # a bug in a provider must not take the server down
            log.exception("regeneration failed")
            ls.show(types.MessageType.Error,
                    f"codequorum: regeneration of `{shown}` failed: {safe_text(exc)}")
            raise CommandError(f"{REGENERATE}: {safe_text(exc)}") from exc
    return result, arrivals.stored


def _regenerate_result(
    uri: str, name: str, result: RegenerationResult, stored: int
) -> c.RegenerateResult:
    """The answer of a regeneration that asked the endpoint."""
    return c.RegenerateResult(
        uri=uri,
        qualified_name=name,
        status=regeneration_status(result),
        requested=result.requested,
        accepted=len(result.accepted),
        stored=stored,
        rejected=[safe_text(r.describe()) for r in result.rejected],
        errors=[safe_text(e.describe()) for e in result.errors],
        message=safe_text(result.summary()),
    )


async def _request(
    ls: CodequorumServer, uri: str, snapshot: Snapshot, entry: FunctionEntry, n: int
) -> _Request:
    """The regeneration of ``entry``, its prompt built on a worker thread."""
    from codequorum.sources.prompting import build_messages

    assert snapshot.language is not None
    key = ls.file_key(uri)
    language = snapshot.language
    messages = await ls.engine.run(
        lambda: build_messages(snapshot.text, language, entry.info, path=key)
    )
    return _Request(uri, key, language, entry, messages, n)


async def regenerate_command(ls: CodequorumServer, args: c.RegenerateArgs) -> c.RegenerateResult:
    """Ask the configured provider for new versions, storing each as it arrives."""
    snapshot, entry = await _resolve(ls, args, REGENERATE)
    assert entry is not None
    settings = ls.settings_for(args.uri)
    n = requested_count(args.n, settings.provider.samples)
    request = await _request(ls, args.uri, snapshot, entry, n)
    if settings.provider.kind == "client":
        return _relay_result(request)
    refusal = await may_send_key(ls, settings.provider, confirmed=args.endpoint_confirmed)
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return c.RegenerateResult(
            uri=args.uri, qualified_name=entry.qualified_name, status="refused", message=refusal
        )
    config = settings.provider.config(samples=n)
    result, stored = await _regenerate_storing(ls, request, config)
    ls.show(*regeneration_message(result, safe_text(entry.qualified_name, 200)))
    ls.refresh(args.uri)
    if runs_dynamic_after(result.ok, settings, request.language):
        args_dynamic = c.RunDynamicArgs(uri=args.uri, qualified_name=entry.qualified_name)
        await run_dynamic_command(ls, args_dynamic)
    return _regenerate_result(args.uri, entry.qualified_name, result, stored)


def dynamic_done_message(name: str, summary: Mapping[str, Any]) -> str:
    """What the user is told when a dynamic run ends: the figures of
    :data:`~codequorum.lsp.hover.DYNAMIC_FIGURES` that have a number (``name`` is safe to
    show)."""
    figures = ", ".join(
        f"{label} {summary[key]:.2f}"
        for key, label in DYNAMIC_FIGURES
        if isinstance(summary.get(key), int | float)
    )
    return f"codequorum: dynamic analysis of `{name}` done" + (f": {figures}" if figures else "")


def proposer_problem_message(name: str, problem: str) -> str:
    """What the user is told when the model's inputs were refused or failed: the versions
    still ran on the others."""
    return f"codequorum: `{name}`: {safe_text(problem)}; the versions ran on the other inputs"


@dataclass
class _DynamicRun:
    """One dynamic analysis in the background: ``name`` is the function's qualified name
    safe to show, ``job`` its key in ``ls.dynamic_jobs``."""

    ls: CodequorumServer
    uri: str
    name: str
    analysis: FunctionAnalysis
    progress: WorkProgress
    proposer: ConsentedProposer | None
    job: str

    async def __call__(self) -> None:
        """Run it, say how it ended, whatever the end, and forget the job."""
        progress = self.progress
        try:
            result = await self.ls.engine_for(self.uri).run_dynamic_async(
                self.analysis,
                lambda msg, pct: progress.report(safe_text(msg, 200), pct),
                progress.cancelled,
                self.proposer,
            )
            self._finished(result)
        except asyncio.CancelledError:
            progress.cancel()
            progress.end("cancelled")
            raise
        except Exception as exc:
            log.exception("dynamic analysis failed")
            progress.end("failed")
            self.ls.show(
                types.MessageType.Error,
                f"codequorum: dynamic analysis of `{self.name}` failed: {safe_text(exc)}",
            )
        finally:
            self.ls.dynamic_jobs.pop(self.job, None)

    def _finished(self, result: Any) -> None:
        """End the progress and say what came of the run: cancelled, or its figures (and
        a problem with the model's inputs); then refresh the document's features."""
        if self.progress.cancelled.is_set():
            self.progress.end("cancelled")
            self.ls.show(
                types.MessageType.Info, f"codequorum: dynamic analysis of `{self.name}` cancelled"
            )
            return
        message = dynamic_done_message(self.name, getattr(result, "summary", {}) or {})
        self.progress.end("done")
        self.ls.show(types.MessageType.Info, message)
        if self.proposer is not None and self.proposer.problem is not None:
            self.ls.show(types.MessageType.Warning,
                         proposer_problem_message(self.name, self.proposer.problem))
        self.ls.refresh(self.uri)


async def _runnable(
    ls: CodequorumServer, args: c.RunDynamicArgs
) -> tuple[FunctionEntry, FunctionAnalysis]:
    """The function to run and its analysis; a :class:`CommandError` when dynamic
    analysis is off, the function has no versions, or it is not Python."""
    if not ls.settings_for(args.uri).dynamic.enable:
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis is off (codequorum.dynamic.enable)")
    _snapshot, entry, analysis = await _analysis(ls, args, RUN_DYNAMIC)
    if analysis is None:
        raise CommandError(f"{RUN_DYNAMIC}: no versions of `{entry.qualified_name}` yet")
    if analysis.language != "python":
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis runs Python only")
    if analysis.refused:
        raise CommandError(f"{RUN_DYNAMIC}: {analysis.report.message}")
    return entry, analysis


async def run_dynamic_command(ls: CodequorumServer, args: c.RunDynamicArgs) -> c.RunDynamicResult:
    """Start the sandboxed dynamic analysis of a function in the background."""
    entry, analysis = await _runnable(ls, args)
    name = entry.qualified_name
    refusal = await may_run_store(ls, ls.engine_for(args.uri))
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return c.RunDynamicResult(
            uri=args.uri, qualified_name=name, started=False, refused=True, message=refusal
        )
    job = ls.engine_for(args.uri).dynamic_key(analysis)
    if job in ls.dynamic_jobs:
        return c.RunDynamicResult(
            uri=args.uri, qualified_name=name, started=False, message="already running"
        )
    progress = WorkProgress(ls, f"codequorum: running {safe_text(entry.name, 100)} versions")
    await progress.begin("starting")
    proposer = input_proposer(ls, ls.settings_for(args.uri), progress.cancelled)
    run = _DynamicRun(ls, args.uri, safe_text(name, 200), analysis, progress, proposer, job)
    ls.dynamic_jobs[job] = asyncio.ensure_future(run())
    return c.RunDynamicResult(uri=args.uri, qualified_name=name, started=True, token=progress.token)


#: Every command's handler.
HANDLERS: dict[str, Any] = {
    ANALYZE: analyze_command,
    REGENERATE: regenerate_command,
    ADD_SAMPLES: add_samples_command,
    IMPORT_SAMPLES: import_samples_command,
    CLEAR_SAMPLES: clear_samples_command,
    SHOW_SAMPLE: show_sample_command,
    COMPARE: compare_command,
    RUN_DYNAMIC: run_dynamic_command,
}
