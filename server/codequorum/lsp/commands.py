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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from codequorum.findings import consensus, evidence_text
from codequorum.lsp import contract as c
from codequorum.lsp.documents import FunctionEntry, Snapshot, reindent
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.gates import input_proposer, may_run_store, may_send_key
from codequorum.lsp.hover import DYNAMIC_FIGURES
from codequorum.lsp.progress import WorkProgress
from codequorum.model import Sample
from codequorum.safe_text import safe_text

if TYPE_CHECKING:
    from codequorum.lsp.server import CodequorumServer

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
    """Bad arguments, or a function that cannot be found: the message says which."""

    def __init__(self, message: str) -> None:
        super().__init__(message=message)


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
    """Store versions the client relays (origin ``relayed``)."""
    samples = [_sample(item, "relayed") for item in args.samples]
    if not samples:
        raise CommandError(f"{ADD_SAMPLES}: no samples given")
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


async def regenerate_command(ls: CodequorumServer, args: c.RegenerateArgs) -> c.RegenerateResult:
    """Ask the configured provider for new versions, storing each as it arrives."""
    from codequorum.sources.openai_compat import regenerate
    from codequorum.sources.prompting import build_messages, prompt_hash

    target = args
    snapshot, entry = await _resolve(ls, target, REGENERATE)
    assert entry is not None and snapshot.language is not None
    settings = ls.settings_for(target.uri)
    n = settings.provider.samples
    if args.n is not None:
        if not 1 <= args.n <= 50:
            raise CommandError(f"{REGENERATE}: n must be a whole number from 1 to 50")
        n = args.n
    key = ls.file_key(target.uri)
    language = snapshot.language
    messages = await ls.engine.run(
        lambda: build_messages(snapshot.text, language, entry.info, path=key)
    )
    if settings.provider.kind == "client":
        return c.RegenerateResult(
            uri=target.uri,
            qualified_name=entry.qualified_name,
            status="relay",
            n=n,
            language=language,
            messages=[
                c.PromptMessage(role=m["role"], content=m["content"])  # type: ignore[arg-type]
                for m in messages
            ],
        )
    p = settings.provider
    refusal = await may_send_key(ls, p, confirmed=args.endpoint_confirmed)
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return c.RegenerateResult(
            uri=target.uri, qualified_name=entry.qualified_name, status="refused", message=refusal
        )
    config = p.config(samples=n)
    phash = prompt_hash(messages)
    stored = 0
    done = 0
    name = entry.qualified_name
    shown = safe_text(name, 200)

    title = f"codequorum: regenerating {safe_text(entry.name, 100)}"
    async with WorkProgress(ls, title) as progress:

        async def on_sample(index: int, outcome: Any) -> None:
            nonlocal stored, done
            done += 1
            if isinstance(outcome, Sample):
                try:
                    engine = ls.engine_for(target.uri)
                    await engine.run(engine.add_sync, key, language, name, [outcome], phash)
                    stored += 1
                except Exception as exc:
                    log.warning("could not store a regenerated version: %s", exc)
            progress.report(f"{done} of {n} answers, {stored} stored", int(100 * done / n))

        try:
            result = await regenerate(
                config,
                messages,
                n,
                language,
                name,
                cancel=progress.async_cancelled,
                on_sample=on_sample,
            )
        except asyncio.CancelledError:
            progress.cancel()
            ls.refresh(target.uri)
            ls.show(types.MessageType.Info, f"codequorum: regeneration of `{shown}` cancelled")
            raise
        except Exception as exc:  # a bug in a provider must not take the server down
            log.exception("regeneration failed")
            ls.show(
                types.MessageType.Error,
                f"codequorum: regeneration of `{shown}` failed: {safe_text(exc)}",
            )
            raise CommandError(f"{REGENERATE}: {safe_text(exc)}") from exc
    summary = result.summary()
    if result.cancelled:
        ls.show(
            types.MessageType.Info, f"codequorum: regeneration of `{shown}` cancelled: {summary}"
        )
    elif result.ok:
        extra = f" ({safe_text(result.error_summary())})" if result.errors else ""
        ls.show(types.MessageType.Info, f"codequorum: `{shown}`: {summary}{extra}")
    else:
        reasons = result.error_summary() or "; ".join(sorted({r.reason for r in result.rejected}))
        ls.show(
            types.MessageType.Error,
            f"codequorum: regeneration of `{shown}` failed: {safe_text(reasons or summary)}",
        )
    ls.refresh(target.uri)
    if result.ok and settings.dynamic.auto and settings.dynamic.enable and language == "python":
        await run_dynamic_command(ls, c.RunDynamicArgs(uri=target.uri, qualified_name=name))
    return c.RegenerateResult(
        uri=target.uri,
        qualified_name=name,
        status="cancelled" if result.cancelled else ("ok" if result.ok else "failed"),
        requested=result.requested,
        accepted=len(result.accepted),
        stored=stored,
        rejected=[safe_text(r.describe()) for r in result.rejected],
        errors=[safe_text(e.describe()) for e in result.errors],
        message=safe_text(summary),
    )


