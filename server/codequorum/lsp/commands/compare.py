"""``codequorum.compare``: versions side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import COMPARE, CommandError, command
from codequorum.lsp.commands.resolve import function_analysis, lookup, summary_fields
from codequorum.lsp.documents import FunctionEntry
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.host import screen
from codequorum.lsp.reports import DOCUMENT_DIFF_LINES, comparison_doc
from codequorum.lsp.views import Screen, present

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


async def show_comparison(
    on: Screen, diff_lines: int, uri: str, entry: FunctionEntry, analysis: FunctionAnalysis
) -> None:
    """Every version against the current code as a document; where the client opens no
    documents, the most different one as a message (``diff_lines`` long, as the hover's)."""
    await present(
        on,
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
    snapshot, entry, analysis = await function_analysis(lookup(ls), args, COMPARE)
    if analysis is None:
        raise CommandError(f"{COMPARE}: no versions of '{entry.qualified_name}' yet")
    if args.interactive:
        diff_lines = ls.settings_for(snapshot.uri).hover.diff_lines
        await show_comparison(screen(ls), diff_lines, snapshot.uri, entry, analysis)
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
        **summary_fields(snapshot, entry, analysis),
        codes=[s.code for s in analysis.version_set.versions],
        diff=diff,
    )
