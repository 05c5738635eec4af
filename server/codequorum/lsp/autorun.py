"""Versions run when they arrive: the rule, the gates and what a hover says instead.

New versions (a regeneration, versions the client relays or imports, the watch's) run in
the sandbox at once when ``dynamic.auto`` is on, so the first hover's recommendation and
risk rest on behaviour: only a language that runs (``runtime_for``: Python, JavaScript,
TypeScript), only with ``dynamic.enable``, only in a trusted workspace, and only in a level
that isolates them (:func:`arrival_levels`: ``auto`` is the strict sandbox where this
machine gives it, else the portable one, its interpreter compiled first with progress;
``weak`` runs only when asked). A store that came from elsewhere is still asked about
first, by ``runDynamic``. Where they do not run, the hover says why in place of "not run
yet" (:func:`not_run_note`); where they ran, it says which sandbox ran and why.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Container
from typing import TYPE_CHECKING

from codequorum.behaviour.runtimes import runtime_for
from codequorum.behaviour.sandbox import isolation
from codequorum.core.safe_text import safe_text
from codequorum.lsp.prepare import PREPARING, prepare_portable, preparing
from codequorum.render.findings import not_run_reason

if TYPE_CHECKING:
    from codequorum.lsp.engine import Engine, FunctionAnalysis
    from codequorum.lsp.progress import NewProgress
    from codequorum.lsp.settings import Settings

log = logging.getLogger(__name__)

#: The levels Python versions run in on arrival, tried in order, for each
#: ``dynamic.sandbox``: ``weak`` none (no isolation: it runs only when asked). Versions of
#: other languages run only in the strict sandbox (their runtime has no portable level).
ARRIVAL_LEVELS = {"auto": ("strict", "portable"), "strict": ("strict",),
                  "portable": ("portable",), "weak": ()}
#: What the hover says while the versions run.
RUNNING = "running the versions in the sandbox…"
#: What it says in a workspace that is not trusted.
UNTRUSTED = "not run: this workspace is not trusted"


def arrival_levels(sandbox: str, language: str = "python") -> tuple[str, ...]:
    """The levels new versions of ``language`` may run in for the setting ``sandbox``,
    tried in order."""
    levels = ARRIVAL_LEVELS.get(sandbox, ())
    return levels if language == "python" else tuple(lv for lv in levels if lv == "strict")


def runs_on_arrival(settings: Settings, language: str, trusted: bool) -> bool:
    """Whether new versions run by themselves: ``dynamic.auto`` and ``dynamic.enable`` on,
    a language that runs, a trusted workspace, a level that isolates them (a weak one runs
    only when asked)."""
    d = settings.dynamic
    return (d.auto and d.enable and bool(arrival_levels(settings.analysis.sandbox, language))
            and runtime_for(language) is not None and trusted)


def sandbox_missing(*probes: isolation.Probe | None) -> str | None:
    """The hover's words when none of the levels ``probes`` tried runs here (None: one
    does, or one was not probed yet)."""
    if not probes or any(found is None or found.ok for found in probes):
        return None
    lacks = "; ".join(isolation.missing(found) for found in probes if found is not None)
    return f"not run: {safe_text(lacks, 300)}; see codequorum doctor"


def arrival_missing(sandbox: str, language: str) -> str | None:
    """:func:`sandbox_missing` for the levels of ``sandbox``, from the probes made already."""
    return sandbox_missing(*(isolation.probed(None, level, True)
                             for level in arrival_levels(sandbox, language)))


_probing = threading.Lock()


def probe_soon() -> None:
    """Probe the strict sandbox on a daemon thread when nobody did yet, so a later hover
    can say what the machine lacks (never waits)."""
    if isolation.probed(None, "strict", True) is not None or not _probing.acquire(blocking=False):
        return

    def work() -> None:
        try:
            isolation.probe(None, "strict", True)
        except Exception:  # the probe is asked again by a run, which says what failed
            log.exception("probing the sandbox failed")
        finally:
            _probing.release()

    try:
        threading.Thread(target=work, name="codequorum-probe", daemon=True).start()
    except RuntimeError:
        _probing.release()


async def arrival_level(new_progress: NewProgress, warn: Callable[[str], None],
                        sandbox: str, language: str) -> str | None:
    """The first level of ``sandbox`` that runs here, each probed with a workspace view as
    a run in a module needs it (once, on a thread); the portable one after its interpreter
    is compiled under a bar of ``new_progress`` (None: none runs, or the user cancelled the
    compile; a failed compile is said by ``warn``)."""
    for level in arrival_levels(sandbox, language):
        if level == "portable" and not await prepare_portable(new_progress, warn):
            return None
        if (await asyncio.to_thread(isolation.probe, None, level, True)).ok:
            return level
    return None


def not_run_note(engine: Engine, settings: Settings, running: Container[str], trusted: bool,
                 analysis: FunctionAnalysis) -> str | None:
    """What a hover says in place of "not run yet" for ``analysis`` (None: nothing to
    add): the run under way (its key among ``running``), the portable sandbox being
    prepared, a run that had no inputs, an untrusted workspace, or the sandboxes this
    machine cannot give for ``settings``; ``engine`` holds the document's versions."""
    from codequorum.judge.risk import NO_INPUTS

    if engine.dynamic_key(analysis) in running:
        return RUNNING
    if preparing():
        return PREPARING
    if engine.ran_nothing_before(analysis) or not_run_reason(analysis.report) == "no inputs":
        return NO_INPUTS  # a run of these versions (this one's, or a remembered one) had none
    if not trusted:
        return UNTRUSTED
    levels = arrival_levels(settings.analysis.sandbox, analysis.language)
    if not levels or not settings.dynamic.enable:
        return None
    if (levels[0] == "strict" and isolation.probed(None, "strict", True) is None
            and runtime_for(analysis.language) is not None):
        probe_soon()
    return arrival_missing(settings.analysis.sandbox, analysis.language)
