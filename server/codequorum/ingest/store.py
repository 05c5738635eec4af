"""The version store: every version of every function, kept in one SQLite file.

Versions are keyed by the file they belong to (a workspace-relative path or a URI, exactly
as the caller gives it) and the function's qualified name (``Class.method``). Identical
code for the same function is one row (a content hash finds it) that counts its ``copies``:
every generation is a version, so six identical answers are six versions (reading expands
a row into its copies). The store is
synchronous and thread-safe (one connection guarded by a lock) because the language
server calls it from worker threads; WAL mode lets the CLI and the server share the file.

Each store has an identity: a random ``store_id`` in its ``meta`` table, made when the store
is made (or when a store from before identities is first opened). :attr:`VersionStore.created`
says this very open made the file, so the program that opened it knows it filled the store
itself; a store that arrived in some other way (committed to a repository, copied) has an id
its user never approved, which is what the language server asks about before it runs the
store's versions.

A repository may carry the store's path, or a file (or a symlink) where the store should
be. codequorum therefore writes, moves or replaces only a file that is provably a store of
its own: an SQLite header with codequorum's ``application_id`` (or, for a store made before
it had one, schema version 1 or 2 and the ``samples`` table in the first page). Anything
else there (another program's database, an empty file, a FIFO, a credential file) is refused
with a message that names it; the path is reached through :func:`~codequorum.core.safe_paths.guard`,
so no symlink leads a write out of the workspace. A new store is built beside its place
and linked in only if nothing appeared there meanwhile. A store of codequorum's own that is
truncated or damaged is moved aside (``samples.sqlite3.corrupt-<timestamp>``) and a fresh one
is made, so a damaged file never stops the editor and is never deleted.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import logging
import os
import re
import secrets
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, cast, get_args

from codequorum.core.errors import UserError
from codequorum.core.limits import MAX_SET_BYTES, MAX_STORED_VERSIONS, MAX_VERSION_BYTES
from codequorum.core.model import Origin, Version
from codequorum.core.os_features import NONBLOCK, open_no_link
from codequorum.core.safe_paths import UnsafePath, file_kind, guard

log = logging.getLogger(__name__)

SCHEMA_VERSION = 4
"""1: one row per distinct code; 2: and ``copies``, how many times it was generated; 3: and
origin ``assistant``; 4: and ``runs``, the remembered results of sandboxed runs."""
#: Longest run record written or read, in characters.
MAX_RUN_CHARS = 2_000_000
#: How many runs of one function are remembered (the newest).
RUNS_PER_FUNCTION = 8
APPLICATION_ID = int.from_bytes(b"cqst", "big")
"""SQLite's ``application_id`` of a codequorum store (header offset 68)."""
SQLITE_MAGIC = b"SQLite format 3\x00"
#: Files SQLite keeps beside a database.
SIDE_FILES = ("-wal", "-shm", "-journal")
STORE_DIR = ".codequorum"
STORE_NAME = "samples.sqlite3"
#: Written into a new store folder: its content is the user's own, never committed.
GITIGNORE = "# Made by codequorum: this folder is per user; do not commit it.\n*\n"
ORIGINS: tuple[str, ...] = get_args(Origin)

_COLUMNS = (
    "id",
    "file",
    "language",
    "qualified_name",
    "code",
    "content_hash",
    "origin",
    "label",
    "provider",
    "model",
    "temperature",
    "seed",
    "prompt_hash",
    "created",
    "copies",
)

_TABLE = f"""
CREATE TABLE IF NOT EXISTS {{table}} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file TEXT NOT NULL,
    language TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    code TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    origin TEXT NOT NULL CHECK (origin IN ({", ".join(repr(o) for o in ORIGINS)})),
    label TEXT NOT NULL DEFAULT '',
    provider TEXT,
    model TEXT,
    temperature REAL,
    seed INTEGER,
    prompt_hash TEXT,
    created REAL NOT NULL,
    copies INTEGER NOT NULL DEFAULT 1 CHECK (copies >= 1),
    UNIQUE (file, qualified_name, content_hash)
);
"""
_RUNS = """
CREATE TABLE IF NOT EXISTS runs (
    file TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    key TEXT NOT NULL,
    versions TEXT NOT NULL,
    record TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (file, qualified_name, key)
);
"""
#: The columns of short texts (a label, a model's name, a hash) and how much of each is
#: read: a store that comes with a repository may hold gigabytes there.
_SHORT_TEXTS = frozenset({"language", "content_hash", "origin", "label", "provider", "model",
                          "prompt_hash"})
