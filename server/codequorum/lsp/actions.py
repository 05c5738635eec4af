"""Code actions: keep the recommended version, or replace a function with the consensus,
the fastest, or version k.

Each action is a WorkspaceEdit of exactly the function's range; the editor applies it
only when the user picks it.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from codequorum.findings import consensus, recommended_version
from codequorum.lsp.diagnostics import SOURCE
from codequorum.lsp.documents import FunctionEntry, Snapshot, reindent
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.safe_text import safe_text

#: At most this many "Replace with version k" actions per function.
MAX_VERSION_ACTIONS = 20


def replacement_edit(snapshot: Snapshot, entry: FunctionEntry, code: str) -> types.WorkspaceEdit:
    """The edit that puts ``code`` in place of ``entry``, indented like it."""
    return types.WorkspaceEdit(
        changes={
            snapshot.uri: [types.TextEdit(range=entry.range, new_text=reindent(code, entry.indent))]
        }
    )


def function_actions(
    snapshot: Snapshot,
    entry: FunctionEntry,
    analysis: FunctionAnalysis,
    context_diagnostics: Sequence[types.Diagnostic] = (),
) -> list[types.CodeAction]:
    """The actions offered for one function."""
    current = analysis.current_index
    ours = [
        d
        for d in context_diagnostics
        if d.source == SOURCE
        and isinstance(d.data, dict)
        and d.data.get("qualifiedName") == entry.qualified_name
    ]
    out: list[types.CodeAction] = []
    name = safe_text(entry.name, 100)

    def action(
        title: str, index: int, kind: types.CodeActionKind, preferred: bool = False
    ) -> types.CodeAction:
        return types.CodeAction(
            title=title,
            kind=kind,
            edit=replacement_edit(snapshot, entry, analysis.code(index)),
            diagnostics=list(ours) or None,
            is_preferred=preferred or None,
            data={"qualifiedName": entry.qualified_name, "version": index},
        )

    kind = types.CodeActionKind.QuickFix if ours else types.CodeActionKind.RefactorRewrite
    keep = recommended_version(analysis)
    if keep is not None:
        out.append(
            action(
                f"Keep the recommended version (version {keep + 1})",
                keep,
                kind,
                preferred=bool(ours),
            )
        )
    agreed = consensus(analysis)  # a version no other shares its shape with is no fix
    if agreed is not None and agreed != current and agreed != keep:
        out.append(
            action(
                f"Replace `{name}` with the consensus version ({analysis.label(agreed)})",
                agreed,
                kind,
                preferred=bool(ours) and keep is None,
            )
        )
    if analysis.fastest is not None and analysis.fastest != current:
        out.append(
            action(
                f"Replace `{name}` with the fastest version "
                f"({analysis.label(analysis.fastest)})",
                analysis.fastest,
                types.CodeActionKind.RefactorRewrite,
            )
        )
    for k in range(min(analysis.n_stored, MAX_VERSION_ACTIONS)):
        if k == current:
            continue
        out.append(
            action(
                f"Replace `{name}` with version {k + 1}",
                k,
                types.CodeActionKind.RefactorRewrite,
            )
        )
    return out
