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
import tempfile
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from codequorum.behaviour.runtimes import runtime_for, runtime_names
from codequorum.core.errors import UserError
from codequorum.core.limits import InputLimitError, check_call_sizes, json_depth_problem
from codequorum.core.model import ModuleContext, Sample
from codequorum.core.safe_text import safe_text
from codequorum.judge.dynamic import dynamic_verdicts
from codequorum.lsp import contract as c
from codequorum.lsp.actions import users_head
from codequorum.lsp.autorun import arrival_level, arrival_missing, runs_on_arrival
from codequorum.lsp.documents import FunctionEntry, Snapshot, reindent
from codequorum.lsp.engine import FunctionAnalysis, ran_nothing
from codequorum.lsp.files import MAX_IMPORT_BYTES, RefusedFile, bounded_text, read_inside
from codequorum.lsp.gates import ask, input_proposer, may_run_store, may_send_key
from codequorum.lsp.hover import DYNAMIC_FIGURES, hover_doc
from codequorum.lsp.prepare import prepare_for
from codequorum.lsp.progress import WorkProgress
from codequorum.lsp.reports import DOCUMENT_DIFF_LINES, comparison_doc, report_doc
from codequorum.lsp.views import present
from codequorum.render.findings import compared_text, consensus, evidence_text

if TYPE_CHECKING:
    from codequorum.generate.endpoint import ProviderConfig, RegenerationResult
    from codequorum.lsp.gates import ConsentedProposer
    from codequorum.lsp.host import Host

log = logging.getLogger(__name__)

REGENERATE = c.RegenerateArgs.COMMAND
ANALYZE = c.AnalyzeArgs.COMMAND
ADD_VERSIONS = c.AddVersionsArgs.COMMAND
IMPORT_VERSION_FILE = c.ImportVersionFileArgs.COMMAND
DELETE_VERSIONS = c.DeleteVersionsArgs.COMMAND
SHOW_VERSION = c.ShowVersionArgs.COMMAND
COMPARE = c.CompareArgs.COMMAND
RUN_DYNAMIC = c.RunDynamicArgs.COMMAND


A = TypeVar("A", bound=c.FunctionArgs)
R = TypeVar("R")
Handler = Callable[["Host", A], Coroutine[Any, Any, R]]

#: Every command's handler, by the command's name: filled by :func:`command`.
HANDLERS: dict[str, Handler[Any, Any]] = {}


def command(args_cls: type[A]) -> Callable[[Handler[A, R]], Handler[A, R]]:
    """Register the decorated function as the handler of the command whose arguments are
    ``args_cls`` (its name, arguments and result are declared in :mod:`contract`)."""
    name = args_cls.COMMAND
    if c.COMMANDS.get(name, (None,))[0] is not args_cls:
        raise ValueError(f"{args_cls.__name__} is not a command of the contract")

    def register(handler: Handler[A, R]) -> Handler[A, R]:
        if name in HANDLERS:
            raise ValueError(f"two handlers for {name}")
        HANDLERS[name] = handler
        return handler

    return register


class CommandError(JsonRpcInvalidParams):
    """Bad arguments, or a function that cannot be found: the message says which (made
    safe to show: it may quote names, paths and text from a repository)."""

    #: True when the user was already shown the message.
    shown: ClassVar[bool] = False

    def __init__(self, message: str) -> None:
        super().__init__(message=safe_text(message, limit=2000))


class ShownError(CommandError):
    """A :class:`CommandError` whose message the user was already shown."""

    shown = True


async def _resolve(
    ls: Host, target: c.FunctionArgs, command: str, required: bool = True
) -> tuple[Snapshot, FunctionEntry | None]:
    await ls.settled()
    try:
        snapshot = ls.read_snapshot(target.uri)
    except RefusedFile as exc:
        raise CommandError(f"{command}: {exc}") from None
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
    ls: Host, target: c.FunctionArgs, command: str
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
        "stored": analysis.n_stored,
        "compared": compared_text(analysis),
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


