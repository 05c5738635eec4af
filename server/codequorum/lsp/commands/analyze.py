"""``codequorum.analyze``: the report of a function."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from codequorum.core.safe_text import safe_text
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import ANALYZE, command
from codequorum.lsp.commands.resolve import (
    analysis_result,
    function_analysis,
    lookup,
    resolve_function,
)
from codequorum.lsp.host import screen
from codequorum.lsp.hover import hover_doc
from codequorum.lsp.reports import report_doc
from codequorum.lsp.views import present

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


@command(c.AnalyzeArgs)
async def analyze_command(ls: Host, args: c.AnalyzeArgs) -> c.AnalyzeResult | None:
    """The report of the function at a position (or by name); None at a position outside
    every function (the status bar asks wherever the cursor is). ``interactive``: the
    report is also shown (a document, or the hover's text as a message)."""
    if args.qualified_name is None:
        _, found = await resolve_function(lookup(ls), args, ANALYZE, required=False)
        if found is None:
            return None
    snapshot, entry, analysis = await function_analysis(lookup(ls), args, ANALYZE)
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
        await present(screen(ls), report_doc(entry, analysis), short, snapshot.uri,
                      entry.qualified_name, "report")
    return analysis_result(snapshot, entry, analysis, args.matrices)
