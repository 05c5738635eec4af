"""The watch in the language server: a function that arrives in one edit is noticed from
``didChange``, in any editor, and more versions of it are asked for when the user wants.

The protocol hands every change to :meth:`Watch.changed`: its edits (offsets in the text
before each), the texts before them and the text after. The rules of
:mod:`codequorum.pipeline.watch.arrivals` say which functions the change wrote, read on one
worker thread (:class:`~codequorum.pipeline.watch.document.DocumentWatch`: only around what
changed, within a budget per document), in the order the changes came, so the event loop
never parses; an arrival an edit touched while it was read is dropped. A document's
arrivals wait together until none came for :data:`DEBOUNCE` seconds (a burst is one offer),
each dropped as soon as an edit touches it. A document longer than :data:`MAX_WATCHED_CHARS`
is not watched (one log line says so). Then, with ``watch`` = ``ask``, one one-click offer
naming them (``window/showMessageRequest``, the safe answer first), prepared on the worker
(the store, the approvals, its text) and sent when no request of the client's is being
answered; "always" and "never" are kept per workspace folder in the user's approvals file.
With ``auto`` (or "always") no offer. Sampling (one per function) stores the arrived text
as a version of origin ``assistant`` and asks the configured provider for
``provider.versions`` more, under a cancellable progress that an edit of the function also
stops; with ``provider.kind`` = ``client`` the editor is asked (``codequorum/relay``, when
it says it can). Then the versions run as any that arrive (:mod:`codequorum.lsp.autorun`).

Never in an untrusted workspace, never beyond ``watchMaxPerHour`` samplings an hour, and
the key goes to an endpoint only as ``regenerate`` sends it (:func:`may_send_key`). A
change without a range (a client that sends whole documents) is never an arrival. The
VS Code extension adds what only VS Code knows: that a change was an undo or a redo
(``codequorum/editReason``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from codequorum.core.model import Version
from codequorum.core.safe_text import safe_text
from codequorum.lsp.gates import AskUser, Questions, choose, may_send_key
from codequorum.lsp.progress import WorkProgress
from codequorum.options.approvals import Approvals
from codequorum.pipeline.watch.arrivals import (
    KEYS,
    Arrival,
    removes_lines,
    worth_parsing,
)
from codequorum.pipeline.watch.budget import HourlyBudget
from codequorum.pipeline.watch.document import DocumentWatch
from codequorum.pipeline.watch.edits import Edit, Region, shift, touches
from codequorum.pipeline.watch.index import PIECE_PAUSE, Work, pause

if TYPE_CHECKING:
    from codequorum.lsp.documents import Snapshot
    from codequorum.lsp.engine import Engine
    from codequorum.lsp.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a document's arrivals wait after the last of them came, untouched, before they
#: are offered (or sampled) together: a burst of them (an agent writing functions one by
#: one) is one offer once it settles, never a question per function while the editor types.
DEBOUNCE = 1.0
#: Seconds at most between a document's first arrival and their offer, however long the
#: burst lasts.
MAX_HOLD = 10.0
#: Seconds at most an offer waits, before it is sent, while a request of the client's is
#: being answered; and how often it looks again.
OFFER_YIELD = 5.0
OFFER_STEP = 0.02
#: The functions an offer of several names (the others are counted).
NAMES_SHOWN = 8
#: Documents longer than this (characters) are not watched.
MAX_WATCHED_CHARS = 1_000_000
#: Characters of text the changes waiting for the worker may hold (each holds the text after
#: it); past that a change is only noted (read with the next one read), so a flood of
#: changes holds no more than this.
MAX_QUEUED_CHARS = 64_000_000
#: The offer's answers, the safe one first.
NOT_NOW = "Not now"
CHECK = "Check it"
ALWAYS = "Always in this workspace"
NEVER = "Never in this workspace"
ACTIONS = (NOT_NOW, CHECK, ALWAYS, NEVER)
#: What the editor may say a change was that makes it no arrival.
REPLAYS = frozenset({"undo", "redo"})
#: Seconds the watch's worker waits at most, before it reads a change (and between the
#: pieces of an opening document), while a request of the client's is being answered; and
#: how often it looks again.
YIELD_SECONDS = 0.25
YIELD_STEP = 0.002
#: Seconds since the client's last message within which it counts as busy: a whole read
#: then rests as long as each of its pieces took (:meth:`Watch._between_pieces`).
BUSY_SECONDS = 0.5
#: Seconds the worker lets pass before it reads a change (:meth:`Watch._before_reading`).
SETTLE = 0.03
#: The editor's reasons kept per document, and the documents that keep them.
REASONS_KEPT = 64
REASON_DOCUMENTS = 256
#: The notifications of the watch: the editor's reason for a change, and the relay of a
#: sampling to an editor that writes the versions itself.
EDIT_REASON = "codequorum/editReason"
RELAY = "codequorum/relay"


@dataclass
class Watched:
    """One arrival on its way: where it is now (``region``, characters of the current
    text), whether an edit touched it, and its sampling's progress once it samples."""

    uri: str
    arrival: Arrival
    language: str
    version: int | None
    region: Region
    edited: bool = False
    progress: WorkProgress | None = None
    task: asyncio.Future[None] | None = None

    @property
    def name(self) -> str:
        """The function's qualified name, safe to show."""
        return safe_text(self.arrival.qualified_name, 200)

    def stop(self) -> None:
        """The user edited it: it is left out of its offer (an answer that comes later
        samples it not), a sampling stops asking and keeps what came."""
        self.edited = True
        if self.progress is not None:
            self.progress.cancel()
        elif self.task is not None:
            self.task.cancel()


