"""``codequorum.showVersion``: one version's text and the edit that puts it in place."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codequorum.lsp import contract as c
from codequorum.lsp.actions import users_head
from codequorum.lsp.commands.registry import SHOW_VERSION, CommandError, command
from codequorum.lsp.commands.resolve import function_analysis, lookup, version_fields
from codequorum.lsp.documents import reindent
from codequorum.render.findings import consensus

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


@command(c.ShowVersionArgs)
async def show_version_command(ls: Host, args: c.ShowVersionArgs) -> c.ShowVersionResult:
    """The text of version k (1-based, or consensus / current / fastest / mostDifferent)."""
    which: int | str | None = args.version
    if which is None and args.index is not None:
        which = args.index + 1
    snapshot, entry, analysis = await function_analysis(lookup(ls), args, SHOW_VERSION)
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
                f"{SHOW_VERSION}: expected a version number 1..{len(analysis.version_set.versions)}"
                " or consensus / current / fastest / mostDifferent"
            ) from exc
    if index is None or not 0 <= index < len(analysis.version_set.versions):
        raise CommandError(f"{SHOW_VERSION}: no version {which!r} of '{entry.qualified_name}'")
    version = analysis.version_set.versions[index]
    return c.ShowVersionResult(
        uri=snapshot.uri,
        qualified_name=entry.qualified_name,
        **version_fields(analysis, index),
        language=analysis.language,
        code=version.code,
        indented=reindent(version.code, entry.indent),
        range=entry.range,
        replacement=reindent(version.code if args.own_docstring else users_head(
            entry.dedented(), version.code, entry.name, snapshot.language == "python"),
            entry.indent),
    )
