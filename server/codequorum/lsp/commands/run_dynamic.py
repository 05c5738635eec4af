"""``codequorum.runDynamic``: start a run; versions that arrive run the same way."""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import TYPE_CHECKING

import attrs
from lsprotocol import types

from codequorum.core.safe_text import safe_text
from codequorum.lsp import contract as c
from codequorum.lsp.autorun import arrival_level, arrival_missing, runs_on_arrival
from codequorum.lsp.commands.dynamic_run import DynamicRun, prepared_run, runnable
from codequorum.lsp.commands.registry import command
from codequorum.lsp.commands.resolve import lookup
from codequorum.lsp.gates import input_proposer, may_run_store
from codequorum.lsp.host import questions
from codequorum.lsp.prepare import prepare_for
from codequorum.lsp.progress import progress_maker

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


log = logging.getLogger(__name__)


@command(c.RunDynamicArgs)
async def run_dynamic_command(ls: Host, args: c.RunDynamicArgs) -> c.RunDynamicResult:
    """Start the sandboxed dynamic analysis of a function in the background, in its module
    (``interactive``: answered at once, before any question; what comes of it is shown)."""
    snapshot, entry, analysis = await runnable(
        lookup(ls), ls.settings_for(args.uri).dynamic.enable, args)
    name = entry.qualified_name
    if args.interactive:
        ls.in_background(run_dynamic_shown(ls, attrs.evolve(args, interactive=False)),
                         "dynamic analysis")
        return c.RunDynamicResult(uri=args.uri, qualified_name=name, started=True)
    refusal = await may_run_store(questions(ls), ls.engine_for(args.uri))
    if refusal is not None:
        ls.show(types.MessageType.Warning, f"codequorum: {refusal}")
        return c.RunDynamicResult(
            uri=args.uri, qualified_name=name, started=False, refused=True, message=refusal
        )
    new_progress = progress_maker(ls.work_done_progress, ls.client_capabilities)
    if not await prepare_for(new_progress, ls.warn_once,
                             ls.settings_for(args.uri).analysis.sandbox):
        return c.RunDynamicResult(uri=args.uri, qualified_name=name, started=False,
                                  message="not run: the portable sandbox was not prepared")
    job = ls.engine_for(args.uri).dynamic_key(analysis)
    if job in ls.dynamic_jobs:
        return c.RunDynamicResult(
            uri=args.uri, qualified_name=name, started=False, message="already running"
        )
    analysis, module = await prepared_run(ls.engine_for(snapshot.uri), ls.file_key(snapshot.uri),
                                          snapshot, entry, analysis)
    progress = new_progress(f"codequorum: running {safe_text(entry.name, 100)} versions")
    await progress.begin("starting")
    settings = ls.settings_for(args.uri)
    proposer = input_proposer(questions(ls), settings, progress.cancelled)
    run = DynamicRun(ls.engine_for(args.uri), ls.show, partial(ls.refresh, args.uri),
                     ls.dynamic_jobs, safe_text(name, 200), analysis, progress, proposer,
                     settings.dynamic.propose_inputs, job, module)
    ls.dynamic_jobs[job] = asyncio.ensure_future(run())
    return c.RunDynamicResult(uri=args.uri, qualified_name=name, started=True, token=progress.token)


async def run_arrived(ls: Host, uri: str, qualified_name: str,
                      language: str) -> None:
    """Run the versions of ``qualified_name`` that just arrived, when :func:`runs_on_arrival`
    and a level of the setting runs here
    (:func:`~codequorum.lsp.autorun.arrival_level`); else refresh, so the hover says why not."""
    sandbox = ls.settings_for(uri).analysis.sandbox
    if not runs_on_arrival(ls.settings_for(uri), language, ls.trusted):
        return
    new_progress = progress_maker(ls.work_done_progress, ls.client_capabilities)
    if await arrival_level(new_progress, ls.warn_once, sandbox, language) is None:
        missing = arrival_missing(sandbox, language)
        if missing is not None:
            log.info("versions of %s not run on arrival: %s", qualified_name, missing)
            ls.warn_once(f"codequorum: versions are not run here ({missing})")
        ls.refresh(uri)
        return
    await run_dynamic_command(ls, c.RunDynamicArgs(uri=uri, qualified_name=qualified_name))


async def run_dynamic_shown(ls: Host, args: c.RunDynamicArgs) -> None:
    """Start the run; say why when it does not start (a refusal is said by the gate)."""
    result = await run_dynamic_command(ls, args)
    if not result.started and not result.refused and result.message:
        shown = safe_text(result.qualified_name, 200)
        ls.show(types.MessageType.Info, f"codequorum: '{shown}': {safe_text(result.message)}")