@command(c.AnalyzeArgs)
async def analyze_command(ls: Host, args: c.AnalyzeArgs) -> c.AnalyzeResult | None:
    """The report of the function at a position (or by name); None at a position outside
    every function (the status bar asks wherever the cursor is). ``interactive``: the
    report is also shown (a document, or the hover's text as a message)."""
    if args.qualified_name is None:
        _, found = await _resolve(ls, args, ANALYZE, required=False)
        if found is None:
            return None
    snapshot, entry, analysis = await _analysis(ls, args, ANALYZE)
    if analysis is None:
        message = f"no versions of '{entry.qualified_name}' yet"
        if args.interactive:
            ls.show(types.MessageType.Info, f"codequorum: {safe_text(message)}")
        return c.AnalyzeResult(
            uri=snapshot.uri,
            qualified_name=entry.qualified_name,
            range=entry.range,
            stored=0,
            report=None,
            message=message,
        )
    if args.interactive:
        short = hover_doc(entry, analysis, ls.settings_for(args.uri).hover.diff_lines)
        await present(ls, report_doc(entry, analysis), short, snapshot.uri,
                      entry.qualified_name, "report")
    return analysis_result(snapshot, entry, analysis, args.matrices)


async def _show_comparison(
    ls: Host, uri: str, entry: FunctionEntry, analysis: FunctionAnalysis
) -> None:
    """Every version against the current code as a document; where the client opens no
    documents, the most different one as a message (as long a diff as the hover's)."""
    diff_lines = ls.settings_for(uri).hover.diff_lines
    await present(
        ls,
        comparison_doc(entry, analysis, DOCUMENT_DIFF_LINES),
        comparison_doc(entry, analysis, diff_lines, every=False),
        uri,
        entry.qualified_name,
        "compare",
    )


@command(c.CompareArgs)
async def compare_command(ls: Host, args: c.CompareArgs) -> c.CompareResult:
    """Versions side by side: the current code, the consensus and the most different
    (``interactive``: also shown)."""
    snapshot, entry, analysis = await _analysis(ls, args, COMPARE)
    if analysis is None:
        raise CommandError(f"{COMPARE}: no versions of '{entry.qualified_name}' yet")
    if args.interactive:
        await _show_comparison(ls, snapshot.uri, entry, analysis)
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


@command(c.ShowVersionArgs)
async def show_version_command(ls: Host, args: c.ShowVersionArgs) -> c.ShowVersionResult:
    """The text of version k (1-based, or consensus / current / fastest / mostDifferent)."""
    which: int | str | None = args.version
    if which is None and args.index is not None:
        which = args.index + 1
    snapshot, entry, analysis = await _analysis(ls, args, SHOW_VERSION)
    if analysis is None:
        raise CommandError(f"{SHOW_VERSION}: no versions of '{entry.qualified_name}' yet")
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
                f"{SHOW_VERSION}: expected a version number 1..{len(analysis.sample_set.samples)}"
                " or consensus / current / fastest / mostDifferent"
            ) from exc
    if index is None or not 0 <= index < len(analysis.sample_set.samples):
        raise CommandError(f"{SHOW_VERSION}: no version {which!r} of '{entry.qualified_name}'")
    sample = analysis.sample_set.samples[index]
    return c.ShowVersionResult(
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
        range=entry.range,
        replacement=reindent(sample.code if args.own_docstring else users_head(
            entry.dedented(), sample.code, entry.name, snapshot.language == "python"),
            entry.indent),
    )