@dataclass
class Burst:
    """A document's arrivals on their way to one offer: when the first and the last came
    (``time.monotonic``), and the task that offers them once the burst settles."""

    first: float
    last: float
    arrivals: list[Watched] = field(default_factory=list)
    task: asyncio.Future[None] | None = None

    def due(self) -> float:
        """When the offer is due: :data:`DEBOUNCE` after the last arrival, :data:`MAX_HOLD`
        after the first at the latest."""
        return min(self.last + DEBOUNCE, self.first + MAX_HOLD)


@dataclass(frozen=True)
class Prepared:
    """What an offer needs, read on the watch's worker: the arrivals not stored already
    (a version the user put in place is no arrival), the folder's kept choice, and the
    question to ask (None when none is asked)."""

    fresh: list[Watched]
    choice: str | None
    question: str | None


def _followed(region: Region | None, edits: Sequence[Edit | None]) -> Region | None:
    """``region`` after ``edits``; None when one of them touches it (or has no range)."""
    for edit in edits:
        if region is None or edit is None or touches(region, edit):
            return None
        region = shift(region, edit)
    return region


def _said(uri: str, what: str, work: Work, before: Work, level: int = logging.INFO) -> None:
    """The log line of what reading ``what`` of ``uri`` parsed, when it parsed anything:
    whole reads, windows, characters, shape keys computed (counted since ``before``)."""
    if work.chars == before.chars:
        return
    log.log(level, "the watch read %s of %s: %d whole, %d windows, %d characters, %d keys",
            what, uri, work.full_builds - before.full_builds, work.windows - before.windows,
            work.chars - before.chars, work.keyed - before.keyed)


def offer_text(arrivals: Sequence[Arrival], n: int, source: str, allowed: int | None = None
               ) -> str:
    """The offer for ``arrivals`` (one or several, of one document): ``n`` more versions of
    each from ``source``; ``allowed`` says how many the hour's budget still allows when that
    is fewer than them. Safe to show."""
    versions = f"{n} more version{'s' if n != 1 else ''}"
    if len(arrivals) == 1:
        [arrival] = arrivals
        name = safe_text(arrival.qualified_name, 200)
        return (f"codequorum: '{name}' arrived in one edit ({arrival.lines} lines). Ask "
                f"{source} for {versions} to check it?")
    named = [f"'{safe_text(a.qualified_name, 100)}' ({a.lines} lines)"
             for a in arrivals[:NAMES_SHOWN]]
    rest = len(arrivals) - len(named)
    listed = (", ".join(named[:-1]) + " and " + named[-1] if rest == 0
              else ", ".join(named) + f" and {rest} more")
    budget = ("" if allowed is None or allowed >= len(arrivals)
              else f" (this hour allows {allowed} of them)")
    return (f"codequorum: {len(arrivals)} functions arrived, each in one edit: {listed}. Ask "
            f"{source} for {versions} of each to check them{budget}?")


