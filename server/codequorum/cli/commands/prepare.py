"""``codequorum doctor --prepare``: compile the portable sandbox's interpreter ahead.

The first portable run compiles the WebAssembly interpreter (tens of seconds) into the
user's cache; an editor's setup calls this instead, so no hover waits for it. The compile
runs on a thread while a progress bar on standard error counts the seconds; Ctrl-C stops
it and leaves nothing half-written in the cache.
"""

from __future__ import annotations

import sys
import threading

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from codequorum.behaviour.sandbox.portable import interpreter as wasm

#: The progress bar's title.
TITLE = "Preparing the portable sandbox (once)"


def prepare_portable(announce: bool = True) -> int:
    """Compile the interpreter into the cache (nothing when it is there): 0 when ready, 1
    when the portable sandbox cannot be prepared here (said on standard error);
    ``announce``: say where it is ready on standard output (``doctor --sandbox portable``,
    whose output is the diagnosis, does not)."""
    outcome: list[BaseException | str] = []

    def work() -> None:
        try:
            outcome.append(str(wasm.compiled_module()))
        except (wasm.PortableUnavailable, OSError) as exc:
            outcome.append(exc)

    thread = threading.Thread(target=work, name="codequorum-prepare", daemon=True)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        bar.add_task(TITLE if wasm.needs_compile() else "checking the portable sandbox")
        thread.start()
        while thread.is_alive():
            thread.join(0.2)
    found = outcome[0] if outcome else RuntimeError("the compile stopped")
    if isinstance(found, BaseException):
        print(f"codequorum: the portable sandbox cannot be prepared here: {found}",
              file=sys.stderr)
        return 1
    if announce:
        print(f"the portable sandbox is ready: {found}")
    return 0