MAX_FIELD_CHARS = 4096
#: The functions of one file whose names are read, at most (longer names than
#: :data:`MAX_FIELD_CHARS` are none of a file's functions and are not read either).
MAX_FILE_FUNCTIONS = 10_000
_RUN_COLUMNS = ("file", "qualified_name", "key", "versions", "record", "created")
_SCHEMA = _TABLE.format(table="samples") + _RUNS + f"""
CREATE INDEX IF NOT EXISTS samples_by_function ON samples (file, qualified_name);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
PRAGMA user_version = {SCHEMA_VERSION};
PRAGMA application_id = {APPLICATION_ID};
"""


class StoreError(UserError):
    """The version store cannot be opened or written (disk full, permissions, a directory)."""


def _ignore_in_git(folder: Path) -> None:
    """Keep a new ``.codequorum`` folder out of git: the store is per user (versions are
    shared by importing them). An existing ``.gitignore`` is left as it is."""
    try:
        with (folder / ".gitignore").open("x", encoding="utf-8") as fh:
            fh.write(GITIGNORE)
    except OSError as exc:
        log.debug("no .gitignore in %s: %s", folder, exc)


def _make_folder(folder: Path) -> None:
    """Make the store's (real) folder when it is missing; a new ``.codequorum`` gets its
    ``.gitignore``."""
    if folder.is_dir():
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the store folder {folder}: {exc}") from exc
    if folder.name == STORE_DIR:
        _ignore_in_git(folder)


