"""A regeneration under way: its request, its prompt, the versions stored as they
arrive, and what the user is told when it ends."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types

from codequorum.core.model import Version
from codequorum.core.safe_text import safe_text
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import REGENERATE, CommandError, ShownError
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.progress import WorkProgress

if TYPE_CHECKING:
    from codequorum.generate.endpoint import ProviderConfig, RegenerationResult
    from codequorum.lsp.engine import Engine


log = logging.getLogger(__name__)


def requested_count(n: int | None, default: int) -> int:
    """How many versions a regeneration asks for: ``n`` when given (1 to 50), else the
    configured number."""
    if n is None:
        return default
    if not 1 <= n <= 50:
        raise CommandError(f"{REGENERATE}: n must be a whole number from 1 to 50")
    return n


def regeneration_message(result: RegenerationResult, shown: str) -> tuple[types.MessageType, str]:
    """What the user is told once a regeneration ends (``shown`` is the function's name,
    safe to show): the summary, every failure counted by kind, with the distinct errors
    (or, when nothing came, the reasons of the rejections)."""
    summary = safe_text(result.summary())
    if result.cancelled:
        return types.MessageType.Info, f"codequorum: regeneration of '{shown}' cancelled: {summary}"
    reasons = result.error_summary()
    if not result.ok and not reasons:
        reasons = "; ".join(sorted({r.reason for r in result.rejected})) or None
    extra = f" ({safe_text(reasons)})" if reasons else ""
    if result.ok:
        return types.MessageType.Info, f"codequorum: '{shown}': {summary}{extra}"
    return (
        types.MessageType.Error,
        f"codequorum: regeneration of '{shown}' failed: {summary}{extra}",
    )


def regeneration_status(result: RegenerationResult) -> Literal["ok", "failed", "cancelled"]:
    """The result's ``status``: cancelled, ok (a version was accepted) or failed."""
    if result.cancelled:
        return "cancelled"
    return "ok" if result.ok else "failed"


@dataclass(frozen=True)
class Request:
    """One regeneration: the function, the file's store key (also the path the prompt
    names), its language, the prompt and how many versions to ask for."""

    uri: str
    key: str
    language: str
    entry: FunctionEntry
    messages: list[dict[str, str]]
    n: int


@dataclass
class Arrivals:
    """Stores each accepted version as it arrives (in ``engine``'s store) and reports the
    answers counted so far."""

    engine: Engine
    request: Request
    progress: WorkProgress
    prompt_hash: str
    done: int = 0
    stored: int = 0

    async def on_version(self, index: int, outcome: Any) -> None:
        """One answer came: store it when it holds a version, then report progress."""
        self.done += 1
        if isinstance(outcome, Version):
            await self._store(outcome)
        n = self.request.n
        self.progress.report(f"{self.done} of {n} answers, {self.stored} stored",
                             int(100 * self.done / n))

    async def _store(self, version: Version) -> None:
        """Store one version; a failure is logged and the other versions still come."""
        request = self.request
        try:
            engine = self.engine
            await engine.run(engine.add_sync, request.key, request.language,
                             request.entry.qualified_name, [version], self.prompt_hash)
            self.stored += 1
        except Exception as exc:
            log.warning("could not store a regenerated version: %s", exc)


#: What a person is told who asks for versions where the editor is to write them.
RELAY_ONLY = (
    "codequorum: provider.kind is 'client': the editor writes the versions, and this one does "
    "not; set provider.kind to 'openai-compatible' and provider.baseUrl to regenerate here"
)


def relay_result(request: Request) -> c.RegenerateResult:
    """The prompt handed to the client, which asks its own model (``provider.kind`` is
    ``client``) and sends the versions back with ``addSamples``."""
    return c.RegenerateResult(
        uri=request.uri,
        qualified_name=request.entry.qualified_name,
        status="relay",
        n=request.n,
        language=request.language,
        messages=[
            c.PromptMessage(role=m["role"], content=m["content"])  # type: ignore[arg-type]
            for m in request.messages
        ],
    )


def regenerating_title(entry: FunctionEntry) -> str:
    """The progress title of a regeneration of ``entry``."""
    return f"codequorum: regenerating {safe_text(entry.name, 100)}"


async def regenerate_storing(
    engine: Engine, show: Callable[[types.MessageType, str], None],
    refresh: Callable[[], None], request: Request, config: ProviderConfig,
    progress: WorkProgress,
) -> tuple[RegenerationResult, int]:
    """Ask the endpoint under the cancellable ``progress``, storing versions in
    ``engine``'s store as they arrive; the result and how many versions were stored. A
    failure is told by ``show`` and becomes a :class:`CommandError`; a cancelled request is
    told, the document's features drawn again (``refresh``), and re-raised."""
    from codequorum.generate.endpoint import answer_budget, regenerate
    from codequorum.generate.prompting import prompt_hash

    entry = request.entry
    digest = prompt_hash(request.messages)
    shown = safe_text(entry.qualified_name, 200)
    async with progress:
        arrivals = Arrivals(engine, request, progress, digest)
        try:
            result = await regenerate(config, request.messages, request.n, request.language,
                                      entry.qualified_name, budget=answer_budget(entry.text),
                                      cancel=progress.async_cancelled,
                                      on_version=arrivals.on_version)
        except asyncio.CancelledError:
            progress.cancel()
            refresh()
            show(types.MessageType.Info, f"codequorum: regeneration of '{shown}' cancelled")
            raise
        except Exception as exc:  # a bug in a provider must not take the server down
            log.exception("regeneration failed")
            show(types.MessageType.Error,
                    f"codequorum: regeneration of '{shown}' failed: {safe_text(exc)}")
            raise ShownError(f"{REGENERATE}: {safe_text(exc)}") from exc
    return result, arrivals.stored


def regenerate_result(
    uri: str, name: str, result: RegenerationResult, stored: int
) -> c.RegenerateResult:
    """The answer of a regeneration that asked the endpoint."""
    return c.RegenerateResult(
        uri=uri,
        qualified_name=name,
        status=regeneration_status(result),
        requested=result.requested,
        accepted=len(result.accepted),
        stored=stored,
        rejected=[safe_text(r.describe()) for r in result.rejected],
        errors=[safe_text(e.describe()) for e in result.errors],
        message=safe_text(result.summary()),
    )


async def regeneration_request(
    engine: Engine, key: str, uri: str, snapshot: Snapshot, entry: FunctionEntry, n: int
) -> Request:
    """The regeneration of ``entry`` in the document ``uri`` (the store's ``key``), its
    prompt built on ``engine``'s worker thread."""
    from codequorum.generate.prompting import build_messages

    assert snapshot.language is not None
    language = snapshot.language
    messages = await engine.run(
        lambda: build_messages(snapshot.text, language, entry.info, path=key)
    )
    return Request(uri, key, language, entry, messages, n)
