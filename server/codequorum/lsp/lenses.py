"""Code lenses above functions: versions and stability, Compare, Regenerate."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from lsprotocol import types

from codequorum.core.safe_text import safe_text, title_text
from codequorum.lsp.contract import AnalyzeArgs, CompareArgs, RegenerateArgs
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.settings import Settings
from codequorum.render.findings import compared_text, not_run_reason

CMD_ANALYZE = AnalyzeArgs.COMMAND
CMD_COMPARE = CompareArgs.COMMAND
CMD_REGENERATE = RegenerateArgs.COMMAND
#: The lens above a function whose versions are still being compared.
COMPUTING_TITLE = "codequorum: comparing versions…"


def summary_title(analysis: FunctionAnalysis) -> str:
    """``4 versions + your code · stable 0.94`` after a run (or ``unstable 0.41``, or why
    nothing was compared); before one, ``shape stable 0.94 · not run yet``: a word resting on
    the shape alone says so."""
    count = compared_text(analysis)
    report = analysis.report
    figure = analysis.stability
    if analysis.refused:  # the hover and the diagnostic say which bound
        return f"{count} · not compared (input-limit)"
    if report.status != "ok" or figure is None:
        return f"{count} · need 2 versions to compare"
    word = "stable" if analysis.stable else "unstable"
    not_run = not_run_reason(report)
    if not_run is not None:  # the shape was compared, the behaviour was not measured
        return f"{count} · shape {word} {figure:.2f} · not run: {safe_text(not_run, 80)}"
    if analysis.dynamic is None:  # no run yet (or running versions is off): "stable" is
        return f"{count} · shape {word} {figure:.2f} · not run yet"  # the shape's word only
    return f"{count} · {word} {figure:.2f}"


def lens_commands(has_versions: bool, settings: Settings) -> frozenset[str]:
    """The commands the lenses above one function run: the summary (the report), Compare
    and Regenerate above a function with versions; Regenerate above the others with
    ``showForAll``; none with lenses off."""
    if not settings.code_lens.enable:
        return frozenset()
    if has_versions:
        return frozenset({CMD_ANALYZE, CMD_COMPARE, CMD_REGENERATE})
    return frozenset({CMD_REGENERATE}) if settings.code_lens.show_for_all else frozenset()


def _lens_range(entry: FunctionEntry) -> types.Range:
    return types.Range(start=entry.range.start, end=entry.range.start)


def _first_of_each(
    entries: Iterable[FunctionEntry], wanted: Callable[[str], bool]
) -> list[FunctionEntry]:
    """The first entry of each wanted qualified name, in document order."""
    seen: set[str] = set()
    out: list[FunctionEntry] = []
    for entry in entries:
        name = entry.qualified_name
        if wanted(name) and name not in seen:
            seen.add(name)
            out.append(entry)
    return out


def computing_entries(
    entries: Iterable[FunctionEntry], computing: Collection[str]
) -> list[FunctionEntry]:
    """The functions whose analysis is under way, once each (a name defined twice gets
    one lens, above its first definition)."""
    return _first_of_each(entries, lambda name: name in computing)


def entries_without_lenses(
    entries: Iterable[FunctionEntry], lensed: Collection[str]
) -> list[FunctionEntry]:
    """The functions that have no lens yet, once each: with ``showForAll`` they get a
    Regenerate lens so versions can be asked for anywhere."""
    return _first_of_each(entries, lambda name: name not in lensed)


def _lens(
    entry: FunctionEntry, title: str, command: str, arg: dict[str, object] | None = None
) -> types.CodeLens:
    """A lens above ``entry`` that runs ``command`` with ``arg`` (nothing without one); its
    title drawn inert (:func:`title_text`: it may quote what a version raised)."""
    return types.CodeLens(
        range=_lens_range(entry),
        command=types.Command(
            title=title_text(title), command=command, arguments=None if arg is None else [arg]
        ),
    )


def _target(uri: str, entry: FunctionEntry) -> dict[str, object]:
    """The argument of a lens's command: the function, by name, and ``interactive`` (a
    person clicked it: the server shows what comes of it, for clients that run the lens's
    command and read no result)."""
    return {"uri": uri, "qualifiedName": entry.qualified_name, "interactive": True}


def _function_lenses(
    uri: str, entry: FunctionEntry, analysis: FunctionAnalysis
) -> list[types.CodeLens]:
    """The lenses of a function with versions: its summary (opens the report), Compare
    and Regenerate."""
    arg = _target(uri, entry)
    return [
        _lens(entry, summary_title(analysis), CMD_ANALYZE, arg),
        _lens(entry, "Compare", CMD_COMPARE, arg),
        _lens(entry, "Regenerate", CMD_REGENERATE, arg),
    ]


def document_lenses(
    snapshot: Snapshot,
    items: Sequence[tuple[FunctionEntry, FunctionAnalysis]],
    settings: Settings,
    computing: Collection[str] = (),
) -> list[types.CodeLens]:
    """The lenses of a document; ``computing`` names functions whose analysis is still
    under way (a plain "computing" lens stands above each until the lenses are refreshed)."""
    if not settings.code_lens.enable:
        return []
    busy = computing_entries(snapshot.functions(), computing) if computing else []
    out = [_lens(entry, COMPUTING_TITLE, "") for entry in busy]
    for entry, analysis in items:
        out.extend(_function_lenses(snapshot.uri, entry, analysis))
    if settings.code_lens.show_for_all:
        lensed = {e.qualified_name for e in busy} | {e.qualified_name for e, _ in items}
        for entry in entries_without_lenses(snapshot.functions(), lensed):
            out.append(_lens(entry, "Regenerate", CMD_REGENERATE, _target(snapshot.uri, entry)))
    return out
