"""Versions run when they arrive: the rule, the gates and what a hover says instead.

New versions (a regeneration, versions the client relays or imports, the watch's) run in
the sandbox at once when ``dynamic.auto`` is on, so the first hover's recommendation and
risk rest on behaviour; only a language that runs (``runtime_for``: Python, JavaScript,
TypeScript), only with ``dynamic.enable``, only in a trusted
workspace and only in the strict sandbox where this machine gives it (a store that came
from elsewhere is still asked about first, by ``runDynamic``). Where they do not run, the
hover says why in place of "not run yet" (:func:`not_run_note`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING

from codequorum.behaviour.runtimes import runtime_for
from codequorum.behaviour.sandbox import isolation
from codequorum.core.safe_text import safe_text
from codequorum.lsp import contract as c

if TYPE_CHECKING:
    from codequorum.lsp.engine import FunctionAnalysis
    from codequorum.lsp.host import Host
    from codequorum.lsp.settings import Settings

log = logging.getLogger(__name__)

#: Levels that run the strict sandbox where this machine gives it: versions run on their
#: own only there (a portable run, which may first compile its interpreter, is asked for).
STRICT_FIRST = ("strict", "auto")
#: What the hover says while the versions run.
RUNNING = "running the versions in the sandbox…"
#: What it says in a workspace that is not trusted.
UNTRUSTED = "not run: this workspace is not trusted"


def runs_on_arrival(settings: Settings, language: str, trusted: bool) -> bool:
    """Whether new versions run by themselves: ``dynamic.auto`` and ``dynamic.enable`` on,
    a language that runs, a trusted workspace, the strict sandbox (a weak one runs only when
    asked)."""
    d = settings.dynamic
    return (d.auto and d.enable and d.sandbox in STRICT_FIRST
            and runtime_for(language) is not None and trusted)


def sandbox_missing(probe: isolation.Probe | None) -> str | None:
    """The hover's words for a strict sandbox this machine cannot give (None: it gives it,
    or it was not probed yet)."""
    if probe is None or probe.ok:
        return None
    return f"not run: {safe_text(isolation.missing(probe), 300)}; see codequorum doctor"


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


async def strict_probe() -> isolation.Probe:
    """The strict sandbox's probe with a workspace view, as a run in a module needs it
    (made once, on a thread)."""
    return await asyncio.to_thread(isolation.probe, None, "strict", True)


async def run_arrived(ls: Host, uri: str, qualified_name: str,
                      language: str) -> None:
    """Run the versions of ``qualified_name`` that just arrived, when :func:`runs_on_arrival`
    and the machine's strict sandbox allow; else refresh, so the hover says why not."""
    from codequorum.lsp.commands import run_dynamic_command

    if not runs_on_arrival(ls.settings_for(uri), language, ls.trusted):
        return
    probe = await strict_probe()
    missing = sandbox_missing(probe)
    if missing is not None:
        log.info("versions of %s not run on arrival: %s", qualified_name, probe.detail)
        ls.warn_once(f"codequorum: versions are not run here ({missing})")
        ls.refresh(uri)
        return
    await run_dynamic_command(ls, c.RunDynamicArgs(uri=uri, qualified_name=qualified_name))


def not_run_note(ls: Host, uri: str, analysis: FunctionAnalysis) -> str | None:
    """What a hover says in place of "not run yet" for ``analysis`` (None: nothing to
    add): the run under way, a run that had no inputs, an untrusted workspace, or the
    strict sandbox this machine cannot give."""
    from codequorum.judge.risk import NO_INPUTS

    engine = ls.engine_for(uri)
    key = engine.dynamic_key(analysis)
    if key in ls.dynamic_jobs:
        return RUNNING
    if engine.ran_nothing_before(analysis):
        return NO_INPUTS
    if not ls.trusted:
        return UNTRUSTED
    settings = ls.settings_for(uri)
    if settings.dynamic.sandbox not in STRICT_FIRST or not settings.dynamic.enable:
        return None
    found = isolation.probed(None, "strict", True)
    if found is None and runtime_for(analysis.language) is not None:
        probe_soon()
    return sandbox_missing(found)
