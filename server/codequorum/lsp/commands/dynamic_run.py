"""One dynamic run in the background, in its module: the run itself, how it ends
and what the user is told."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from codequorum.behaviour.runtimes import runtime_for, runtime_names
from codequorum.core.errors import SandboxUnavailableError
from codequorum.core.model import ModuleContext
from codequorum.core.safe_text import safe_text
from codequorum.judge.dynamic_rules import dynamic_verdicts
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import RUN_DYNAMIC, CommandError
from codequorum.lsp.commands.resolve import Lookup, function_analysis
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.engine import Engine, FunctionAnalysis, ran_nothing
from codequorum.lsp.hover import DYNAMIC_FIGURES
from codequorum.lsp.progress import WorkProgress

if TYPE_CHECKING:
    from codequorum.lsp.gates import ConsentedProposer


log = logging.getLogger(__name__)


def dynamic_done_message(name: str, summary: Mapping[str, Any]) -> str:
    """What the user is told when a dynamic run ends: the figures of
    :data:`~codequorum.lsp.hover.DYNAMIC_FIGURES` that have a number (``name`` is safe to
    show)."""
    figures = ", ".join(
        f"{label} {summary[key]:.2f}"
        for key, label in DYNAMIC_FIGURES
        if isinstance(summary.get(key), int | float)
    )
    return f"codequorum: dynamic analysis of '{name}' done" + (f": {figures}" if figures else "")


def nothing_ran_message(name: str, propose_inputs: bool, problem: str | None) -> str:
    """What the user is told when a run had no inputs, so no version ran and nothing changed
    (``name`` is safe to show): where inputs come from, and why the model gave none when it
    was to be asked (``propose_inputs``; ``problem`` says why it gave none)."""
    text = f"codequorum: nothing ran for '{name}': no inputs: add a doctest"
    if not propose_inputs:
        return (f"{text}, type hints, or turn on inputs from the model "
                "(codequorum.dynamic.proposeInputs)")
    why = safe_text(problem) if problem else "the model proposed none"
    return f"{text} or type hints; {why}"


def proposer_problem_message(name: str, problem: str) -> str:
    """What the user is told when the model's inputs were refused or failed: the versions
    still ran on the others."""
    return f"codequorum: '{name}': {safe_text(problem)}; the versions ran on the other inputs"


#: A message to the user, made safe, from any thread.
Show = Callable[[types.MessageType, str], None]


@dataclass
class DynamicRun:
    """One dynamic analysis in the background on ``engine``: ``name`` is the function's
    qualified name safe to show, ``job`` its key in ``jobs`` (the runs under way, which it
    leaves when it ends); what comes of it is told by ``show``, and ``refresh`` has the
    document's features drawn again."""

    engine: Engine
    show: Show
    refresh: Callable[[], None]
    jobs: dict[str, asyncio.Future[None]]
    name: str
    analysis: FunctionAnalysis
    progress: WorkProgress
    proposer: ConsentedProposer | None
    propose_inputs: bool
    job: str
    module: ModuleContext | None = None

    async def __call__(self) -> None:
        """Run it, say how it ended, whatever the end, and forget the job."""
        progress = self.progress
        try:
            result = await self.engine.run_dynamic_async(
                self.analysis,
                lambda msg, pct: progress.report(safe_text(msg, 200), pct),
                progress.cancelled,
                self.proposer,
                self.module,
            )
            self._finished(result)
        except asyncio.CancelledError:
            progress.cancel()
            progress.end("cancelled")
            raise
        except SandboxUnavailableError as exc:  # the machine's lack, not a failure
            log.info("versions of %s not run: %s", self.name, exc)
            progress.end("not run: no sandbox here")
            why = safe_text(exc, 400)
            hint = "" if "codequorum doctor" in why else (
                "; `codequorum doctor` shows what this machine gives")
            self.show(types.MessageType.Warning, f"codequorum: '{self.name}' not run: {why}{hint}")
        except Exception as exc:
            log.exception("dynamic analysis failed")
            progress.end("failed")
            self.show(
                types.MessageType.Error,
                f"codequorum: dynamic analysis of '{self.name}' failed: {safe_text(exc)}",
            )
        finally:
            self.jobs.pop(self.job, None)

    def _finished(self, result: Any) -> None:
        """End the progress and say what came of the run: cancelled, nothing ran (and why:
        the run changed nothing), or its figures (and a problem with the model's inputs);
        then refresh the document's features."""
        if self.progress.cancelled.is_set():
            self.progress.end("cancelled")
            self.show(
                types.MessageType.Info, f"codequorum: dynamic analysis of '{self.name}' cancelled"
            )
            return
        if ran_nothing(result):
            problem = self.proposer.problem if self.proposer is not None else None
            self.progress.end("nothing ran: no inputs")
            self.show(types.MessageType.Warning,
                         nothing_ran_message(self.name, self.propose_inputs, problem))
            return
        if not getattr(result, "inputs", None):  # the module refused the run: its note says why
            self.progress.end("not run in its module")
            notes = "; ".join(v.message for v in dynamic_verdicts(result))
            self.show(types.MessageType.Warning,
                         f"codequorum: '{self.name}' not run: {safe_text(notes, 400)}")
            self.refresh()
            return
        message = dynamic_done_message(self.name, getattr(result, "summary", {}) or {})
        self.progress.end("done")
        self.show(types.MessageType.Info, message)
        if self.proposer is not None and self.proposer.problem is not None:
            self.show(types.MessageType.Warning,
                         proposer_problem_message(self.name, self.proposer.problem))
        self.refresh()


async def runnable(
    find: Lookup, enabled: bool, args: c.RunDynamicArgs
) -> tuple[Snapshot, FunctionEntry, FunctionAnalysis]:
    """The function to run, its document and its analysis; a :class:`CommandError` when
    dynamic analysis is off (``enabled``: the document's ``dynamic.enable``), the function
    has no versions, or its language does not run."""
    if not enabled:
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis is off (codequorum.dynamic.enable)")
    snapshot, entry, analysis = await function_analysis(find, args, RUN_DYNAMIC)
    if analysis is None:
        raise CommandError(f"{RUN_DYNAMIC}: no versions of '{entry.qualified_name}' yet")
    if runtime_for(analysis.language) is None:
        raise CommandError(f"{RUN_DYNAMIC}: dynamic analysis runs {runtime_names()} only")
    if analysis.refused:
        raise CommandError(f"{RUN_DYNAMIC}: {analysis.report.message}")
    return snapshot, entry, analysis


async def prepared_run(
    engine: Engine, file_key: str, snapshot: Snapshot, entry: FunctionEntry,
    analysis: FunctionAnalysis,
) -> tuple[FunctionAnalysis, ModuleContext | None]:
    """The function prepared for its run as every front end prepares it
    (:meth:`~codequorum.pipeline.session.Session.prepare`): its analysis and its module as
    the editor holds it (its unsaved text too), with the view of its workspace folder
    (read on a worker thread)."""
    prepared = await engine.run(engine.prepare_entry, snapshot, entry, file_key)
    if prepared is None:
        return analysis, None
    return prepared.analysis, prepared.module