def _sample(item: c.VersionInput, origin: str) -> Sample:
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
                    c.VersionInput(
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
            raise CommandError(f"version {i + 1} is neither a string nor an object with 'code'")
    return out


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def _store_samples(
    ls: Host, target: c.FunctionArgs, command: str, samples: list[Sample]
) -> c.StoreResult:
    snapshot, entry = await _resolve(ls, target, command, required=target.qualified_name is None)
    name = entry.qualified_name if entry else target.qualified_name
    assert name is not None and snapshot.language is not None
    key = ls.file_key(target.uri)
    engine = ls.engine_for(target.uri)
    try:
        ids = await engine.run(engine.add_sync, key, snapshot.language, name, samples)
    except Exception as exc:
        raise CommandError(f"{command}: cannot store the versions: {exc}") from exc
    total = len(await engine.run(engine.samples_sync, key, name))
    ls.refresh(target.uri)
    ls.in_background(run_arrived(ls, target.uri, name, snapshot.language),
                     "running the new versions")
    return c.StoreResult(uri=target.uri, qualified_name=name, added=len(set(ids)), total=total)


@command(c.AddVersionsArgs)
async def add_versions_command(ls: Host, args: c.AddVersionsArgs) -> c.StoreResult:
    """Store versions the client relays (origin ``relayed``); versions over the bounds of
    :mod:`codequorum.core.limits` are refused before anything reads them."""
    samples = [_sample(item, "relayed") for item in args.versions]
    if not samples:
        raise CommandError(f"{ADD_VERSIONS}: no versions given")
    try:
        check_call_sizes([s.code for s in samples])
    except InputLimitError as exc:
        raise CommandError(f"{ADD_VERSIONS}: {exc}; nothing was stored") from exc
    return await _store_samples(ls, args, ADD_VERSIONS, samples)


def read_sample_file(path: Path) -> list[Sample]:
    """Versions from a file: JSON or JSON Lines of ``{"code"}`` or ``{"prompt",
    "completion"}`` objects or code strings, or plain code (one version per file). Sample
    sets (rows with ``samples``) are left to
    :func:`~codequorum.ingest.importing.read_candidates`."""
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


@command(c.ImportVersionFileArgs)
async def import_version_file_command(ls: Host, args: c.ImportVersionFileArgs) -> c.StoreResult:
    """Store versions read from a file (origin ``imported``): one inside a workspace folder,
    read here, or the text of one the user picked, read by the client
    (:mod:`codequorum.lsp.files`)."""
    target = args
    if not args.path and args.content is None:
        raise CommandError(f"{IMPORT_VERSION_FILE}: needs the path of a sample file")
    root = ls.engine_for(target.uri).root
    path = Path(args.path or "versions.jsonl").expanduser()
    if not path.is_absolute():
        path = Path(root or Path.cwd()) / path
    try:
        data = (bounded_text(args.content, str(path), MAX_IMPORT_BYTES)
                if args.content is not None
                else await ls.engine.run(read_inside, path, ls.folders, MAX_IMPORT_BYTES))
    except RefusedFile as exc:
        raise CommandError(f"{IMPORT_VERSION_FILE}: {exc}") from None
    language = ls.snapshot(target.uri)
    lang = language.language if language and language.language else "python"
    short = (target.qualified_name or "").rsplit(".", 1)[-1] or None
    task_id = args.task_id if isinstance(args.task_id, str) else None
    try:
        samples = await ls.engine.run(_imported_samples, path.name, data, lang, task_id, short)
    except UserError as exc:
        raise CommandError(f"{IMPORT_VERSION_FILE}: {exc}") from exc
    except OSError as exc:
        raise CommandError(
            f"{IMPORT_VERSION_FILE}: cannot read {path}: {exc.strerror or exc}") from exc
    if not samples:
        raise CommandError(f"{IMPORT_VERSION_FILE}: no samples in {path}")
    result = await _store_samples(ls, target, IMPORT_VERSION_FILE, samples)
    result.path = str(path)
    return result


def _imported_samples(name: str, data: bytes, language: str, task_id: str | None,
                      entry_point: str | None) -> list[Sample]:
    """The versions in a file's ``data`` (already read and bounded), parsed from a private
    copy named ``name``, so what is parsed is what was checked."""
    from codequorum.ingest.importing import read_candidates

    with tempfile.TemporaryDirectory(prefix="codequorum-import-") as folder:
        copy = Path(folder) / (name or "versions.jsonl")
        copy.write_bytes(data)
        found = read_sample_file(copy)
        if found:
            return found
        candidates, _ = read_candidates(copy, language, task_id=task_id,
                                        entry_point=entry_point)
    return [dataclasses.replace(item.sample, origin="imported") for item in candidates]


@command(c.DeleteVersionsArgs)
async def delete_versions_command(ls: Host, args: c.DeleteVersionsArgs) -> c.ClearResult:
    """Delete the stored versions of one function (or of the whole file without one).
    ``interactive``: answered at once; the user is asked first and told what was deleted."""
    target = args
    name = target.qualified_name
    if name is None and target.position is not None:
        _, entry = await _resolve(ls, target, DELETE_VERSIONS)
        name = entry.qualified_name if entry else None
    if args.interactive:
        ls.in_background(_clear_asked(ls, target.uri, name), "clearing the versions")
        return c.ClearResult(uri=target.uri, qualified_name=name, removed=0)
    count = await ls.engine.run(ls.engine_for(target.uri).clear_sync, ls.file_key(target.uri), name)
    ls.refresh(target.uri)
    return c.ClearResult(uri=target.uri, qualified_name=name, removed=count)


#: The answers to the question before versions are deleted, the safe one first.
KEEP, DELETE = "Keep them", "Delete them"


async def _clear_asked(ls: Host, uri: str, name: str | None) -> None:
    """Ask before deleting the stored versions of ``name`` (None: every function of the
    file), delete them on a yes, and say what was deleted."""
    engine, key = ls.engine_for(uri), ls.file_key(uri)
    names = [name] if name is not None else await engine.run(
        engine.functions_with_samples_sync, key
    )
    stored = 0
    for each in names:
        stored += len(await engine.run(engine.samples_sync, key, each))
    whose = f"'{safe_text(name, 200)}'" if name is not None else "every function of this file"
    if not stored:
        ls.show(types.MessageType.Info, f"codequorum: {whose} has no stored versions")
        return
    versions = f"{stored} stored version{'s' if stored != 1 else ''}"
    question = f"codequorum: delete the {versions} of {whose}? They cannot be brought back."
    if not await ask(ls, question, KEEP, DELETE):
        return
    removed = (await delete_versions_command(ls, c.DeleteVersionsArgs(uri=uri, qualified_name=name))
               ).removed
    ls.show(types.MessageType.Info, f"codequorum: deleted {removed} stored "
            f"version{'s' if removed != 1 else ''} of {whose}")


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
    safe to show): the summary, every failure counted by kind, with the distinct errors
    (or, when nothing came, the reasons of the rejections)."""
    summary = safe_text(result.summary())
    if result.cancelled:
        return types.MessageType.Info, f"codequorum: regeneration of '{shown}' cancelled: {summary}"
    reasons = result.error_summary()
    if not result.ok and not reasons:
        reasons = "; ".join(sorted({r.reason for r in result.rejected})) or None
    extra = f" ({safe_text(reasons)})" if reasons else ""
    if result.ok:
        return types.MessageType.Info, f"codequorum: '{shown}': {summary}{extra}"
    return (
        types.MessageType.Error,
        f"codequorum: regeneration of '{shown}' failed: {summary}{extra}",
    )


def regeneration_status(result: RegenerationResult) -> Literal["ok", "failed", "cancelled"]:
    """The result's ``status``: cancelled, ok (a version was accepted) or failed."""
    if result.cancelled:
        return "cancelled"
    return "ok" if result.ok else "failed"


