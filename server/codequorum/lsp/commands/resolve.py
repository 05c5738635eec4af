"""The function a command names (by name or position) and its analysis, and the
fields every answer about an analysed function carries."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import CommandError
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.engine import Engine, FunctionAnalysis
from codequorum.lsp.files import RefusedFile
from codequorum.render.findings import compared_text, consensus, evidence_text

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


@dataclass(frozen=True)
class Lookup:
    """What finding a command's function and its analysis uses of the server: waiting for
    the folders' settings, a document's snapshot, the first folder's worker thread (it
    finds the function in the snapshot), and the engine and store name of a document."""

    settled: Callable[[], Awaitable[None]]
    read_snapshot: Callable[[str], Snapshot]
    worker: Engine
    engine_for: Callable[[str], Engine]
    file_key: Callable[[str], str]


def lookup(ls: Host) -> Lookup:
    """What :func:`resolve_function` and :func:`function_analysis` use of the server."""
    return Lookup(ls.settled, ls.read_snapshot, ls.engine, ls.engine_for, ls.file_key)


async def resolve_function(
    find: Lookup, target: c.FunctionArgs, command: str, required: bool = True
) -> tuple[Snapshot, FunctionEntry | None]:
    """The document a command names and the function in it (by name or position); a
    :class:`CommandError` when the document cannot be read, its language is unknown or,
    when ``required``, the function is not there."""
    await find.settled()
    try:
        snapshot = find.read_snapshot(target.uri)
    except RefusedFile as exc:
        raise CommandError(f"{command}: {exc}") from None
    if snapshot.language is None:
        raise CommandError(f"{command}: codequorum does not know the language of {target.uri}")
    entry: FunctionEntry | None = None
    if target.qualified_name:
        entry = await find.worker.run(snapshot.function_named, target.qualified_name)
    elif target.position is not None:
        entry = await find.worker.run(snapshot.function_at, target.position)
    if entry is None and required:
        what = target.qualified_name or (
            f"line {target.position.line + 1}" if target.position else "the given place"
        )
        raise CommandError(f"{command}: no function {what!r} in {target.uri}")
    return snapshot, entry


async def function_analysis(
    find: Lookup, target: c.FunctionArgs, command: str
) -> tuple[Snapshot, FunctionEntry, FunctionAnalysis | None]:
    """The function a command names (:func:`resolve_function`) and its analysis, None
    when it has no versions."""
    snapshot, entry = await resolve_function(find, target, command)
    assert entry is not None
    analysis = await find.engine_for(target.uri).analysis(snapshot, entry,
                                                          find.file_key(target.uri))
    return snapshot, entry, analysis


def version_fields(analysis: FunctionAnalysis, index: int) -> dict[str, Any]:
    """What every answer says of one version: its place, label and where it came from."""
    version = analysis.version_set.versions[index]
    return {"index": index, "version": index + 1, "label": analysis.label(index),
            "origin": version.origin, "provider": version.provider, "model": version.model}


def version_infos(analysis: FunctionAnalysis) -> list[c.VersionInfo]:
    return [
        c.VersionInfo(**version_fields(analysis, i), cluster=analysis.cluster_of(i))
        for i in range(len(analysis.version_set.versions))
    ]


def summary_fields(
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
        "versions": version_infos(analysis),
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
        **summary_fields(snapshot, entry, analysis),
        report=analysis.report.to_dict(include_matrices=include_matrices),
        evidence=evidence_text(analysis),
    )
