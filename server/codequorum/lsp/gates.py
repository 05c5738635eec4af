"""The questions asked before something runs or a key leaves: thin async checks the
commands call with what they use (:class:`Questions`), never the server.

Each answers None when the command may go on, or the message saying why not (shown to the
user by the command). Questions go through ``window/showMessageRequest`` with the safe answer
first (clients pre-select the first action: a bare Enter must not run or send anything); a
dismissed question, an empty answer and a client that cannot answer count as "no", and the
message says how to approve by hand. The model's call
inputs for a dynamic run (:class:`ConsentedProposer`) ask the key's question only when a
function needs them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from codequorum.core.safe_text import MESSAGE_LIMIT, plain_message, safe_text
from codequorum.options.approvals import Approvals, is_default_endpoint

if TYPE_CHECKING:
    from codequorum.generate.input_language import InputLanguage
    from codequorum.generate.proposed_inputs import InputAsker
    from codequorum.lsp.engine import Engine
    from codequorum.lsp.settings import ProviderSettings, Settings

log = logging.getLogger(__name__)

RUN = "Run in the sandbox"
NOT_NOW = "Not now"
SEND = "Send the key"
DONT_SEND = "Don't send"

UNTRUSTED = (
    "this workspace is not trusted: codequorum runs no versions and sends nothing to an "
    "endpoint in it"
)


#: How a question reaches the user (``window/showMessageRequest``).
AskUser = Callable[[types.ShowMessageRequestParams], Awaitable[types.MessageActionItem | None]]


@dataclass(frozen=True)
class Questions:
    """What the gates use: whether the workspace is ``trusted``, the way to ``ask`` the
    user, a ``warn``ing the user sees once, and the ``worker`` engine whose thread reads and
    writes the approvals file."""

    trusted: bool
    ask: AskUser
    warn: Callable[[str], None]
    worker: Engine


async def ask(ask_user: AskUser, message: str, no: str, yes: str) -> bool:
    """True when the user picks ``yes``; the actions are offered ``no`` first, the one a
    client pre-selects. False on ``no``, a dismissed question, any other answer, or a
    client that cannot ask."""
    return await choose(ask_user, message, (no, yes)) == yes


async def choose(ask_user: AskUser, message: str, actions: tuple[str, ...],
                 kind: types.MessageType = types.MessageType.Warning) -> str | None:
    """The title of the action the user picks among ``actions`` (the safe one first: the
    one a client pre-selects); None for a dismissed question, an answer that is none of
    them, or a client that cannot ask."""
    params = types.ShowMessageRequestParams(  # the question quotes names: no live link
        type=kind, message=plain_message(message, MESSAGE_LIMIT, keep_newlines=True),
        actions=[types.MessageActionItem(title=a) for a in actions],
    )
    try:
        answer = await ask_user(params)
    except Exception as exc:  # a client without showMessageRequest: no answer
        log.info("window/showMessageRequest failed: %s", exc)
        return None
    return answer.title if answer is not None and answer.title in actions else None


async def _remember(q: Questions, approve: Callable[[Any, str], None], *args: Any) -> None:
    """Keep an approval; when the file cannot be written the answer holds this time only."""
    try:
        await q.worker.run(approve, *args)
    except OSError as exc:
        log.warning("cannot record the approval: %s", exc)
        q.warn(
            f"codequorum: cannot remember the approval ({safe_text(exc)}); it is asked again "
            "next time"
        )


async def may_run_store(
    q: Questions, engine: Engine, approvals: Approvals | None = None
) -> str | None:
    """None when the versions of ``engine``'s store may run: the server made the store, or
    the user approved it now or before."""
    if not q.trusted:
        return UNTRUSTED
    store = await engine.run(engine.store)
    if store is None:
        return None
    approvals = approvals or Approvals.default()
    if await q.worker.run(approvals.store_approved, store.path, store.store_id):
        return None
    question = (
        f"codequorum: the version store {safe_text(store.path, 300)} was not made by "
        "codequorum on this machine (it may have come with the repository). Its versions "
        "are code nobody has reviewed. Run them in the sandbox? (asked once per store)"
    )
    if await ask(q.ask, question, NOT_NOW, RUN):
        await _remember(q, approvals.approve_store, store.path, store.store_id)
        return None
    return (
        f"the versions in {safe_text(store.path, 300)} were not run: the store did not come "
        f"from codequorum on this machine and running it was not approved (approvals are "
        f"kept in {approvals.path})"
    )


async def may_send_key(
    q: Questions,
    provider: ProviderSettings,
    confirmed: bool = False,
    approvals: Approvals | None = None,
) -> str | None:
    """None when regenerating may go on: no key would be sent, the endpoint and key
    variable are the defaults, the client confirmed them with the user (``confirmed``), or
    the user approved them now or before."""
    if not q.trusted:
        return UNTRUSTED
    key_env = provider.api_key_env
    if not key_env or not os.environ.get(key_env):
        return None
    if confirmed or is_default_endpoint(provider.base_url, key_env):
        return None
    approvals = approvals or Approvals.default()
    if await q.worker.run(approvals.endpoint_approved, provider.base_url, key_env):
        return None
    where = safe_text(provider.config().public_url, 300)
    variable = safe_text(key_env, 100)
    question = (
        f"codequorum: send the API key in ${variable} to {where}? The endpoint or the "
        "variable is not the default one, and workspace settings can choose them. "
        "(asked once per endpoint and variable)"
    )
    if await ask(q.ask, question, DONT_SEND, SEND):
        await _remember(q, approvals.approve_endpoint, provider.base_url, key_env)
        return None
    return (
        f"nothing was sent: the key in ${variable} goes to {where} only when you approve it "
        f"(approvals are kept in {approvals.path})"
    )


class ConsentedProposer:
    """Call inputs from the model behind :func:`may_send_key`, asked only when a function
    needs them: the first call (on the worker thread of the dynamic run) puts the question
    through the event loop and waits for the answer; when the key may not go, nothing is
    sent and the versions run on the other inputs. ``problem`` says what the user should
    know afterwards (a refusal, or an endpoint that failed)."""

    def __init__(
        self,
        questions: Questions,
        provider: ProviderSettings,
        asker: InputAsker,
        loop: asyncio.AbstractEventLoop,
        cancel: threading.Event,
    ) -> None:
        self.questions = questions
        self.provider = provider
        self.asker = asker
        self.loop = loop
        self.cancel = cancel
        self.refusal: str | None = None
        self._asked = False
        self._lock = threading.Lock()

    def __call__(
        self, source: str, entry: str, arity: int, *, language: InputLanguage | None = None
    ) -> tuple[list[tuple[Any, ...]], list[str]]:
        """Inputs for ``entry`` (a function of ``language``: Python when None)."""
        with self._lock:  # one question, however many sets ask at once
            if not self._asked:
                self._asked = True
                self.refusal = self._answer()
        if self.refusal is not None:
            return [], [f"no inputs asked from the model: {self.refusal}"]
        if language is None:
            return self.asker(source, entry, arity)
        return self.asker(source, entry, arity, language=language)

    def _answer(self) -> str | None:
        """:func:`may_send_key`'s answer; a refusal when the run stops while it waits."""
        asked = may_send_key(self.questions, self.provider)
        future = asyncio.run_coroutine_threadsafe(asked, self.loop)
        while True:
            try:
                return future.result(timeout=0.25)
            except concurrent.futures.TimeoutError:
                if self.cancel.is_set() or not self.loop.is_running():
                    future.cancel()
                    return "the run stopped before the question was answered"

    @property
    def problem(self) -> str | None:
        """Why the model's inputs are missing, or None."""
        if self.refusal is not None:
            return f"no inputs asked from the model: {self.refusal}"
        return self.asker.failure


def input_proposer(
    q: Questions, settings: Settings, cancel: threading.Event
) -> ConsentedProposer | None:
    """The proposer of a dynamic run (stopped by ``cancel``) when
    ``codequorum.dynamic.proposeInputs`` is on and the provider is an endpoint the server
    asks; None otherwise. Call from the event loop."""
    from codequorum.generate.proposed_inputs import InputAsker

    p = settings.provider
    if not settings.dynamic.propose_inputs or p.kind != "openai-compatible":
        return None
    asker = InputAsker(p.config())
    return ConsentedProposer(q, p, asker, asyncio.get_running_loop(), cancel)