@dataclass(frozen=True)
class Request:
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

    ls: Host
    request: Request
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


#: What a person is told who asks for versions where the editor is to write them.
RELAY_ONLY = (
    "codequorum: provider.kind is 'client': the editor writes the versions, and this one does "
    "not; set provider.kind to 'openai-compatible' and provider.baseUrl to regenerate here"
)


def _relay_result(request: Request) -> c.RegenerateResult:
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


async def regenerate_storing(
    ls: Host, request: Request, config: ProviderConfig,
    progress: WorkProgress | None = None,
) -> tuple[RegenerationResult, int]:
    """Ask the endpoint under a cancellable progress (``progress``, or a new one), storing
    versions as they arrive; the result and how many versions were stored. A failure is
    shown and becomes a :class:`CommandError`; a cancelled request is shown and
    re-raised."""
    from codequorum.generate.endpoint import answer_budget, regenerate
    from codequorum.generate.prompting import prompt_hash

    entry = request.entry
    digest = prompt_hash(request.messages)
    shown = safe_text(entry.qualified_name, 200)
    title = f"codequorum: regenerating {safe_text(entry.name, 100)}"
    async with progress or WorkProgress(ls, title) as progress:
        arrivals = _Arrivals(ls, request, progress, digest)
        try:
            result = await regenerate(config, request.messages, request.n, request.language,
                                      entry.qualified_name, budget=answer_budget(entry.text),
                                      cancel=progress.async_cancelled,
                                      on_sample=arrivals.on_sample)
        except asyncio.CancelledError:
            progress.cancel()
            ls.refresh(request.uri)
            ls.show(types.MessageType.Info, f"codequorum: regeneration of '{shown}' cancelled")
            raise
        except Exception as exc:  # a bug in a provider must not take the server down
            log.exception("regeneration failed")
            ls.show(types.MessageType.Error,
                    f"codequorum: regeneration of '{shown}' failed: {safe_text(exc)}")
            raise ShownError(f"{REGENERATE}: {safe_text(exc)}") from exc
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


