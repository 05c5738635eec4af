"""Code lenses above functions: samples and stability, Compare, Regenerate."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from lsprotocol import types

from codequorum.lsp.contract import AnalyzeArgs, CompareArgs, RegenerateArgs
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.settings import Settings

CMD_ANALYZE = AnalyzeArgs.COMMAND
CMD_COMPARE = CompareArgs.COMMAND
CMD_REGENERATE = RegenerateArgs.COMMAND
#: The lens above a function whose versions are still being compared.
COMPUTING_TITLE = "codequorum: comparing versions…"


def summary_title(analysis: FunctionAnalysis) -> str:
    """``5 samples · stable 0.94`` (or ``unstable 0.41``, or why nothing was compared)."""
    n = analysis.n_stored
    count = f"{n} sample{'s' if n != 1 else ''}"
    report = analysis.report
    figure = analysis.stability
    if report.status != "ok" or figure is None:
        return f"{count} · need 2 versions to compare"
    word = "stable" if analysis.stable else "unstable"
    return f"{count} · {word} {figure:.2f}"


def _lens_range(entry: FunctionEntry) -> types.Range:
    return types.Range(start=entry.range.start, end=entry.range.start)


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
    out: list[types.CodeLens] = []
    with_samples = set()
    if computing:
        for entry in snapshot.functions():
            if entry.qualified_name in computing and entry.qualified_name not in with_samples:
                with_samples.add(entry.qualified_name)
                out.append(
                    types.CodeLens(
                        range=_lens_range(entry),
                        command=types.Command(title=COMPUTING_TITLE, command=""),
                    )
                )
    for entry, analysis in items:
        with_samples.add(entry.qualified_name)
        arg = {"uri": snapshot.uri, "qualifiedName": entry.qualified_name}
        rng = _lens_range(entry)
        out.append(
            types.CodeLens(
                range=rng,
                command=types.Command(
                    title=summary_title(analysis), command=CMD_ANALYZE, arguments=[arg]
                ),
            )
        )
        out.append(
            types.CodeLens(
                range=rng,
                command=types.Command(title="Compare", command=CMD_COMPARE, arguments=[arg]),
            )
        )
        out.append(
            types.CodeLens(
                range=rng,
                command=types.Command(title="Regenerate", command=CMD_REGENERATE, arguments=[arg]),
            )
        )
    if settings.code_lens.show_for_all:
        for entry in snapshot.functions():
            if entry.qualified_name in with_samples:
                continue
            with_samples.add(entry.qualified_name)
            arg = {"uri": snapshot.uri, "qualifiedName": entry.qualified_name}
            out.append(
                types.CodeLens(
                    range=_lens_range(entry),
                    command=types.Command(
                        title="Regenerate", command=CMD_REGENERATE, arguments=[arg]
                    ),
                )
            )
    return out
