"""``codequorum.regenerate``: ask the configured provider for new versions."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import attrs
from lsprotocol import types

from codequorum.core.safe_text import safe_text
from codequorum.lsp import contract as c
from codequorum.lsp.commands.regeneration import (
    RELAY_ONLY,
    regenerate_result,
    regenerate_storing,
    regenerating_title,
    regeneration_message,
    regeneration_request,
    relay_result,
    requested_count,
)
from codequorum.lsp.commands.registry import REGENERATE, command
from codequorum.lsp.commands.resolve import lookup, resolve_function
from codequorum.lsp.commands.run_dynamic import run_arrived
from codequorum.lsp.gates import may_send_key
from codequorum.lsp.host import questions
from codequorum.lsp.progress import WorkProgress

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


@command(c.RegenerateArgs)
async def regenerate_command(ls: Host, args: c.RegenerateArgs) -> c.RegenerateResult:
    """Ask the configured provider for new versions, storing each as it arrives
    (``interactive``: answered at once with status ``started``; the rest is shown)."""
    snapshot, entry = await resolve_function(lookup(ls), args, REGENERATE)
    assert entry is not None
    settings = ls.settings_for(args.uri)
    n = requested_count(args.n, settings.provider.versions)
    if args.interactive and settings.provider.kind != "client":
        ls.in_background(regenerate_command(ls, attrs.evolve(args, interactive=False)),
                         "regeneration")
        return c.RegenerateResult(uri=args.uri, qualified_name=entry.qualified_name,
                                  status="started", requested=n)
    request = await regeneration_request(ls.engine, ls.file_key(args.uri), args.uri,
                                         snapshot, entry, n)
    if settings.provider.kind == "client":
        if args.interactive:
            ls.show(types.MessageType.Warning, RELAY_ONLY)
        return relay_result(request)
    refusal = await may_send_key(questions(ls), settings.provider,
                                 confirmed=args.endpoint_confirmed)
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return c.RegenerateResult(
            uri=args.uri, qualified_name=entry.qualified_name, status="refused", message=refusal
        )
    config = settings.provider.config(versions=n)
    progress = WorkProgress(ls.work_done_progress, ls.client_capabilities,
                            regenerating_title(entry))
    result, stored = await regenerate_storing(ls.engine_for(args.uri), ls.show,
                                              partial(ls.refresh, args.uri), request, config,
                                              progress)
    ls.show(*regeneration_message(result, safe_text(entry.qualified_name, 200)))
    ls.refresh(args.uri)
    if result.ok:  # the answer does not wait for a question the run may ask
        ls.in_background(run_arrived(ls, args.uri, entry.qualified_name, request.language),
                         "running the new versions")
    return regenerate_result(args.uri, entry.qualified_name, result, stored)