async def regeneration_request(
    ls: Host, uri: str, snapshot: Snapshot, entry: FunctionEntry, n: int
) -> Request:
    """The regeneration of ``entry``, its prompt built on a worker thread."""
    from codequorum.generate.prompting import build_messages

    assert snapshot.language is not None
    key = ls.file_key(uri)
    language = snapshot.language
    messages = await ls.engine.run(
        lambda: build_messages(snapshot.text, language, entry.info, path=key)
    )
    return Request(uri, key, language, entry, messages, n)


@command(c.RegenerateArgs)
async def regenerate_command(ls: Host, args: c.RegenerateArgs) -> c.RegenerateResult:
    """Ask the configured provider for new versions, storing each as it arrives
    (``interactive``: answered at once with status ``started``; the rest is shown)."""
    snapshot, entry = await _resolve(ls, args, REGENERATE)
    assert entry is not None
    settings = ls.settings_for(args.uri)
    n = requested_count(args.n, settings.provider.versions)
    if args.interactive and settings.provider.kind != "client":
        ls.in_background(regenerate_command(ls, attrs.evolve(args, interactive=False)),
                         "regeneration")
        return c.RegenerateResult(uri=args.uri, qualified_name=entry.qualified_name,
                                  status="started", requested=n)
    request = await regeneration_request(ls, args.uri, snapshot, entry, n)
    if settings.provider.kind == "client":
        if args.interactive:
            ls.show(types.MessageType.Warning, RELAY_ONLY)
        return _relay_result(request)
    refusal = await may_send_key(ls, settings.provider, confirmed=args.endpoint_confirmed)
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return c.RegenerateResult(
            uri=args.uri, qualified_name=entry.qualified_name, status="refused", message=refusal
        )
    config = settings.provider.config(versions=n)
    result, stored = await regenerate_storing(ls, request, config)
    ls.show(*regeneration_message(result, safe_text(entry.qualified_name, 200)))
    ls.refresh(args.uri)
    if result.ok:  # the answer does not wait for a question the run may ask
        ls.in_background(run_arrived(ls, args.uri, entry.qualified_name, request.language),
                         "running the new versions")
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
    return f"codequorum: dynamic analysis of '{name}' done" + (f": {figures}" if figures else "")


