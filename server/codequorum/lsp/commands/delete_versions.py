"""``codequorum.deleteVersions``: delete stored versions, asked first when a person chose it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from codequorum.core.safe_text import safe_text
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import DELETE_VERSIONS, command
from codequorum.lsp.commands.resolve import lookup, resolve_function
from codequorum.lsp.gates import ask

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


@command(c.DeleteVersionsArgs)
async def delete_versions_command(ls: Host, args: c.DeleteVersionsArgs) -> c.ClearResult:
    """Delete the stored versions of one function (or of the whole file without one).
    ``interactive``: answered at once; the user is asked first and told what was deleted."""
    target = args
    name = target.qualified_name
    if name is None and target.position is not None:
        _, entry = await resolve_function(lookup(ls), target, DELETE_VERSIONS)
        name = entry.qualified_name if entry else None
    if args.interactive:
        ls.in_background(clear_asked(ls, target.uri, name), "clearing the versions")
        return c.ClearResult(uri=target.uri, qualified_name=name, removed=0)
    count = await ls.engine.run(ls.engine_for(target.uri).clear_sync, ls.file_key(target.uri), name)
    ls.refresh(target.uri)
    return c.ClearResult(uri=target.uri, qualified_name=name, removed=count)


#: The answers to the question before versions are deleted, the safe one first.
KEEP, DELETE = "Keep them", "Delete them"


async def clear_asked(ls: Host, uri: str, name: str | None) -> None:
    """Ask before deleting the stored versions of ``name`` (None: every function of the
    file), delete them on a yes, and say what was deleted."""
    engine, key = ls.engine_for(uri), ls.file_key(uri)
    names = [name] if name is not None else await engine.run(
        engine.functions_with_versions_sync, key
    )
    stored = 0
    for each in names:
        stored += len(await engine.run(engine.versions_sync, key, each))
    whose = f"'{safe_text(name, 200)}'" if name is not None else "every function of this file"
    if not stored:
        ls.show(types.MessageType.Info, f"codequorum: {whose} has no stored versions")
        return
    versions = f"{stored} stored version{'s' if stored != 1 else ''}"
    question = f"codequorum: delete the {versions} of {whose}? They cannot be brought back."
    if not await ask(ls.window_show_message_request_async, question, KEEP, DELETE):
        return
    removed = (await delete_versions_command(ls, c.DeleteVersionsArgs(uri=uri, qualified_name=name))
               ).removed
    ls.show(types.MessageType.Info, f"codequorum: deleted {removed} stored "
            f"version{'s' if removed != 1 else ''} of {whose}")