async def run_dynamic_command(ls: CodequorumServer, args: c.RunDynamicArgs) -> c.RunDynamicResult:
    """Start the sandboxed dynamic analysis of a function in the background."""
    target = args
    if not ls.settings_for(target.uri).dynamic.enable:
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis is off (codequorum.dynamic.enable)")
    _snapshot, entry, analysis = await _analysis(ls, target, RUN_DYNAMIC)
    if analysis is None:
        raise CommandError(f"{RUN_DYNAMIC}: no versions of `{entry.qualified_name}` yet")
    if analysis.language != "python":
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis runs Python only")
    refusal = await may_run_store(ls, ls.engine_for(target.uri))
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return c.RunDynamicResult(
            uri=target.uri,
            qualified_name=entry.qualified_name,
            started=False,
            refused=True,
            message=refusal,
        )
    job = ls.engine_for(target.uri).dynamic_key(analysis)
    if job in ls.dynamic_jobs:
        return c.RunDynamicResult(
            uri=target.uri,
            qualified_name=entry.qualified_name,
            started=False,
            message="already running",
        )
    progress = WorkProgress(ls, f"codequorum: running {safe_text(entry.name, 100)} versions")
    await progress.begin("starting")
    proposer = input_proposer(ls, ls.settings_for(target.uri), progress.cancelled)

    async def job_body() -> None:
        name = safe_text(entry.qualified_name, 200)
        try:
            result = await ls.engine_for(target.uri).run_dynamic_async(
                analysis,
                lambda msg, pct: progress.report(safe_text(msg, 200), pct),
                progress.cancelled,
                proposer,
            )
            if progress.cancelled.is_set():
                progress.end("cancelled")
                ls.show(
                    types.MessageType.Info, f"codequorum: dynamic analysis of `{name}` cancelled"
                )
                return
            summary = getattr(result, "summary", {}) or {}
            figures = ", ".join(
                f"{label} {summary[key]:.2f}"
                for key, label in DYNAMIC_FIGURES
                if isinstance(summary.get(key), int | float)
            )
            progress.end("done")
            ls.show(
                types.MessageType.Info,
                f"codequorum: dynamic analysis of `{name}` done"
                + (f": {figures}" if figures else ""),
            )
            if proposer is not None and proposer.problem is not None:
                ls.show(
                    types.MessageType.Warning,
                    f"codequorum: `{name}`: {safe_text(proposer.problem)}; the versions ran on "
                    "the other inputs",
                )
            ls.refresh(target.uri)
        except asyncio.CancelledError:
            progress.cancel()
            progress.end("cancelled")
            raise
        except Exception as exc:
            log.exception("dynamic analysis failed")
            progress.end("failed")
            ls.show(
                types.MessageType.Error,
                f"codequorum: dynamic analysis of `{name}` failed: {safe_text(exc)}",
            )
        finally:
            ls.dynamic_jobs.pop(job, None)

    ls.dynamic_jobs[job] = asyncio.ensure_future(job_body())
    return c.RunDynamicResult(
        uri=target.uri, qualified_name=entry.qualified_name, started=True, token=progress.token
    )


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