def _identify(path: Path) -> str | None:
    """None when nothing is at ``path``, "" when it is a store of codequorum's own, else
    what it is instead (a FIFO, an empty file, another program's database, ...). Reads the
    header without following a symlink and without blocking on a FIFO."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot read the version store {path}: {exc.strerror}") from None
    kind = _kind(info.st_mode)
    if kind:
        return kind
    if info.st_size == 0:
        return "an empty file"
    try:
        fd = open_no_link(path, os.O_RDONLY | NONBLOCK)
    except OSError as exc:
        raise StoreError(f"cannot read the version store {path}: {exc.strerror}") from None
    try:
        if _kind(os.fstat(fd).st_mode):
            return _kind(os.fstat(fd).st_mode)
        first = os.read(fd, 100)
        size = int.from_bytes(first[16:18], "big") if len(first) >= 18 else 0
        page = first + os.read(fd, max(0, (65536 if size == 1 else size) - len(first)))
    finally:
        os.close(fd)
    return _header_verdict(page)


def _kind(mode: int) -> str:
    """What a file that is not a regular file is ("" for a regular file)."""
    return "" if stat.S_ISREG(mode) else file_kind(mode)


def _header_verdict(page: bytes) -> str:
    """"" when the first page of a file is that of a codequorum store, else what it is."""
    if len(page) < 100 or not page.startswith(SQLITE_MAGIC):
        return "not an SQLite database"
    application = int.from_bytes(page[68:72], "big")
    schema = int.from_bytes(page[60:64], "big")
    if application == APPLICATION_ID:
        return ""
    legacy = (application == 0 and 1 <= schema <= SCHEMA_VERSION
              and b"CREATE TABLE samples" in page and b"content_hash" in page)
    if legacy:
        return ""
    return (f"an SQLite database of another program (application id {application:#x}, "
            f"user version {schema})")


def _check_side_files(path: Path, store_exists: bool) -> None:
    """SQLite's files beside the store (``-wal``, ``-shm``, ``-journal``) are written
    through: each must be a regular file, and none may be there without the store."""
    for suffix in SIDE_FILES:
        side = path.with_name(path.name + suffix)
        try:
            info = os.lstat(side)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StoreError(f"cannot read {side}: {exc.strerror}") from None
        kind = _kind(info.st_mode)
        if kind:
            raise StoreError(f"{side}: {kind} beside the version store; codequorum does not "
                             "write through it: remove it")
        if not store_exists:
            raise StoreError(f"{side}: left without its version store {path.name}; "
                             "codequorum does not take it over: remove it")


def _build(path: Path) -> Path:
    """A new, empty store made under a temporary name beside ``path``; returns that name."""
    for _ in range(100):
        partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
        try:
            fd = open_no_link(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        except OSError as exc:
            raise StoreError(f"cannot create the version store {path}: {exc.strerror}") from None
        os.close(fd)
        break
    else:
        raise StoreError(f"cannot create a temporary file beside {path}")
    try:
        conn = sqlite3.connect(str(partial), isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.executescript("BEGIN;" + _SCHEMA + "COMMIT;")
        finally:
            conn.close()
    except BaseException as exc:
        for name in (partial, *(partial.with_name(partial.name + s) for s in SIDE_FILES)):
            with contextlib.suppress(FileNotFoundError):
                name.unlink()
        if isinstance(exc, sqlite3.Error):
            raise StoreError(f"cannot create the version store {path}: {exc}") from exc
        raise
    return partial


def default_store_path(workspace: str | Path) -> Path:
    """Where a workspace keeps its versions: ``<workspace>/.codequorum/samples.sqlite3``."""
    return Path(workspace) / STORE_DIR / STORE_NAME


def content_hash(code: str) -> str:
    """Hash of the code with line endings and trailing whitespace normalised.

    Two versions that differ only in CRLF vs LF or trailing blanks are the same sample.
    """
    lines = code.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    canonical = "\n".join(line.rstrip() for line in lines).strip("\n")
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredVersion:
    """One row of the store: a version plus where and when it was recorded."""

    id: int
    file: str
    language: str
    qualified_name: str
    code: str
    content_hash: str
    origin: Origin
    label: str
    provider: str | None
    model: str | None
    temperature: float | None
    seed: int | None
    prompt_hash: str | None
    created: float

    def to_version(self) -> Version:
        """The plain :class:`Version` (what analysis consumes)."""
        return Version(
            code=self.code,
            origin=self.origin,
            label=self.label,
            provider=self.provider,
            model=self.model,
            temperature=self.temperature,
            seed=self.seed,
        )


class _SchemaMismatch(Exception):
    """The file is a codequorum store whose tables are not as this version wrote them."""


class _Newer(Exception):
    """The file is a store of a newer codequorum: left as it is."""


class _Foreign(Exception):
    """The file carries a codequorum header but objects no codequorum store has."""


@dataclass
class VersionStore:
    """A SQLite version store. Create with :meth:`open`; close with :meth:`close`.

    ``recovered_from`` is set when a damaged file was moved aside on open, and
    ``warnings`` holds a one-line message per such event, fit to show to the user.
    ``store_id`` is the store's random identity ("" when it could not be read or made);
    ``created`` is True when this open made the store (a new or a replaced file).
    """

    path: Path
    _conn: sqlite3.Connection
    store_id: str = ""
    created: bool = False
    recovered_from: Path | None = None
    warnings: list[str] = field(default_factory=list)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _closed: bool = False

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | Path, *, roots: Iterable[Path] = ()) -> VersionStore:
        """Open (or create) the store at ``path``, making parent directories; ``roots``: the
        workspaces no symlink on the way may lead out of.

        Only a store of codequorum's own is opened or written; anything else at the path
        raises :class:`StoreError` naming it. Such a store that is damaged is renamed to
        ``<name>.corrupt-<timestamp>`` and replaced by an empty store; the store's
        ``warnings`` and ``recovered_from`` say so. Raises :class:`StoreError` too when the
        location cannot hold a database at all (e.g. it is a directory, or not writable).
        """
        try:
            real = guard(path, roots)
        except UnsafePath as exc:
            raise StoreError(f"the version store {exc}") from None
        _make_folder(real.parent)
        found = _identify(real)
        _check_side_files(real, found is not None)
        if found is None:
            store = cls._create(real)
            if store is not None:
                return store
            found = _identify(real)  # another process made it meanwhile: ours, or refused
        if found:
            raise StoreError(f"{path}: {found}: not a codequorum version store, so codequorum "
                             "neither writes nor moves it; choose another store "
                             "(--store, codequorum.store.path) or move the file away")
        try:
            conn = _connect_checked(real)
            return cls(path=real, _conn=conn, store_id=_store_id(conn))
        except _Newer as exc:
            raise StoreError(f"the version store {real} {exc}; it is left as it is") from None
        except _Foreign as exc:
            raise StoreError(f"{path}: {exc}: not a codequorum version store, so codequorum "
                             "neither writes nor moves it") from None
        except (sqlite3.DatabaseError, _SchemaMismatch) as exc:
            if isinstance(exc, sqlite3.OperationalError) and not _is_corruption(exc):
                raise StoreError(f"cannot open the version store {real}: {exc}") from exc
            reason = str(exc) or type(exc).__name__
        aside = _move_aside(real)
        message = (
            f"the version store {real} was unreadable ({reason}); it was moved to "
            f"{aside.name} and a new, empty store was created"
        )
        log.warning(message)
        store = cls._create(real)
        if store is None:
            raise StoreError(f"{real} appeared while the damaged version store was being "
                             "replaced; nothing was written to it")
        store.recovered_from = aside
        store.warnings.append(message)
        return store

    @classmethod
    def _create(cls, path: Path) -> VersionStore | None:
        """A new store at ``path`` (a real path where nothing is): made beside it and
        linked into place only if the place is still free (None when something appeared
        there meanwhile, which is then judged like any file found there)."""
        partial = _build(path)
        try:
            try:
                os.link(partial, path, follow_symlinks=False)
            except FileExistsError:
                return None
            except OSError as exc:  # a file system without hard links
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV):
                    raise StoreError(f"cannot create the version store {path}: {exc}") from exc
                if os.path.lexists(path):
                    raise StoreError(f"{path} appeared while the version store was being "
                                     "made; nothing was written to it") from None
                os.rename(partial, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(partial)
        try:
            conn = _connect_checked(path)
        except (sqlite3.DatabaseError, _SchemaMismatch, _Newer, _Foreign) as exc:
            raise StoreError(f"cannot create a new version store at {path}: {exc}") from exc
        return cls(path=path, _conn=conn, store_id=_store_id(conn), created=True)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (a server shutting down closes its store while
        late readers may still ask)."""
        return self._closed

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __enter__(self) -> VersionStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    def add(
        self,
        file: str,
        language: str,
        qualified_name: str,
        versions: Sequence[Version],
        prompt_hash: str | None = None,
    ) -> list[int]:
        """Record versions of one function; returns one row id per input version, in order.

        A version whose code (modulo line endings and trailing blanks) is already stored for
        this function is one more copy of the existing row (whose id it gets): each
        generation counts.
        """
        now = time.time()
        ids: list[int] = []
        with self._transaction() as conn:
            for version in versions:
                if version.origin not in ORIGINS:
                    raise ValueError(f"unknown sample origin {version.origin!r}")
                digest = content_hash(version.code)
                cur = conn.execute(
                    "INSERT OR IGNORE INTO samples (file, language, qualified_name, code,"
                    " content_hash, origin, label, provider, model, temperature, seed,"
                    " prompt_hash, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        file,
                        language,
                        qualified_name,
                        version.code,
                        digest,
                        version.origin,
                        version.label,
                        version.provider,
                        version.model,
                        version.temperature,
                        version.seed,
                        prompt_hash,
                        now,
                    ),
                )
                if cur.rowcount == 1 and cur.lastrowid is not None:
                    ids.append(cur.lastrowid)
                else:
                    row = conn.execute(
                        "SELECT id FROM samples WHERE file = ? AND qualified_name = ?"
                        " AND content_hash = ?",
                        (file, qualified_name, digest),
                    ).fetchone()
                    if row is None:  # a constraint of a repository's making refused it
                        raise StoreError(f"the version store {self.path} refused the version "
                                         "(its table is not the one codequorum makes)")
                    conn.execute("UPDATE samples SET copies = copies + 1 WHERE id = ?", (row[0],))
                    ids.append(int(row[0]))
        return ids

    def rename_function(self, file: str, old: str, new: str) -> int:
        """Move the versions of ``old`` (and of its members ``old.*``) to ``new``.

        Called when a function or class is renamed in the editor. Where ``new`` already has
        the same code, the existing row is kept. Returns the number of rows renamed.
        """
        if old == new:
            return 0
        with self._transaction() as conn:
            moved = conn.execute(
                "UPDATE OR IGNORE samples SET qualified_name = ? WHERE file = ?"
                " AND qualified_name = ?",
                (new, file, old),
            ).rowcount
            prefix = old + "."
            moved += conn.execute(
                "UPDATE OR IGNORE samples SET qualified_name = ? || substr(qualified_name, ?)"
                " WHERE file = ? AND substr(qualified_name, 1, ?) = ?",
                (new + ".", len(prefix) + 1, file, len(prefix), prefix),
            ).rowcount
            # Rows left behind were duplicates of rows the target already had: their copies
            # join the target's.
            left = conn.execute(
                "SELECT qualified_name, content_hash, copies FROM samples WHERE file = ? AND"
                " (qualified_name = ? OR substr(qualified_name, 1, ?) = ?)",
                (file, old, len(prefix), prefix),
            ).fetchall()
            for name, digest, copies in left:
                target = new + str(name)[len(old):]
                _add_copies(conn, file, target, str(digest), int(copies))
            conn.execute(
                "DELETE FROM samples WHERE file = ? AND (qualified_name = ?"
                " OR substr(qualified_name, 1, ?) = ?)",
                (file, old, len(prefix), prefix),
            )
        return moved

    def move_file(self, old: str, new: str) -> int:
        """Move every version of file ``old`` to file ``new``; returns the rows moved."""
        if old == new:
            return 0
        with self._transaction() as conn:
            moved = conn.execute(
                "UPDATE OR IGNORE samples SET file = ? WHERE file = ?", (new, old)
            ).rowcount
            left = conn.execute(
                "SELECT qualified_name, content_hash, copies FROM samples WHERE file = ?", (old,)
            ).fetchall()
            for name, digest, copies in left:
                _add_copies(conn, new, str(name), str(digest), int(copies))
            conn.execute("DELETE FROM samples WHERE file = ?", (old,))
        return moved

    def clear(self, file: str, qualified_name: str | None = None) -> int:
        """Delete the versions of one function, or of the whole file; returns rows deleted."""
        with self._transaction() as conn:
            if qualified_name is None:
                conn.execute("DELETE FROM runs WHERE file = ?", (file,))
                cur = conn.execute("DELETE FROM samples WHERE file = ?", (file,))
            else:
                conn.execute("DELETE FROM runs WHERE file = ? AND qualified_name = ?",
                             (file, qualified_name))
                cur = conn.execute(
                    "DELETE FROM samples WHERE file = ? AND qualified_name = ?",
                    (file, qualified_name),
                )
            return cur.rowcount

    def delete(self, ids: Sequence[int]) -> int:
        """Delete versions by row id (e.g. one bad version the user dismissed): one copy per
        id given, the row with its last copy; returns the versions deleted."""
        deleted = 0
        with self._transaction() as conn:
            for i in ids:
                cur = conn.execute(
                    "UPDATE samples SET copies = copies - 1 WHERE id = ? AND copies > 1", (i,)
                )
                if cur.rowcount == 0:
                    cur = conn.execute("DELETE FROM samples WHERE id = ?", (i,))
                deleted += cur.rowcount
        return deleted

    # ------------------------------------------------------------------ runs

    def put_run(self, file: str, qualified_name: str, key: str, record: str,
                versions: str = "") -> bool:
        """Remember a run's record under ``key`` (the newest :data:`RUNS_PER_FUNCTION` of
        a function are kept); ``versions``: a hash of the versions' texts alone, which
        :meth:`has_runs` looks for before a caller builds the rest of the key. False when
        the record is too long to keep."""
        if len(record) > MAX_RUN_CHARS:
            return False
        with self._transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO runs (file, qualified_name, key, versions, record,"
                " created) VALUES (?, ?, ?, ?, ?, ?)",
                (file, qualified_name, key, versions, record, time.time()))
            conn.execute(
                "DELETE FROM runs WHERE file = ? AND qualified_name = ? AND key NOT IN"
                " (SELECT key FROM runs WHERE file = ? AND qualified_name = ?"
                " ORDER BY created DESC, rowid DESC LIMIT ?)",
                (file, qualified_name, file, qualified_name, RUNS_PER_FUNCTION))
        return True

    def run_record(self, file: str, qualified_name: str, key: str) -> str | None:
        """The record remembered under ``key`` (None when there is none, or it is longer
        than a record may be: a store may come with a repository; the caller validates
        what it reads)."""
        rows = self._query(
            "SELECT record FROM runs WHERE file = ? AND qualified_name = ? AND key = ?"
            " AND typeof(record) = 'text' AND length(record) <= ? LIMIT 1",
            (file, qualified_name, key, MAX_RUN_CHARS))
        return str(rows[0][0]) if rows else None

    def has_runs(self, file: str, qualified_name: str, versions: str | None = None) -> bool:
        """Whether any run of the function is remembered (of these ``versions`` when
        given: the hash :meth:`put_run` was given)."""
        if versions is None:
            return bool(self._query("SELECT 1 FROM runs WHERE file = ? AND qualified_name = ?"
                                    " LIMIT 1", (file, qualified_name)))
        return bool(self._query("SELECT 1 FROM runs WHERE file = ? AND qualified_name = ?"
                                " AND versions = ? LIMIT 1", (file, qualified_name, versions)))

    # ------------------------------------------------------------------ reading

    def versions_for(self, file: str, qualified_name: str) -> list[StoredVersion]:
        """The versions of one function, oldest first: a row generated k times is there k
        times (the same row, the same id).

        A store may come with the repository, so what is read is bounded
        (:mod:`codequorum.core.limits`): at most :data:`~codequorum.core.limits.MAX_STORED_VERSIONS`
        versions, copies counted, and rows only while their code stays within a few times
        :data:`~codequorum.core.limits.MAX_SET_BYTES`; a code longer than
        :data:`~codequorum.core.limits.MAX_VERSION_BYTES` is read only that far (it stays too
        long to score, and the analysis says so)."""
        where = "FROM samples WHERE file = ? AND qualified_name = ?"
        cap = MAX_VERSION_BYTES + 1
        sizes = self._query(f"SELECT id, min(length(code), ?), copies {where} ORDER BY id"
                            " LIMIT ?", (cap, file, qualified_name, MAX_STORED_VERSIONS))
        wanted: dict[int, int] = {}  # id -> copies
        budget, room = 2 * MAX_SET_BYTES, MAX_STORED_VERSIONS
        for row_id, size, copies in sizes:
            if room <= 0 or budget < 0:
                break
            wanted[int(row_id)] = min(_copies(copies), room)
            room -= wanted[int(row_id)]
            budget -= int(size or 0)
        if not wanted:
            return []
        columns = ", ".join(f"substr(code, 1, {cap}) AS code" if c == "code"
                            else f"substr({c}, 1, {MAX_FIELD_CHARS}) AS {c}" if c in _SHORT_TEXTS
                            else c for c in _COLUMNS)
        rows = self._query(
            f"SELECT {columns} {where} AND id IN ({', '.join('?' * len(wanted))}) ORDER BY id",
            (file, qualified_name, *wanted),
        )
        return [s for r in rows for s in [_row_to_version(r)] * wanted[int(r[0])]]

    def count(self, file: str, qualified_name: str) -> int:
        """How many versions one function has (copies counted)."""
        rows = self._query(
            "SELECT COALESCE(SUM(copies), 0) FROM samples WHERE file = ? AND qualified_name = ?",
            (file, qualified_name),
        )
        return int(rows[0][0])

    def functions_with_versions(self, file: str) -> list[str]:
        """Qualified names in ``file`` that have at least one version, sorted: at most
        :data:`MAX_FILE_FUNCTIONS`, none longer than :data:`MAX_FIELD_CHARS`."""
        rows = self._query(
            "SELECT DISTINCT qualified_name FROM samples WHERE file = ?"
            " AND length(qualified_name) <= ? ORDER BY qualified_name LIMIT ?",
            (file, MAX_FIELD_CHARS, MAX_FILE_FUNCTIONS),
        )
        return [_text(r[0]) for r in rows]

    def files(self) -> list[str]:
        """Every file that has versions, sorted (none longer than :data:`MAX_FIELD_CHARS`)."""
        rows = self._query("SELECT DISTINCT file FROM samples WHERE length(file) <= ?"
                           " ORDER BY file", (MAX_FIELD_CHARS,))
        return [_text(r[0]) for r in rows]

    # ------------------------------------------------------------------ internals

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_open()
            try:
                with self._conn:
                    yield self._conn
            except sqlite3.IntegrityError:
                raise
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot write the version store {self.path}: {exc}") from exc

    def _query(self, sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            self._check_open()
            try:
                return list(self._conn.execute(sql, params).fetchall())
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot read the version store {self.path}: {exc}") from exc

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"the version store {self.path} is closed")