def nothing_ran_message(name: str, propose_inputs: bool, problem: str | None) -> str:
    """What the user is told when a run had no inputs, so no version ran and nothing changed
    (``name`` is safe to show): where inputs come from, and why the model gave none when it
    was to be asked (``propose_inputs``; ``problem`` says why it gave none)."""
    text = f"codequorum: nothing ran for '{name}': no inputs: add a doctest"
    if not propose_inputs:
        return (f"{text}, type hints, or turn on inputs from the model "
                "(codequorum.dynamic.proposeInputs)")
    why = safe_text(problem) if problem else "the model proposed none"
    return f"{text} or type hints; {why}"


def proposer_problem_message(name: str, problem: str) -> str:
    """What the user is told when the model's inputs were refused or failed: the versions
    still ran on the others."""
    return f"codequorum: '{name}': {safe_text(problem)}; the versions ran on the other inputs"


@dataclass
class _DynamicRun:
    """One dynamic analysis in the background: ``name`` is the function's qualified name
    safe to show, ``job`` its key in ``ls.dynamic_jobs``."""

    ls: Host
    uri: str
    name: str
    analysis: FunctionAnalysis
    progress: WorkProgress
    proposer: ConsentedProposer | None
    propose_inputs: bool
    job: str
    module: ModuleContext | None = None

    async def __call__(self) -> None:
        """Run it, say how it ended, whatever the end, and forget the job."""
        progress = self.progress
        try:
            result = await self.ls.engine_for(self.uri).run_dynamic_async(
                self.analysis,
                lambda msg, pct: progress.report(safe_text(msg, 200), pct),
                progress.cancelled,
                self.proposer,
                self.module,
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
                f"codequorum: dynamic analysis of '{self.name}' failed: {safe_text(exc)}",
            )
        finally:
            self.ls.dynamic_jobs.pop(self.job, None)

    def _finished(self, result: Any) -> None:
        """End the progress and say what came of the run: cancelled, nothing ran (and why:
        the run changed nothing), or its figures (and a problem with the model's inputs);
        then refresh the document's features."""
        if self.progress.cancelled.is_set():
            self.progress.end("cancelled")
            self.ls.show(
                types.MessageType.Info, f"codequorum: dynamic analysis of '{self.name}' cancelled"
            )
            return
        if ran_nothing(result):
            problem = self.proposer.problem if self.proposer is not None else None
            self.progress.end("nothing ran: no inputs")
            self.ls.show(types.MessageType.Warning,
                         nothing_ran_message(self.name, self.propose_inputs, problem))
            return
        if not getattr(result, "inputs", None):  # the module refused the run: its note says why
            self.progress.end("not run in its module")
            notes = "; ".join(v.message for v in dynamic_verdicts(result))
            self.ls.show(types.MessageType.Warning,
                         f"codequorum: '{self.name}' not run: {safe_text(notes, 400)}")
            self.ls.refresh(self.uri)
            return
        message = dynamic_done_message(self.name, getattr(result, "summary", {}) or {})
        self.progress.end("done")
        self.ls.show(types.MessageType.Info, message)
        if self.proposer is not None and self.proposer.problem is not None:
            self.ls.show(types.MessageType.Warning,
                         proposer_problem_message(self.name, self.proposer.problem))
        self.ls.refresh(self.uri)


async def _runnable(
    ls: Host, args: c.RunDynamicArgs
) -> tuple[Snapshot, FunctionEntry, FunctionAnalysis]:
    """The function to run, its document and its analysis; a :class:`CommandError` when
    dynamic analysis is off, the function has no versions, or it is not Python."""
    if not ls.settings_for(args.uri).dynamic.enable:
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis is off (codequorum.dynamic.enable)")
    snapshot, entry, analysis = await _analysis(ls, args, RUN_DYNAMIC)
    if analysis is None:
        raise CommandError(f"{RUN_DYNAMIC}: no versions of '{entry.qualified_name}' yet")
    if runtime_for(analysis.language) is None:
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis runs {runtime_names()} only")
    if analysis.refused:
        raise CommandError(f"{RUN_DYNAMIC}: {analysis.report.message}")
    return snapshot, entry, analysis


