"""``workspace/executeCommand`` handlers: regenerate, analyze, add/import/clear samples,
show a sample, compare, run the dynamic analysis.

Every command takes either one object argument (``{"uri": ..., "qualifiedName": ...,
"position": {"line": .., "character": ..}, ...}``) or positional arguments
(``uri, qualifiedName | position, ...``). Results are plain JSON objects.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from codequorum.lsp.documents import FunctionEntry, Snapshot, reindent
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.gates import may_run_store, may_send_key
from codequorum.lsp.hover import DYNAMIC_FIGURES
from codequorum.lsp.progress import WorkProgress
from codequorum.model import Sample
from codequorum.safe_text import safe_text

if TYPE_CHECKING:
    from codequorum.lsp.server import CodequorumServer

log = logging.getLogger(__name__)

REGENERATE = "codequorum.regenerate"
ANALYZE = "codequorum.analyze"
ADD_SAMPLES = "codequorum.addSamples"
IMPORT_SAMPLES = "codequorum.importSamples"
CLEAR_SAMPLES = "codequorum.clearSamples"
SHOW_SAMPLE = "codequorum.showSample"
COMPARE = "codequorum.compare"
RUN_DYNAMIC = "codequorum.runDynamic"

ALL_COMMANDS: tuple[str, ...] = (
    REGENERATE,
    ANALYZE,
    ADD_SAMPLES,
    IMPORT_SAMPLES,
    CLEAR_SAMPLES,
    SHOW_SAMPLE,
    COMPARE,
    RUN_DYNAMIC,
)


class CommandError(JsonRpcInvalidParams):
    """Bad arguments, or a function that cannot be found: the message says which."""

    def __init__(self, message: str) -> None:
        super().__init__(message=message)


@dataclass
class Target:
    """What a command is about: a document and a function in it."""

    uri: str
    position: types.Position | None = None
    qualified_name: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    rest: list[Any] = field(default_factory=list)


def _position(value: Any) -> types.Position | None:
    if isinstance(value, dict) and "line" in value and "character" in value:
        try:
            return types.Position(line=int(value["line"]), character=int(value["character"]))
        except (TypeError, ValueError) as exc:
            raise CommandError(f"bad position {value!r}") from exc
    return None


def parse_target(args: Sequence[Any], command: str) -> Target:
    """The target of a command from its arguments (object form or positional form)."""
    if not args:
        raise CommandError(f"{command} needs a document URI and a function")
    first = args[0]
    if isinstance(first, dict):
        uri = first.get("uri") or first.get("textDocument", {}).get("uri")
        if not isinstance(uri, str):
            raise CommandError(f"{command}: the argument object has no 'uri'")
        name = first.get("qualifiedName") or first.get("function") or first.get("name")
        return Target(
            uri=uri,
            position=_position(first.get("position")),
            qualified_name=name if isinstance(name, str) else None,
            options=dict(first),
            rest=list(args[1:]),
        )
    if not isinstance(first, str):
        raise CommandError(f"{command}: the first argument must be a document URI")
    target = Target(uri=first, rest=list(args[2:]))
    if len(args) > 1:
        second = args[1]
        if isinstance(second, str):
            target.qualified_name = second
        elif isinstance(second, dict):
            target.position = _position(second)
            if target.position is None:
                name = second.get("qualifiedName")
                target.qualified_name = name if isinstance(name, str) else None
                target.options = dict(second)
        elif second is not None:
            raise CommandError(f"{command}: expected a qualified name or a position")
    return target


def _option(target: Target, key: str, index: int) -> Any:
    if key in target.options:
        return target.options[key]
    return target.rest[index] if len(target.rest) > index else None


async def _resolve(
    ls: CodequorumServer, target: Target, command: str, required: bool = True
) -> tuple[Snapshot, FunctionEntry | None]:
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
    ls: CodequorumServer, target: Target, command: str
) -> tuple[Snapshot, FunctionEntry, FunctionAnalysis | None]:
    snapshot, entry = await _resolve(ls, target, command)
    assert entry is not None
    analysis = await ls.engine.analysis(snapshot, entry, ls.file_key(target.uri))
    return snapshot, entry, analysis


def _versions(analysis: FunctionAnalysis) -> list[dict[str, Any]]:
    out = []
    for i, sample in enumerate(analysis.sample_set.samples):
        out.append(
            {
                "index": i,
                "version": i + 1,
                "label": analysis.label(i),
                "origin": sample.origin,
                "provider": sample.provider,
                "model": sample.model,
                "cluster": analysis.cluster_of(i),
            }
        )
    return out


def _range_json(r: types.Range) -> dict[str, Any]:
    """An LSP range as plain JSON (the function's place, for the client's edits and prompts)."""
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def analysis_json(
    snapshot: Snapshot,
    entry: FunctionEntry,
    analysis: FunctionAnalysis,
    include_matrices: bool = False,
) -> dict[str, Any]:
    """The JSON a command returns about one analysed function (the pair matrices too when
    asked: the client's report view draws them)."""
    report = analysis.report
    return {
        "uri": snapshot.uri,
        "qualifiedName": entry.qualified_name,
        "range": _range_json(entry.range),
        "samples": analysis.n_stored,
        "currentIndex": analysis.current_index,
        "consensus": report.medoid,
        "mostDifferent": analysis.most_different,
        "fastest": analysis.fastest,
        "stable": analysis.stable,
        "stability": analysis.stability,
        "versions": _versions(analysis),
        "report": report.to_dict(include_matrices=include_matrices),
    }


# --------------------------------------------------------------------------- commands


async def analyze_command(ls: CodequorumServer, args: Sequence[Any]) -> dict[str, Any] | None:
    """The report of the function at a position (or by name); None at a position outside
    every function (the status bar asks wherever the cursor is)."""
    target = parse_target(args, ANALYZE)
    if target.qualified_name is None:
        snapshot, found = await _resolve(ls, target, ANALYZE, required=False)
        if found is None:
            return None
    snapshot, entry, analysis = await _analysis(ls, target, ANALYZE)
    if analysis is None:
        return {
            "uri": snapshot.uri,
            "qualifiedName": entry.qualified_name,
            "range": _range_json(entry.range),
            "samples": 0,
            "report": None,
            "message": f"no versions of `{entry.qualified_name}` yet",
        }
    return analysis_json(snapshot, entry, analysis, bool(target.options.get("matrices")))


async def compare_command(ls: CodequorumServer, args: Sequence[Any]) -> dict[str, Any]:
    """Versions side by side: the current code, the consensus and the most different."""
    target = parse_target(args, COMPARE)
    snapshot, entry, analysis = await _analysis(ls, target, COMPARE)
    if analysis is None:
        raise CommandError(f"{COMPARE}: no versions of `{entry.qualified_name}` yet")
    from codequorum.lsp.hover import short_diff

    result = analysis_json(snapshot, entry, analysis)
    result.pop("report")
    anchor = (
        analysis.current_index if analysis.current_index is not None else analysis.report.medoid
    )
    other = analysis.most_different
    if anchor is not None and other is not None:
        result["diff"] = short_diff(
            analysis.code(anchor),
            analysis.code(other),
            analysis.label(anchor),
            analysis.label(other),
            10_000,
        )
    result["codes"] = [s.code for s in analysis.sample_set.samples]
    return result


async def show_sample_command(ls: CodequorumServer, args: Sequence[Any]) -> dict[str, Any]:
    """The text of version k (1-based, or consensus / current / fastest / mostDifferent)."""
    target = parse_target(args, SHOW_SAMPLE)
    which = _option(target, "version", 0)
    if which is None:
        which = target.options.get("index")
        which = None if which is None else int(which) + 1
    snapshot, entry, analysis = await _analysis(ls, target, SHOW_SAMPLE)
    if analysis is None:
        raise CommandError(f"{SHOW_SAMPLE}: no versions of `{entry.qualified_name}` yet")
    named = {
        "consensus": analysis.report.medoid,
        "current": analysis.current_index,
        "fastest": analysis.fastest,
        "mostDifferent": analysis.most_different,
    }
    index: int | None
    if isinstance(which, str) and which in named:
        index = named[which]
    else:
        try:
            index = int(which) - 1
        except (TypeError, ValueError) as exc:
            raise CommandError(
                f"{SHOW_SAMPLE}: expected a version number 1..{len(analysis.sample_set.samples)}"
                " or consensus / current / fastest / mostDifferent"
            ) from exc
    if index is None or not 0 <= index < len(analysis.sample_set.samples):
        raise CommandError(f"{SHOW_SAMPLE}: no version {which!r} of `{entry.qualified_name}`")
    sample = analysis.sample_set.samples[index]
    return {
        "uri": snapshot.uri,
        "qualifiedName": entry.qualified_name,
        "index": index,
        "version": index + 1,
        "label": analysis.label(index),
        "origin": sample.origin,
        "provider": sample.provider,
        "model": sample.model,
        "language": analysis.language,
        "code": sample.code,
        "indented": reindent(sample.code, entry.indent),
    }


def _samples_from(value: Any, origin: str) -> list[Sample]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise CommandError("samples must be a list of code strings or {code, provider, model}")
    out: list[Sample] = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            out.append(Sample(code=item, origin=origin))  # type: ignore[arg-type]
        elif isinstance(item, dict) and isinstance(item.get("code"), str):
            temperature = item.get("temperature")
            seed = item.get("seed")
            out.append(
                Sample(
                    code=item["code"],
                    origin=origin,  # type: ignore[arg-type]
                    label=str(item.get("label") or ""),
                    provider=item.get("provider")
                    if isinstance(item.get("provider"), str)
                    else None,
                    model=item.get("model") if isinstance(item.get("model"), str) else None,
                    temperature=float(temperature)
                    if isinstance(temperature, int | float)
                    else None,
                    seed=int(seed) if isinstance(seed, int) else None,
                )
            )
        else:
            raise CommandError(f"sample {i + 1} is neither a string nor an object with 'code'")
    return out


async def _store_samples(
    ls: CodequorumServer, target: Target, command: str, samples: list[Sample]
) -> dict[str, Any]:
    snapshot, entry = await _resolve(ls, target, command, required=target.qualified_name is None)
    name = entry.qualified_name if entry else target.qualified_name
    assert name is not None and snapshot.language is not None
    key = ls.file_key(target.uri)
    try:
        ids = await ls.engine.run(ls.engine.add_sync, key, snapshot.language, name, samples)
    except Exception as exc:
        raise CommandError(f"{command}: cannot store the samples: {exc}") from exc
    total = len(await ls.engine.run(ls.engine.samples_sync, key, name))
    ls.refresh(target.uri)
    return {
        "uri": target.uri,
        "qualifiedName": name,
        "added": len(set(ids)),
        "total": total,
    }


async def add_samples_command(ls: CodequorumServer, args: Sequence[Any]) -> dict[str, Any]:
    """Store versions the client relays (origin ``relayed``)."""
    target = parse_target(args, ADD_SAMPLES)
    raw = _option(target, "samples", 0)
    if raw is None:
        raw = target.options.get("codes")
    samples = _samples_from(raw, "relayed")
    if not samples:
        raise CommandError(f"{ADD_SAMPLES}: no samples given")
    return await _store_samples(ls, target, ADD_SAMPLES, samples)


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


async def import_samples_command(ls: CodequorumServer, args: Sequence[Any]) -> dict[str, Any]:
    """Store versions read from a file (origin ``imported``)."""
    target = parse_target(args, IMPORT_SAMPLES)
    raw_path = _option(target, "path", 0)
    if not isinstance(raw_path, str) or not raw_path:
        raise CommandError(f"{IMPORT_SAMPLES}: needs the path of a sample file")
    path = Path(raw_path).expanduser()
    if not path.is_absolute() and ls.engine.root:
        path = Path(ls.engine.root) / path
    language = ls.snapshot(target.uri)
    lang = language.language if language and language.language else "python"
    short = (target.qualified_name or "").rsplit(".", 1)[-1] or None
    task_id = target.options.get("taskId")

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
    result["path"] = str(path)
    return result


async def clear_samples_command(ls: CodequorumServer, args: Sequence[Any]) -> dict[str, Any]:
    """Delete the stored versions of one function (or of the whole file without one)."""
    target = parse_target(args, CLEAR_SAMPLES)
    name = target.qualified_name
    if name is None and target.position is not None:
        _, entry = await _resolve(ls, target, CLEAR_SAMPLES)
        name = entry.qualified_name if entry else None
    count = await ls.engine.run(ls.engine.clear_sync, ls.file_key(target.uri), name)
    ls.refresh(target.uri)
    return {"uri": target.uri, "qualifiedName": name, "removed": count}


async def regenerate_command(ls: CodequorumServer, args: Sequence[Any]) -> dict[str, Any]:
    """Ask the configured provider for new versions, storing each as it arrives."""
    from codequorum.sources.openai_compat import ProviderConfig, regenerate
    from codequorum.sources.prompting import build_messages, prompt_hash

    target = parse_target(args, REGENERATE)
    snapshot, entry = await _resolve(ls, target, REGENERATE)
    assert entry is not None and snapshot.language is not None
    settings = ls.settings
    n_raw = _option(target, "n", 0)
    n = settings.provider.samples
    if n_raw is not None:
        if not isinstance(n_raw, int) or isinstance(n_raw, bool) or not 1 <= n_raw <= 50:
            raise CommandError(f"{REGENERATE}: n must be a whole number from 1 to 50")
        n = n_raw
    key = ls.file_key(target.uri)
    language = snapshot.language
    messages = await ls.engine.run(
        lambda: build_messages(snapshot.text, language, entry.info, path=key)
    )
    if settings.provider.kind == "client":
        return {
            "uri": target.uri,
            "qualifiedName": entry.qualified_name,
            "status": "relay",
            "n": n,
            "language": language,
            "messages": messages,
        }
    p = settings.provider
    refusal = await may_send_key(ls, p, confirmed=target.options.get("endpointConfirmed") is True)
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return {
            "uri": target.uri,
            "qualifiedName": entry.qualified_name,
            "status": "refused",
            "requested": 0,
            "accepted": 0,
            "stored": 0,
            "rejected": [],
            "errors": [],
            "message": refusal,
        }
    config = ProviderConfig(
        base_url=p.base_url,
        model=p.model,
        api_key_env=p.api_key_env or None,
        temperature=p.temperature,
        samples=n,
        seed=p.seed,
        timeout=p.timeout,
        max_retries=p.max_retries,
        use_n=p.use_n,
    )
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
                    await ls.engine.run(ls.engine.add_sync, key, language, name, [outcome], phash)
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
        await run_dynamic_command(ls, [{"uri": target.uri, "qualifiedName": name}])
    return {
        "uri": target.uri,
        "qualifiedName": name,
        "status": "cancelled" if result.cancelled else ("ok" if result.ok else "failed"),
        "requested": result.requested,
        "accepted": len(result.accepted),
        "stored": stored,
        "rejected": [safe_text(r.describe()) for r in result.rejected],
        "errors": [safe_text(e.describe()) for e in result.errors],
        "message": safe_text(summary),
    }


async def run_dynamic_command(ls: CodequorumServer, args: Sequence[Any]) -> dict[str, Any]:
    """Start the sandboxed dynamic analysis of a function in the background."""
    target = parse_target(args, RUN_DYNAMIC)
    if not ls.settings.dynamic.enable:
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis is off (codequorum.dynamic.enable)")
    _snapshot, entry, analysis = await _analysis(ls, target, RUN_DYNAMIC)
    if analysis is None:
        raise CommandError(f"{RUN_DYNAMIC}: no versions of `{entry.qualified_name}` yet")
    if analysis.language != "python":
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis runs Python only")
    refusal = await may_run_store(ls)
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return {
            "uri": target.uri,
            "qualifiedName": entry.qualified_name,
            "started": False,
            "refused": True,
            "message": refusal,
        }
    job = ls.engine.dynamic_key(analysis)
    if job in ls.dynamic_jobs:
        return {
            "uri": target.uri,
            "qualifiedName": entry.qualified_name,
            "started": False,
            "message": "already running",
        }
    progress = WorkProgress(ls, f"codequorum: running {safe_text(entry.name, 100)} versions")
    await progress.begin("starting")

    async def job_body() -> None:
        name = safe_text(entry.qualified_name, 200)
        try:
            result = await ls.engine.run_dynamic_async(
                analysis,
                lambda msg, pct: progress.report(safe_text(msg, 200), pct),
                progress.cancelled,
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
    return {
        "uri": target.uri,
        "qualifiedName": entry.qualified_name,
        "started": True,
        "token": progress.token,
    }