def _add_copies(conn: sqlite3.Connection, file: str, qualified_name: str, digest: str,
                copies: int) -> None:
    """Add ``copies`` to the row of one function's code."""
    conn.execute(
        "UPDATE samples SET copies = copies + ? WHERE file = ? AND qualified_name = ?"
        " AND content_hash = ?",
        (copies, file, qualified_name, digest),
    )


def _copies(value: object) -> int:
    """A row's ``copies`` as a count (at least 1), whatever a store holds there."""
    return max(1, value) if isinstance(value, int) else 1


def _text(value: object) -> str:
    """A stored text as text, whatever a store holds there (a store may come with a
    repository: a blob is read as UTF-8, its bad bytes replaced; a number as written)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def _optional_text(value: object) -> str | None:
    """A stored text that may be missing (NULL)."""
    return None if value is None else _text(value)


def _number(value: object) -> float | None:
    """A stored number, or None when the store holds something else there (text, a blob,
    an infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if number == number and abs(number) != float("inf") else None


def _whole(value: object) -> int | None:
    """A stored whole number, or None when the store holds something else there."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _row_to_version(row: tuple[object, ...]) -> StoredVersion:
    """One stored row as a version, each value read as its column's type
    (:func:`_text`, :func:`_number`, ...), so a value of another type in a store of the
    repository's making costs that value, never the run."""
    r = dict(zip(_COLUMNS, row, strict=True))
    origin = _text(r["origin"])
    return StoredVersion(
        id=int(cast(int, r["id"])),
        file=_text(r["file"]),
        language=_text(r["language"]),
        qualified_name=_text(r["qualified_name"]),
        code=_text(r["code"]),
        content_hash=_text(r["content_hash"]),
        origin=cast(Origin, origin if origin in ORIGINS else "imported"),
        label=_text(r["label"]),
        provider=_optional_text(r["provider"]),
        model=_optional_text(r["model"]),
        temperature=_number(r["temperature"]),
        seed=_whole(r["seed"]),
        prompt_hash=_optional_text(r["prompt_hash"]),
        created=_number(r["created"]) or 0.0,
    )


def _connect_checked(path: Path) -> sqlite3.Connection:
    """Connect, verify the file is a healthy store of our schema, create tables if new."""
    conn = sqlite3.connect(str(path), timeout=5.0, check_same_thread=False, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("PRAGMA trusted_schema = OFF")  # a schema from a repository runs nothing
        _check_objects(conn)
        schema = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {
            str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        } - {"sqlite_sequence"}
        if schema > SCHEMA_VERSION:
            raise _Newer(
                f"has schema version {schema}, newer than this codequorum's ({SCHEMA_VERSION})"
            )
        if schema == 0 and tables:
            raise _SchemaMismatch(f"not a codequorum store (tables: {', '.join(sorted(tables))})")
        if int(conn.execute("PRAGMA application_id").fetchone()[0]) == 0:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # a store from before
        if schema == 1:
            _upgrade_from_1(conn)
            schema = 2
        if schema == 2:
            _upgrade_from_2(conn)
            schema = 3
        if schema == 3:
            _upgrade_from_3(conn)
            schema = SCHEMA_VERSION
        if schema == SCHEMA_VERSION:
            columns = [str(r[1]) for r in conn.execute("PRAGMA table_info(samples)")]
            if sorted(columns) != sorted(_COLUMNS):
                raise _SchemaMismatch("the samples table has unexpected columns")
            runs = [str(r[1]) for r in conn.execute("PRAGMA table_info(runs)")]
            if sorted(runs) != sorted(_RUN_COLUMNS):
                raise _SchemaMismatch("the runs table has unexpected columns")
            _check_sql(conn)
            check = str(conn.execute("PRAGMA quick_check").fetchone()[0])
            if check != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check}")
            # Reading every row catches truncation that quick_check can miss on tiny files.
            conn.execute("SELECT COUNT(*), MAX(length(code)) FROM samples").fetchone()
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        if schema == 0:
            conn.executescript("BEGIN;" + _SCHEMA + "COMMIT;")
        conn.isolation_level = "DEFERRED"  # implicit transactions for `with conn:`
        return conn
    except BaseException:
        conn.close()
        raise


#: The schema objects a codequorum store holds (besides SQLite's own, :func:`_sqlite_own`).
_OBJECTS = frozenset({("table", "samples"), ("table", "meta"), ("table", "runs"),
                      ("index", "samples_by_function")})
#: The indexes SQLite makes for a table's ``PRIMARY KEY`` and ``UNIQUE`` (no SQL text).
_AUTOINDEX = re.compile(r"sqlite_autoindex_(samples|runs|meta)_[0-9]+")
#: The table SQLite keeps for ``AUTOINCREMENT``, as it writes it.
_SEQUENCE = ("table", "sqlite_sequence", "CREATE TABLE sqlite_sequence(name,seq)")


def _sqlite_own(kind: str, name: str, sql: object) -> bool:
    """Whether a schema object is one SQLite makes itself for our tables: a name starting
    ``sqlite_`` is not enough (``PRAGMA writable_schema`` lets a file hold a trigger so
    named, which would fire on our writes)."""
    return (kind, name, sql) == _SEQUENCE or (
        kind == "index" and sql is None and _AUTOINDEX.fullmatch(name) is not None)


def _check_objects(conn: sqlite3.Connection) -> None:
    """Refuse a store with anything codequorum did not put there (a trigger or a view
    under any name, a table of another program): such a file is not provably a
    codequorum store."""
    other = sorted(f"{kind} {name}" for kind, name, sql in
                   ((str(k), str(n), q) for k, n, q in
                    conn.execute("SELECT type, name, sql FROM sqlite_master"))
                   if (kind, name) not in _OBJECTS and not _sqlite_own(kind, name, sql))
    if other:
        raise _Foreign(f"holds what a codequorum store does not ({', '.join(other[:5])})")


def _normalised(sql: str) -> str:
    """A table's or an index's SQL text as compared: spaces collapsed, and the quotes
    SQLite puts around a renamed table's name (``ALTER TABLE ... RENAME``) left out."""
    text = " ".join(sql.split())
    return re.sub(r'^CREATE (TABLE|INDEX) "([a-z_]+)"', r"CREATE \1 \2", text)


@functools.cache
def _expected_sql() -> dict[tuple[str, str], str]:
    """Our objects' SQL text as SQLite keeps it for a store made now."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(_SCHEMA)
        return {(str(kind), str(name)): _normalised(str(sql)) for kind, name, sql in
                conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL")
                if (str(kind), str(name)) in _OBJECTS}
    finally:
        conn.close()


def _check_sql(conn: sqlite3.Connection) -> None:
    """Refuse a store of the current schema whose tables or index are not word for word
    ours: a ``CHECK`` or a generated column of the file's own (neither shows in
    ``PRAGMA table_info``) would run on every row we write."""
    expected = _expected_sql()
    for kind, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master"):
        key = (str(kind), str(name))
        if key in expected and _normalised(str(sql)) != expected[key]:
            raise _Foreign(f"its {name} {kind} is not as codequorum makes it")


def _upgrade_from_1(conn: sqlite3.Connection) -> None:
    """Schema 1 -> 2: every stored row is one copy."""
    columns = [str(r[1]) for r in conn.execute("PRAGMA table_info(samples)")]
    if sorted(columns) != sorted(c for c in _COLUMNS if c != "copies"):
        raise _SchemaMismatch("the samples table has unexpected columns")
    conn.executescript(
        "BEGIN;"
        "ALTER TABLE samples ADD COLUMN copies INTEGER NOT NULL DEFAULT 1 CHECK (copies >= 1);"
        "PRAGMA user_version = 2;"
        "COMMIT;"
    )


def _upgrade_from_2(conn: sqlite3.Connection) -> None:
    """Schema 2 -> 3: the table rebuilt with the origins of this version in its ``CHECK``
    (SQLite cannot change a constraint in place), rows and ids as they were."""
    columns = [str(r[1]) for r in conn.execute("PRAGMA table_info(samples)")]
    if sorted(columns) != sorted(_COLUMNS):
        raise _SchemaMismatch("the samples table has unexpected columns")
    names = ", ".join(_COLUMNS)
    conn.executescript(
        "BEGIN;"
        + _TABLE.format(table="samples_v3")
        + f"INSERT INTO samples_v3 ({names}) SELECT {names} FROM samples;"
        "DROP TABLE samples;"
        "ALTER TABLE samples_v3 RENAME TO samples;"
        "CREATE INDEX IF NOT EXISTS samples_by_function ON samples (file, qualified_name);"
        "PRAGMA user_version = 3;"
        "COMMIT;"
    )


def _upgrade_from_3(conn: sqlite3.Connection) -> None:
    """Schema 3 -> 4: the ``runs`` table, empty."""
    conn.executescript("BEGIN;" + _RUNS + f"PRAGMA user_version = {SCHEMA_VERSION};COMMIT;")


def _store_id(conn: sqlite3.Connection) -> str:
    """The store's identity, made now when it has none yet ("" when it cannot be written)."""
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        row = conn.execute("SELECT value FROM meta WHERE key = 'store_id'").fetchone()
        if row is not None and str(row[0]):
            return str(row[0])
        new_id = secrets.token_hex(16)
        with conn:
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('store_id', ?)", (new_id,)
            )
        return new_id
    except sqlite3.DatabaseError as exc:
        log.warning("the version store has no identity: %s", exc)
        return ""


def _is_corruption(exc: sqlite3.OperationalError) -> bool:
    """True for operational errors that mean 'bad file', not 'cannot open the path'."""
    text = str(exc).lower()
    return "unable to open" not in text and "readonly" not in text and "locked" not in text


def _move_aside(path: Path) -> Path:
    """Rename a damaged store (and its -wal/-shm files) out of the way; returns the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while os.path.lexists(aside):
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    try:
        path.rename(aside)
        for suffix in ("-wal", "-shm"):
            extra = path.with_name(path.name + suffix)
            if extra.exists():
                extra.rename(aside.with_name(aside.name + suffix))
    except OSError as exc:
        raise StoreError(
            f"the version store {path} is unreadable and cannot be moved: {exc}"
        ) from exc
    return aside
