"""``sample_versions``: more versions of one function from the user's endpoint, kept in the
workspace's store as ``codequorum sample`` keeps them (the same prompt, the same checks of
each answer, stored as they arrive; the store is made only when a version is accepted).

The endpoint, model and key variable are the server's options: flags, the environment or
the user's own configuration file, never a project's file (see
:mod:`codequorum.options.config_file`) and never the agent's arguments.
"""

from __future__ import annotations

import dataclasses

import anyio

from codequorum.agents.agent_workspace import AgentWorkspace, FunctionTarget, Progress
from codequorum.agents.schema import MAX_SAMPLE_COUNT, SampleArgs, SampleResult, VersionOutcome
from codequorum.core.errors import UserError
from codequorum.core.model import Version
from codequorum.core.safe_text import safe_text
from codequorum.generate.endpoint import (
    Outcome,
    Rejected,
    answer_budget,
    failure_message,
    regenerate,
)
from codequorum.generate.prompting import build_messages, prompt_hash


def _outcome(index: int, outcome: Outcome) -> VersionOutcome:
    """One answer in the result: accepted with its size, rejected or failed with why."""
    if isinstance(outcome, Version):
        lines = outcome.code.count("\n")
        return VersionOutcome(index=index, outcome="accepted",
                             detail=f"{lines} line{'s' if lines != 1 else ''}")
    if isinstance(outcome, Rejected):
        return VersionOutcome(index=index, outcome="rejected", detail=safe_text(outcome.describe()))
    return VersionOutcome(index=index, outcome="failed", detail=safe_text(outcome.describe()))


@dataclasses.dataclass
class _Arrivals:
    """Keeps each accepted version as it arrives and reports progress."""

    ws: AgentWorkspace
    target: FunctionTarget
    digest: str
    count: int
    progress: Progress
    outcomes: list[VersionOutcome] = dataclasses.field(default_factory=list)
    stored_any: bool = False

    def __call__(self, index: int, outcome: Outcome) -> None:
        target = self.target
        if isinstance(outcome, Version):
            self.ws.session().add_sync(target.key, target.language,
                                       str(target.info.qualified_name), [outcome],
                                       prompt_hash=self.digest)
            self.stored_any = True
        item = _outcome(index, outcome)
        self.outcomes.append(item)
        self.progress(float(len(self.outcomes)), float(self.count),
                      f"version {index + 1}: {item.outcome}")


async def sample_versions(ws: AgentWorkspace, args: SampleArgs,
                          progress: Progress) -> SampleResult:
    """Ask the configured endpoint for ``args.count`` versions and store the accepted ones.
    Raises :class:`UserError` when none was accepted (the endpoint's error, or why the
    answers were refused)."""
    target = await anyio.to_thread.run_sync(ws.function, args.path, args.function,
                                            args.language)
    store = await anyio.to_thread.run_sync(ws.store_path)
    config = ws.options.provider
    count = args.count or min(config.versions, MAX_SAMPLE_COUNT)
    name = str(target.info.qualified_name)
    messages = build_messages(target.source.text, target.language, target.info,
                              ws.options.context_lines, path=target.key)
    arrivals = _Arrivals(ws, target, prompt_hash(messages), count, progress)
    progress(0.0, float(count), f"asking {config.model} at {config.public_url}")
    result = await regenerate(dataclasses.replace(config, versions=count), messages, count,
                              target.language, name, budget=answer_budget(target.info.text),
                              on_version=arrivals)
    failure = failure_message(result, name)
    if failure is not None:
        raise UserError(safe_text(failure))
    stored = await anyio.to_thread.run_sync(
        lambda: len(ws.session().versions_sync(target.key, name)))
    return SampleResult(
        path=target.key, function=name, endpoint=config.public_url, model=config.model,
        requested=count, accepted=len(result.accepted), rejected=len(result.rejected),
        failed=len(result.errors), cancelled=result.cancelled, summary=result.summary(),
        outcomes=sorted(arrivals.outcomes, key=lambda o: o.index), stored=stored,
        store=str(store) if arrivals.stored_any else None)