async def _prepared(ls: Host, snapshot: Snapshot, entry: FunctionEntry,
                    analysis: FunctionAnalysis) -> tuple[FunctionAnalysis, ModuleContext | None]:
    """The function prepared for its run as every front end prepares it
    (:meth:`~codequorum.pipeline.session.Session.prepare`): its analysis and its module as
    the editor holds it (its unsaved text too), with the view of its workspace folder
    (read on a worker thread)."""
    engine = ls.engine_for(snapshot.uri)
    prepared = await engine.run(engine.prepare_entry, snapshot, entry, ls.file_key(snapshot.uri))
    if prepared is None:
        return analysis, None
    return prepared.analysis, prepared.module


@command(c.RunDynamicArgs)
async def run_dynamic_command(ls: Host, args: c.RunDynamicArgs) -> c.RunDynamicResult:
    """Start the sandboxed dynamic analysis of a function in the background, in its module
    (``interactive``: answered at once, before any question; what comes of it is shown)."""
    snapshot, entry, analysis = await _runnable(ls, args)
    name = entry.qualified_name
    if args.interactive:
        ls.in_background(_run_dynamic_shown(ls, attrs.evolve(args, interactive=False)),
                         "dynamic analysis")
        return c.RunDynamicResult(uri=args.uri, qualified_name=name, started=True)
    refusal = await may_run_store(ls, ls.engine_for(args.uri))
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return c.RunDynamicResult(
            uri=args.uri, qualified_name=name, started=False, refused=True, message=refusal
        )
    if not await prepare_for(ls, ls.settings_for(args.uri).analysis.sandbox):
        return c.RunDynamicResult(uri=args.uri, qualified_name=name, started=False,
                                  message="not run: the portable sandbox was not prepared")
    job = ls.engine_for(args.uri).dynamic_key(analysis)
    if job in ls.dynamic_jobs:
        return c.RunDynamicResult(
            uri=args.uri, qualified_name=name, started=False, message="already running"
        )
    analysis, module = await _prepared(ls, snapshot, entry, analysis)
    progress = WorkProgress(ls, f"codequorum: running {safe_text(entry.name, 100)} versions")
    await progress.begin("starting")
    settings = ls.settings_for(args.uri)
    proposer = input_proposer(ls, settings, progress.cancelled)
    run = _DynamicRun(ls, args.uri, safe_text(name, 200), analysis, progress, proposer,
                      settings.dynamic.propose_inputs, job, module)
    ls.dynamic_jobs[job] = asyncio.ensure_future(run())
    return c.RunDynamicResult(uri=args.uri, qualified_name=name, started=True, token=progress.token)


async def run_arrived(ls: Host, uri: str, qualified_name: str,
                      language: str) -> None:
    """Run the versions of ``qualified_name`` that just arrived, when :func:`runs_on_arrival`
    and a level of the setting runs here
    (:func:`~codequorum.lsp.autorun.arrival_level`); else refresh, so the hover says why not."""
    sandbox = ls.settings_for(uri).analysis.sandbox
    if not runs_on_arrival(ls.settings_for(uri), language, ls.trusted):
        return
    if await arrival_level(ls, sandbox, language) is None:
        missing = arrival_missing(sandbox, language)
        if missing is not None:
            log.info("versions of %s not run on arrival: %s", qualified_name, missing)
            ls.warn_once(f"codequorum: versions are not run here ({missing})")
        ls.refresh(uri)
        return
    await run_dynamic_command(ls, c.RunDynamicArgs(uri=uri, qualified_name=qualified_name))


async def _run_dynamic_shown(ls: Host, args: c.RunDynamicArgs) -> None:
    """Start the run; say why when it does not start (a refusal is said by the gate)."""
    result = await run_dynamic_command(ls, args)
    if not result.started and not result.refused and result.message:
        shown = safe_text(result.qualified_name, 200)
        ls.show(types.MessageType.Info, f"codequorum: '{shown}': {safe_text(result.message)}")
