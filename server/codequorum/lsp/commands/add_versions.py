"""``codequorum.addVersions``: store versions the client relays."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codequorum.core.limits import InputLimitError, check_call_sizes
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import ADD_VERSIONS, CommandError, command
from codequorum.lsp.commands.store import store_versions, version_of

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


@command(c.AddVersionsArgs)
async def add_versions_command(ls: Host, args: c.AddVersionsArgs) -> c.StoreResult:
    """Store versions the client relays (origin ``relayed``); versions over the bounds of
    :mod:`codequorum.core.limits` are refused before anything reads them."""
    versions = [version_of(item, "relayed") for item in args.versions]
    if not versions:
        raise CommandError(f"{ADD_VERSIONS}: no versions given")
    try:
        check_call_sizes([s.code for s in versions])
    except InputLimitError as exc:
        raise CommandError(f"{ADD_VERSIONS}: {exc}; nothing was stored") from exc
    return await store_versions(ls, args, ADD_VERSIONS, versions)
