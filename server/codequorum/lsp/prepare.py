"""The portable sandbox's one compile, with progress the client can cancel.

The first portable run compiles the WebAssembly interpreter into the user's cache (tens of
seconds). Before a run that may need it, the server does it in a child process
(``codequorum doctor --prepare``) under a work-done progress "Preparing the portable
sandbox (once)": cancelling kills the child, nothing half-made is kept, and the next run
asks again. Runs that arrive meanwhile wait for the same compile.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from collections.abc import Callable

from codequorum.behaviour.sandbox import isolation
from codequorum.behaviour.sandbox.portable import interpreter as wasm
from codequorum.core.safe_text import safe_text
from codequorum.lsp.progress import NewProgress

log = logging.getLogger(__name__)

#: The progress title of the compile.
TITLE = "Preparing the portable sandbox (once)"
#: What a hover says while it compiles.
PREPARING = "preparing the portable sandbox (once; tens of seconds)…"
#: The child that compiles (the same command an editor's setup calls). ``-P``: it runs in
#: the server's folder, often the workspace, whose own ``codequorum/`` package ``-m`` would
#: otherwise import first.
COMMAND = ("-P", "-m", "codequorum", "doctor", "--prepare")

_task: asyncio.Future[bool] | None = None


def preparing() -> bool:
    """Whether the compile is under way."""
    return _task is not None and not _task.done()


async def prepare_portable(new_progress: NewProgress, warn: Callable[[str], None]) -> bool:
    """Compile the interpreter into the cache unless it is there, under a bar of
    ``new_progress``; False when the user cancelled or it failed (said once by ``warn``)."""
    global _task
    if not await asyncio.to_thread(wasm.needs_compile):
        return True
    if _task is None or _task.done():
        _task = asyncio.ensure_future(_compile(new_progress, warn))
    return await asyncio.shield(_task)


async def prepare_for(new_progress: NewProgress, warn: Callable[[str], None],
                      sandbox: str) -> bool:
    """Before a run in ``sandbox``: the interpreter compiled when the run will use the
    portable level (``auto`` where the strict sandbox is missing); False: cancelled."""
    if sandbox not in ("auto", "portable"):
        return True
    if sandbox == "auto" and (await asyncio.to_thread(isolation.probe, None, "strict",
                                                      True)).ok:
        return True
    return await prepare_portable(new_progress, warn)


async def _compile(new_progress: NewProgress, warn: Callable[[str], None]) -> bool:
    progress = new_progress(TITLE)
    await progress.begin("compiling the WebAssembly interpreter into your cache "
                         "(tens of seconds)")
    child = await asyncio.create_subprocess_exec(
        sys.executable, *COMMAND, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)
    finished = asyncio.ensure_future(child.communicate())
    cancelled = asyncio.ensure_future(progress.async_cancelled.wait())
    await asyncio.wait({finished, cancelled}, return_when=asyncio.FIRST_COMPLETED)
    cancelled.cancel()
    if not finished.done():
        child.kill()
        await finished
        progress.end("cancelled")
        log.info("the portable sandbox's compile was cancelled")
        return False
    if child.returncode != 0:
        said = (finished.result()[1] or b"").decode("utf-8", "replace").strip()
        last = said.splitlines()[-1] if said else f"exit {child.returncode}"
        warn(f"codequorum: {safe_text(last.removeprefix('codequorum: '), 300)}")
        progress.end("failed")
        return False
    progress.end("ready")
    return True