def provider_words(kind: str, model: str, public_url: str) -> str:
    """Who is asked, in the offer's words."""
    if kind == "client":
        return "the editor's language model"
    return f"{safe_text(model, 100)} at {safe_text(public_url, 200)}"


@dataclass(frozen=True)
class WatchClient:
    """What the watch uses of the client, asked each time it is used (its capabilities
    arrive after the watch is made): whether it is busy, the ways to tell and ask the
    user, its progress bars and codequorum's own notifications."""

    #: Whether a request of the client's is being answered. Any thread.
    answering: Callable[[], bool]
    #: Whether the client sent nothing for so many seconds. Any thread.
    quiet: Callable[[float], bool]
    #: A message to the user, made safe, from any thread.
    show: Callable[[types.MessageType, str], None]
    warn_once: Callable[[str], None]
    ask: AskUser
    capabilities: Callable[[], types.ClientCapabilities]
    #: A progress bar of this title.
    new_progress: Callable[[str], WorkProgress]
    notify: Callable[[str, Any], None]


@dataclass(frozen=True)
class WatchFolders:
    """What the watch uses of the workspace folders, asked each time it is used (folders
    and trust change): a document's settings, engine, store name and snapshot, its
    features drawn again, the first folder's worker thread, and the run of versions that
    arrive (``run_arrived(uri, qualified_name, language)``)."""

    trusted: Callable[[], bool]
    settings_for: Callable[[str], Settings]
    engine_for: Callable[[str], Engine]
    file_key: Callable[[str], str]
    snapshot: Callable[[str], Snapshot | None]
    refresh: Callable[[str], None]
    worker: Engine
    run_arrived: Callable[[str, str, str], Awaitable[None]]


