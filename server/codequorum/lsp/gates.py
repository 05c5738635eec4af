"""The questions asked before something runs or a key leaves: thin async checks the
commands call, on top of :mod:`consent`.

Each answers None when the command may go on, or the message saying why not (shown to the
user by the command). Questions go through ``window/showMessageRequest``; a client that
cannot answer counts as "no", and the message says how to approve by hand.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from codequorum.lsp.consent import Approvals, is_default_endpoint
from codequorum.safe_text import safe_text

if TYPE_CHECKING:
    from codequorum.lsp.engine import Engine
    from codequorum.lsp.server import CodequorumServer
    from codequorum.lsp.settings import ProviderSettings

log = logging.getLogger(__name__)

RUN = "Run in the sandbox"
SEND = "Send the key"
NO = "Don't"

UNTRUSTED = (
    "this workspace is not trusted: codequorum runs no versions and sends nothing to an "
    "endpoint in it"
)


async def ask(ls: CodequorumServer, message: str, yes: str) -> bool:
    """True when the user picks ``yes`` (False when dismissed or the client cannot ask)."""
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=message,
        actions=[types.MessageActionItem(title=yes), types.MessageActionItem(title=NO)],
    )
    try:
        answer = await ls.window_show_message_request_async(params)
    except Exception as exc:  # a client without showMessageRequest: no consent
        log.info("window/showMessageRequest failed: %s", exc)
        return False
    return answer is not None and answer.title == yes


async def _remember(ls: CodequorumServer, approve: Callable[[Any, str], None], *args: Any) -> None:
    """Keep an approval; when the file cannot be written the answer holds this time only."""
    try:
        await ls.engine.run(approve, *args)
    except OSError as exc:
        log.warning("cannot record the approval: %s", exc)
        ls.warn_once(
            f"codequorum: cannot remember the approval ({safe_text(exc)}); it is asked again "
            "next time"
        )


async def may_run_store(
    ls: CodequorumServer, engine: Engine | None = None, approvals: Approvals | None = None
) -> str | None:
    """None when the store's versions may run (``engine``'s store; default: the first
    folder's): the server made the store, or the user approved it now or before."""
    if not ls.trusted:
        return UNTRUSTED
    engine = engine or ls.engine
    store = await engine.run(engine.store)
    if store is None:
        return None
    approvals = approvals or Approvals.default()
    if await ls.engine.run(approvals.store_approved, store.path, store.store_id):
        return None
    question = (
        f"codequorum: the sample store {safe_text(store.path, 300)} was not made by "
        "codequorum on this machine (it may have come with the repository). Its versions "
        "are code nobody has reviewed. Run them in the sandbox? (asked once per store)"
    )
    if await ask(ls, question, RUN):
        await _remember(ls, approvals.approve_store, store.path, store.store_id)
        return None
    return (
        f"the versions in {safe_text(store.path, 300)} were not run: the store did not come "
        f"from codequorum on this machine and running it was not approved (approvals are "
        f"kept in {approvals.path})"
    )


async def may_send_key(
    ls: CodequorumServer,
    provider: ProviderSettings,
    confirmed: bool = False,
    approvals: Approvals | None = None,
) -> str | None:
    """None when regenerating may go on: no key would be sent, the endpoint and key
    variable are the defaults, the client confirmed them with the user (``confirmed``), or
    the user approved them now or before."""
    if not ls.trusted:
        return UNTRUSTED
    key_env = provider.api_key_env
    if not key_env or not os.environ.get(key_env):
        return None
    if confirmed or is_default_endpoint(provider.base_url, key_env):
        return None
    approvals = approvals or Approvals.default()
    if await ls.engine.run(approvals.endpoint_approved, provider.base_url, key_env):
        return None
    from codequorum.sources.openai_compat import ProviderConfig

    where = safe_text(ProviderConfig(base_url=provider.base_url).public_url, 300)
    variable = safe_text(key_env, 100)
    question = (
        f"codequorum: send the API key in ${variable} to {where}? The endpoint or the "
        "variable is not the default one, and workspace settings can choose them. "
        "(asked once per endpoint and variable)"
    )
    if await ask(ls, question, SEND):
        await _remember(ls, approvals.approve_endpoint, provider.base_url, key_env)
        return None
    return (
        f"nothing was sent: the key in ${variable} goes to {where} only when you approve it "
        f"(approvals are kept in {approvals.path})"
    )