@dataclass
class Watch:
    """The server's watch: what each document had, the arrivals on their way, the hour's
    budget and the editor's reasons for changes."""

    client: WatchClient
    folders: WatchFolders
    budget: HourlyBudget = field(default_factory=HourlyBudget)
    _documents: dict[str, DocumentWatch] = field(default_factory=dict)
    _watched: dict[tuple[str, str], Watched] = field(default_factory=dict)
    _reasons: dict[str, OrderedDict[int, str]] = field(default_factory=dict)
    _choices: dict[str, str] = field(default_factory=dict)
    #: Per document, the changes since the oldest one the worker is reading (their edits,
    #: None for a change without a range), by their number.
    _reading: dict[str, list[tuple[int, Sequence[Edit | None]]]] = field(default_factory=dict)
    _seq: int = 0
    _queued: dict[str, int] = field(default_factory=dict)
    _waiting_chars: int = 0
    _pool: ThreadPoolExecutor | None = None
    _left_alone: set[str] = field(default_factory=set)
    _flooded: set[str] = field(default_factory=set)
    #: Per document, its arrivals waiting for their offer.
    _bursts: dict[str, Burst] = field(default_factory=dict)
    #: When the worker last went back to reading (``time.monotonic``).
    _resumed: float = 0.0

    # ------------------------------------------------------------------ changes

    def opened(self, uri: str, language: str | None, text: str) -> None:
        """A document opened: its functions are read on the worker, so its first change is
        read as cheaply as the others."""
        try:
            if language is None or not self._watching(uri) or self._too_long(uri, text):
                return
            document = self._documents.setdefault(uri, self._document())
            self._worker().submit(self._read_opened, uri, document, language, text,
                                  self._before_reading)
        except Exception:  # the server goes on without the watch of this document
            log.exception("the watch could not read %s", uri)

    def changed(self, uri: str, version: int | None, language: str | None,
                befores: Sequence[str], edits: Sequence[Edit | None], after: str) -> None:
        """One ``didChange``: follow (or stop) the arrivals on their way, and hand the change
        to the worker, which reads what it wrote (:meth:`_arrived` takes them, in order).
        ``edits[i]`` applied to ``befores[i]``; None is a change without a range. Never
        raises."""
        try:
            self._follow(uri, edits)
            self._seq += 1
            reading = self._reading.get(uri)
            if reading is not None:
                reading.append((self._seq, edits))
            if language is None or not self._watching(uri) or self._too_long(uri, after):
                return
            if any(e is None for e in edits):
                return
            edited = [e for e in edits if e is not None]
            document = self._documents.setdefault(uri, self._document())
            if not self._worth_reading(uri, befores, edited):
                self._worker().submit(document.note, edited)
                return
            if reading is None:
                self._reading[uri] = [(self._seq, edits)]
            self._queued[uri] = self._queued.get(uri, 0) + 1
            self._waiting_chars += len(after)
            loop = asyncio.get_running_loop()
            job = self._worker().submit(self._read_change, uri, document, language, befores,
                                        edited, after, self._before_reading)
            arrived = functools.partial(self._arrived, uri, version, language, document,
                                        self._seq, len(after))
            job.add_done_callback(lambda done: loop.call_soon_threadsafe(arrived, done))
        except Exception:  # one bad change must not stop the document's updates
            log.exception("the watch could not read a change of %s", uri)

    def _document(self) -> DocumentWatch:
        return DocumentWatch(between=self._between_pieces)

    def _after_requests(self) -> None:
        """On the worker: wait (at most :data:`YIELD_SECONDS`) while a request of the
        client's is being answered: the watch holds the interpreter while it parses, and a
        hover sent with a change is answered first."""
        waited = 0.0
        while waited < YIELD_SECONDS and self.client.answering():
            time.sleep(YIELD_STEP)
            waited += YIELD_STEP

    def _before_reading(self) -> None:
        """On the worker, before a change is read: :data:`SETTLE` seconds, so that a request
        the client sent with the change is read first (a function is offered a second after
        it arrived, so its change can wait), then the requests being answered go first."""
        time.sleep(SETTLE)
        self._after_requests()
        self._resumed = time.monotonic()

    def _between_pieces(self) -> None:
        """On the worker, between the pieces of a whole read: a pause, as long as the piece
        took while the client is busy (then a whole read takes half of the interpreter at
        most), then the requests being answered go first."""
        worked = min(time.monotonic() - self._resumed, YIELD_SECONDS)
        pause()
        if worked > PIECE_PAUSE and not self.client.quiet(BUSY_SECONDS):
            time.sleep(worked - PIECE_PAUSE)
        self._after_requests()
        self._resumed = time.monotonic()

    def _worth_reading(self, uri: str, befores: Sequence[str], edits: Sequence[Edit]) -> bool:
        """Whether the worker needs the texts of this change: it may have written a function
        or taken one away, and the changes waiting hold less than :data:`MAX_QUEUED_CHARS`."""
        if not worth_parsing(edits) and not any(
                removes_lines(e, b) for e, b in zip(edits, befores, strict=True)):
            return False
        if self._waiting_chars < MAX_QUEUED_CHARS:
            return True
        if uri not in self._flooded:
            self._flooded.add(uri)
            log.info("the watch rests on %s: the changes waiting to be read hold more than %d "
                     "characters; the next ones are read together", uri, MAX_QUEUED_CHARS)
        return False

    def _worker(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="codequorum-watch")
        return self._pool

    def _too_long(self, uri: str, text: str) -> bool:
        if len(text) <= MAX_WATCHED_CHARS:
            return False
        if uri not in self._left_alone:
            self._left_alone.add(uri)
            log.info("the watch leaves %s alone: %d characters, more than %d", uri, len(text),
                     MAX_WATCHED_CHARS)
        return True

    @staticmethod
    def _read_opened(uri: str, document: DocumentWatch, language: str, text: str,
                     first: Callable[[], None]) -> None:
        """On the worker: index an opened document (``first`` waits for the requests being
        answered: a hover sent as the document opens goes first)."""
        try:
            first()
            document.opened(language, text)
            _said(uri, "an opening", document.work, Work())
        except Exception:
            log.exception("the watch could not read %s", uri)

    @staticmethod
    def _read_change(uri: str, document: DocumentWatch, language: str, befores: Sequence[str],
                     edits: Sequence[Edit], after: str,
                     first: Callable[[], None]) -> list[Arrival]:
        """On the worker: the functions one change wrote (``first`` waits for the requests
        being answered)."""
        first()
        before = Work()
        before.add(document.work)
        rested = document.rested
        found = document.arrivals(language, befores, edits, after)
        # a change that may write a function is said; a deleted line (read for what it
        # took away) only in a debug log
        _said(uri, "a change", document.work, before,
              logging.INFO if worth_parsing(edits) else logging.DEBUG)
        if document.rested > rested and document.rested == 1:
            log.info("the watch rests on %s: its changes come faster than it may read them; "
                     "they are read together when it may", uri)
        return found

    def _arrived(self, uri: str, version: int | None, language: str, document: DocumentWatch,
                 seq: int, held: int, job: Future[list[Arrival]]) -> None:
        """On the loop: take what the worker found in change ``seq`` (which held ``held``
        characters), followed through the changes that came since (one that touched an
        arrival drops it)."""
        self._waiting_chars -= held
        if self._documents.get(uri) is not document:  # closed since
            return
        self._queued[uri] = self._queued.get(uri, 1) - 1
        log_of = self._reading.get(uri, [])
        later = [edits for s, edits in log_of if s > seq]
        if later and self._queued[uri] > 0:
            self._reading[uri] = [(s, edits) for s, edits in log_of if s > seq]
        else:  # nothing more waits: no change to follow arrivals through later
            self._reading.pop(uri, None)
        if job.cancelled():
            return
        if job.exception() is not None:
            log.error("the watch could not read a change of %s: %s", uri, job.exception())
            return
        found: list[tuple[Arrival, Region]] = []
        for arrival in job.result():
            region: Region | None = (arrival.start, arrival.end)
            for edits in later:
                region = _followed(region, edits)
            if region is not None:
                found.append((arrival, region))
        if found and self._reason(uri, version) not in REPLAYS:
            self._take(uri, version, language, found)

    def _follow(self, uri: str, edits: Sequence[Edit | None]) -> None:
        for (where, _), watched in list(self._watched.items()):
            if where != uri or watched.edited:
                continue
            region = _followed(watched.region, edits)
            if region is None:
                watched.stop()
            else:
                watched.region = region

    def _take(self, uri: str, version: int | None, language: str,
              found: Sequence[tuple[Arrival, Region]]) -> None:
        """Follow each new arrival; the document's arrivals are offered together once no
        other came for :data:`DEBOUNCE` seconds (:meth:`_offer_when_settled`)."""
        now = time.monotonic()
        for arrival, region in found:
            key = (uri, arrival.qualified_name)
            if key in self._watched:
                continue
            watched = Watched(uri, arrival, language, version, region)
            log.info("%s arrived in one edit of %s", arrival.qualified_name, uri)
            self._watched[key] = watched
            burst = self._bursts.get(uri)
            if burst is None:
                burst = self._bursts[uri] = Burst(now, now)
                burst.task = asyncio.ensure_future(self._offer_when_settled(uri, burst))
                burst.task.add_done_callback(functools.partial(self._offered, burst))
            burst.last = now
            burst.arrivals.append(watched)

    def _offered(self, burst: Burst, task: asyncio.Future[None]) -> None:
        """A burst's offer is over: the arrivals not sampling are no longer on their way."""
        for watched in burst.arrivals:
            key = (watched.uri, watched.arrival.qualified_name)
            if watched.task is None and self._watched.get(key) is watched:
                del self._watched[key]
        exc = None if task.cancelled() else task.exception()
        if exc is not None:
            names = ", ".join(f"'{w.name}'" for w in burst.arrivals[:NAMES_SHOWN])
            log.error("the watch's offer of %s failed: %s", names, exc)
            self.client.show(types.MessageType.Error,
                             f"codequorum: the offer to check {names} failed: {safe_text(exc)}")

    def _done(self, key: tuple[str, str], watched: Watched, task: asyncio.Future[None]) -> None:
        if self._watched.get(key) is watched:
            del self._watched[key]
        exc = None if task.cancelled() else task.exception()
        if exc is None:
            return
        log.error("the watch of %s failed: %s", key[1], exc)
        if not getattr(exc, "shown", False):  # a failed sampling was already shown
            self.client.show(types.MessageType.Error,
                             f"codequorum: checking '{watched.name}' failed: {safe_text(exc)}")

    def shutdown(self) -> None:
        """Stop every arrival on its way and every sampling, and the worker."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        for burst in list(self._bursts.values()):
            if burst.task is not None:
                burst.task.cancel()
        for watched in list(self._watched.values()):
            watched.stop()
            if watched.task is not None:
                watched.task.cancel()

    def closed(self, uri: str) -> None:
        """Forget a closed document; its arrivals on their way stop."""
        for (where, _), watched in list(self._watched.items()):
            if where == uri and watched.progress is None:
                watched.stop()
        burst = self._bursts.pop(uri, None)
        if burst is not None and burst.task is not None:
            burst.task.cancel()
        self._documents.pop(uri, None)
        self._reasons.pop(uri, None)
        self._reading.pop(uri, None)
        self._queued.pop(uri, None)
        self._left_alone.discard(uri)
        self._flooded.discard(uri)

    def reason(self, uri: str, version: int, reason: str) -> None:
        """The editor says what change ``version`` of ``uri`` was (``undo``, ``redo``): an
        arrival of a replayed change is no arrival."""
        reasons = self._reasons.pop(uri, None) or OrderedDict()
        self._reasons[uri] = reasons  # the most recent document last
        reasons[version] = reason
        while len(reasons) > REASONS_KEPT:
            reasons.popitem(last=False)
        while len(self._reasons) > REASON_DOCUMENTS:  # URIs are the client's word: bounded
            del self._reasons[next(iter(self._reasons))]
        if reason in REPLAYS:
            for (where, _), watched in list(self._watched.items()):
                if where == uri and watched.version == version and watched.progress is None:
                    watched.stop()

    def _reason(self, uri: str, version: int | None) -> str | None:
        reasons = self._reasons.get(uri)
        return None if version is None or reasons is None else reasons.get(version)

    def _watching(self, uri: str) -> bool:
        watch = self.folders.settings_for(uri).watch
        return watch.mode != "off" and watch.max_per_hour > 0 and self.folders.trusted()

    # ------------------------------------------------------------------ the offer

    async def _offer_when_settled(self, uri: str, burst: Burst) -> None:
        """Wait until the document's burst of arrivals settles and no request of the
        client's is being answered, then offer what arrived (later arrivals start a burst
        of their own)."""
        while (wait := burst.due() - time.monotonic()) > 0:
            await asyncio.sleep(wait)
        if self._bursts.get(uri) is burst:
            del self._bursts[uri]
        await self._requests_answered()
        await self._offer(uri, burst.arrivals)

    async def _requests_answered(self) -> None:
        """Wait (:data:`OFFER_YIELD` seconds at most) while a request of the client's is
        being answered: an offer, and the answer it brings back, never go between a request
        and its answer."""
        waited = 0.0
        while waited < OFFER_YIELD and self.client.answering():
            await asyncio.sleep(OFFER_STEP)
            waited += OFFER_STEP

    def _live(self, arrivals: Sequence[Watched]) -> list[Watched]:
        """The arrivals no edit touched and no undo or redo replayed."""
        return [w for w in arrivals
                if not w.edited and self._reason(w.uri, w.version) not in REPLAYS]

    async def _offer(self, uri: str, arrivals: Sequence[Watched]) -> None:
        """Offer a document's arrivals in one question (or sample them, with ``auto`` or
        "always"), prepared on the watch's worker, then sample those the user chose, one
        sampling each, within the hour's budget."""
        live = self._live(arrivals)
        if not live or not self._watching(uri):
            return
        settings, engine = self.folders.settings_for(uri), self.folders.engine_for(uri)
        limit = settings.watch.max_per_hour
        allowed = self.budget.left(limit)
        prepared = await self._on_worker(self._prepare, live, engine,
                                         self.folders.file_key(uri), settings, allowed)
        if prepared.choice == "off" or not prepared.fresh:
            return
        if self.budget.left(limit) == 0:
            self._spent(limit)
            return
        chosen = prepared.fresh
        if prepared.question is not None:
            await self._requests_answered()
            answer = await choose(self.client.ask, prepared.question, ACTIONS,
                                  types.MessageType.Info)
            if answer in (ALWAYS, NEVER):
                await self._keep_choice(engine.root, "auto" if answer == ALWAYS else "off")
            if answer not in (CHECK, ALWAYS):
                return
            chosen = self._unchanged(chosen)
        for watched in chosen:
            if not self.budget.spend(limit):
                self._spent(limit)
                return
            self._start_sampling(watched)

    def _unchanged(self, chosen: Sequence[Watched]) -> list[Watched]:
        """The chosen arrivals no edit touched while the offer was asked; the user hears of
        the others."""
        edited = [w for w in chosen if w.edited]
        if edited:
            names = ", ".join(f"'{w.name}'" for w in edited[:NAMES_SHOWN])
            more = f" and {len(edited) - NAMES_SHOWN} more" if len(edited) > NAMES_SHOWN else ""
            self.client.show(types.MessageType.Info, f"codequorum: {names}{more} changed since "
                             f"{'it' if len(edited) == 1 else 'they'} arrived; nothing was asked")
        return [w for w in chosen if not w.edited]

    def _prepare(self, arrivals: Sequence[Watched], engine: Engine, file_key: str,
                 settings: Settings, allowed: int) -> Prepared:
        """On the worker, after the requests being answered: which arrivals are not stored
        versions already (the store may hold many long versions), the folder's kept choice
        (the approvals file) and the offer's text."""
        self._after_requests()
        fresh = [w for w in arrivals if not self._stored(engine, file_key, w)]
        choice = self._choice(engine.root)
        question = None
        if fresh and settings.watch.mode == "ask" and choice not in ("auto", "off"):
            p = settings.provider
            source = provider_words(p.kind, p.model, p.config().public_url)
            question = offer_text([w.arrival for w in fresh], p.versions, source, allowed)
        return Prepared(fresh, choice, question)

    @staticmethod
    def _stored(engine: Engine, file_key: str, watched: Watched) -> bool:
        """On the worker: whether the arrived text is a stored version (one the user put in
        place)."""
        arrival = watched.arrival
        return any(KEYS.key(s.code, watched.language) == arrival.key
                   for s in engine.versions_sync(file_key, arrival.qualified_name))

    def _choice(self, root: str | None) -> str | None:
        """On the worker: the choice kept for the folder ("auto", "off" or none)."""
        if root is None:
            return self._choices.get("")
        if root in self._choices:
            return self._choices[root]
        return Approvals.default().watch_choice(root)

    def _start_sampling(self, watched: Watched) -> None:
        key = (watched.uri, watched.arrival.qualified_name)
        task = asyncio.ensure_future(self._sample(watched))
        watched.task = task
        task.add_done_callback(functools.partial(self._done, key, watched))

    async def _on_worker(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the watch's worker, after the changes waiting there: the
        engine's threads stay free for the requests an offer would otherwise queue behind."""
        return await asyncio.get_running_loop().run_in_executor(self._worker(), fn, *args)

    async def _keep_choice(self, root: str | None, choice: str) -> None:
        self._choices[root or ""] = choice
        if root is None:
            return
        try:
            await self.folders.worker.run(Approvals.default().remember_watch, root, choice)
        except OSError as exc:
            self.client.warn_once(f"codequorum: cannot remember the answer ({safe_text(exc)}); "
                                  "it holds until the editor closes")

    def _spent(self, limit: int) -> None:
        self.client.warn_once(
            f"codequorum: the watch asked for versions {limit} time{'s' if limit != 1 else ''} "
            "in the last hour (codequorum.watchMaxPerHour); functions that arrive now are "
            "left alone until the hour allows more")

    # ------------------------------------------------------------------ sampling

    async def _sample(self, watched: Watched) -> None:
        """Store the arrived text (origin ``assistant``) and ask for more versions."""
        from codequorum.lsp.commands import regeneration as cmds

        client, folders, uri, arrival = self.client, self.folders, watched.uri, watched.arrival
        snapshot = folders.snapshot(uri)
        entry = (None if snapshot is None
                 else await folders.worker.run(snapshot.function_named, arrival.qualified_name))
        if snapshot is None or entry is None or watched.edited:
            return
        engine, file_key = folders.engine_for(uri), folders.file_key(uri)
        assistant = Version(code=arrival.code, origin="assistant")
        await engine.run(engine.add_sync, file_key, watched.language, arrival.qualified_name,
                         [assistant])
        folders.refresh(uri)
        settings = folders.settings_for(uri)
        n = settings.provider.versions
        request = await cmds.regeneration_request(folders.worker, folders.file_key(uri), uri,
                                                  snapshot, entry, n)
        if settings.provider.kind == "client":
            self._relay(watched, request)
            return
        refusal = await may_send_key(self._questions(), settings.provider)
        if refusal is not None:
            client.show(types.MessageType.Warning, f"codequorum: {refusal}")
            return
        watched.progress = client.new_progress(
            f"codequorum: checking {safe_text(entry.name, 100)}")
        result, stored = await cmds.regenerate_storing(
            folders.engine_for(uri), client.show, functools.partial(folders.refresh, uri),
            request, settings.provider.config(n), watched.progress)
        folders.refresh(uri)
        if watched.edited:
            client.show(types.MessageType.Info, f"codequorum: stopped asking for versions of "
                        f"'{watched.name}': you edited it ({stored} stored)")
            return
        client.show(*cmds.regeneration_message(result, watched.name))
        if result.ok:
            await folders.run_arrived(uri, arrival.qualified_name, watched.language)

    def _questions(self) -> Questions:
        """What the key's question uses: the workspace's trust now, the way to ask, the
        warnings and the first folder's worker."""
        return Questions(self.folders.trusted(), self.client.ask, self.client.warn_once,
                         self.folders.worker)

    def relays(self) -> bool:
        """True when the client said it writes versions on :data:`RELAY`
        (``experimental.codequorumRelay``)."""
        experimental: Any = self.client.capabilities().experimental
        return isinstance(experimental, dict) and experimental.get("codequorumRelay") is True

    def _relay(self, watched: Watched, request: Any) -> None:
        """Hand the prompt to an editor that writes the versions itself."""
        if not self.relays():
            self.client.show(types.MessageType.Warning, f"codequorum: '{watched.name}' was kept "
                             "as a version, but provider.kind is 'client' and this editor does "
                             "not write versions; set provider.kind to 'openai-compatible' to "
                             "get more")
            return
        params = {
            "uri": watched.uri,
            "qualifiedName": watched.arrival.qualified_name,
            "n": request.n,
            "messages": [{"role": m["role"], "content": m["content"]} for m in request.messages],
        }
        self.client.notify(RELAY, params)
