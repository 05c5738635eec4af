"""Files codequorum writes or moves, reached only where the user meant.

A repository can carry symlinks: ``report.json -> ~/.bashrc``, ``.codequorum -> ~``,
``.codequorum/samples.sqlite3 -> ~/.config/gh/hosts.yml``. A path the user names, or a
default under the workspace, may run through one. :func:`guard` walks a path one component
at a time, as the kernel does, and refuses it when a symlink that lies inside a workspace
(one of the caller's roots, or the nearest folder above the link holding ``.git`` or
``.codequorum``) leads out of that workspace; symlinks that stay inside, and symlinks
outside every workspace (``/dev/stdout``, a home folder on another disk), are followed.

Between the check and the write the path could change. :func:`open_folder` therefore opens
the checked folder one component at a time with ``O_NOFOLLOW`` (as ``openat`` walks do), so
a component swapped for a symlink after the check is refused, not followed; files are then
made (``O_EXCL | O_NOFOLLOW``), opened and renamed relative to that folder's descriptor.
Where folders cannot be opened as descriptors (Windows), the :class:`Folder` is its path,
whose components are checked for links and reparse points (junctions) again before each
file is made, opened, renamed or removed, and each file is opened without following a link
(:func:`~codequorum.core.os_features.open_no_link`): a swap inside the few microseconds
between that check and the call is not caught there, where ``openat`` leaves no such gap.

What codequorum reads from a repository on its own (a walked source file, a file a client
names) is read by :func:`read_regular`: a regular file only, bounded, never blocking on a
FIFO, so ``/dev/zero`` or a pipe in its place is one error instead of a hang.

What a version (the module view) or an agent is shown of a workspace follows one rule,
:func:`workspace_refusal`, tested on the path asked for and again where its links lead
(:func:`resolve_in_workspace`): nothing hidden (``.env``, ``.git``), nothing named like a
secret, nothing outside the workspace (``/proc``, ``/dev``, a home folder). Such a file is
read by :func:`read_workspace_file`, which opens the very file it checked.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path, PurePath

from codequorum.core import os_features
from codequorum.core.errors import UserError
from codequorum.core.limits import size_words

#: A folder holding one of these is a workspace root (as :mod:`codequorum.ingest.workspace` says).
MARKERS = (".codequorum", ".git")
#: Symlinks followed in one path at most (the kernel's own limit).
MAX_LINKS = 40
#: How a folder of a walk opens (POSIX): no link followed, a path descriptor where there is one.
_DIRECTORY = (getattr(os, "O_DIRECTORY", 0) | os_features.NOFOLLOW | os_features.CLOEXEC
              | getattr(os, "O_PATH", os.O_RDONLY))


class UnsafePath(UserError):
    """A path that leaves the workspace through a symlink, or changed while being used."""

    exit_code = 2


def marked_root(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` (a real path) holding a workspace marker
    (itself a symlink or not)."""
    for candidate in (folder, *folder.parents):
        if any(os.path.lexists(candidate / marker) for marker in MARKERS):
            return candidate
    return None


def _check_link(link: Path, leads_to: Path, tops: list[Path]) -> None:
    """Refuse ``link`` (in a real folder) when it lies inside a workspace and ``leads_to``
    lies outside it."""
    folder = link.parent
    here = [top for top in tops if folder.is_relative_to(top)]
    marked = marked_root(folder)
    if marked is not None:
        here.append(marked)
    for top in here:
        if not leads_to.is_relative_to(top):
            raise UnsafePath(f"{link} is a symlink out of the workspace {top} (to {leads_to}); "
                             "codequorum does not write through it: name the file itself")


def _walk(path: Path, check: Callable[[Path, Path], None]) -> Path:
    """Resolve the absolute ``path`` one component at a time, as the kernel does, calling
    ``check(link, where it leads)`` for every symlink met; returns the real path."""
    pending = list(path.parts[1:])
    current = Path(path.anchor)
    links = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            current = current.parent
            continue
        candidate = current / part
        if not _is_link(candidate):
            current = candidate
            continue
        links += 1
        if links > MAX_LINKS:
            raise UnsafePath(f"{path}: too many symlinks")
        leads_to = Path(os.path.realpath(candidate))
        check(candidate, leads_to)
        current = leads_to
    return current


def _is_link(path: Path) -> bool:
    """Whether ``path`` is a symlink (or, on Windows, a junction or another reparse point)."""
    try:
        return os_features.link_like(os.lstat(path))
    except OSError:
        return False


def _links_to(places: Iterable[Path]) -> set[Path]:
    """The symlinks on the way to each of ``places``: the user went through them to open
    the workspace or to stand in the current folder, so they are the user's own."""
    found: set[Path] = set()
    for place in places:
        with contextlib.suppress(OSError, UnsafePath):
            _walk(place, lambda link, _to: found.add(link))
    return found


def _logical_cwd() -> list[Path]:
    """The current folder as the shell spells it (``$PWD``), when it is the current folder."""
    pwd = os.environ.get("PWD", "")
    with contextlib.suppress(OSError):
        if pwd and os.path.isabs(pwd) and os.path.samefile(pwd, "."):
            return [Path(pwd)]
    return []


def guard(path: str | os.PathLike[str], roots: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """The real path a write to ``path`` reaches (symlinks followed, a dangling one to
    where it points), or :class:`UnsafePath` when a symlink on the way lies inside a
    workspace (one of ``roots``, or a folder holding ``.git`` or ``.codequorum``) and
    leads out of it. Symlinks on the way to a root or to the current folder are the
    user's own and followed (a project folder linked from a home folder kept in git)."""
    given_roots = [Path(os.path.abspath(root)) for root in roots]
    tops = [Path(os.path.realpath(root)) for root in given_roots]
    own = _links_to([*given_roots, *_logical_cwd()])
    given = Path(path).expanduser()

    def check(link: Path, leads_to: Path) -> None:
        if link not in own:
            _check_link(link, leads_to, tops)

    return _walk(given if given.is_absolute() else Path.cwd() / given, check)


def real_path(path: str | os.PathLike[str]) -> Path:
    """``path`` with every symlink followed, as ``Path.resolve()`` without its errors: a
    loop of links (``a.py -> b.py -> a.py``, which a repository can carry) is left where
    it loops instead of raising ``RuntimeError``, so what reads the file then says it
    cannot, and a walk or a workspace's lookup goes on."""
    return Path(os.path.realpath(path))


def inside(path: Path, root: str | os.PathLike[str]) -> bool:
    """Whether the real ``path`` lies at or below the real ``root``."""
    return path.is_relative_to(Path(os.path.realpath(root)))


def open_folder(folder: Path) -> int:
    """A descriptor of the real folder ``folder`` (from :func:`guard`), opened one component
    at a time without following any symlink. Raises :class:`UnsafePath` when a component
    is (now) a symlink or not a folder, ``FileNotFoundError`` when one is missing. POSIX
    only (:func:`~codequorum.core.os_features.folder_descriptors`); :func:`folder_of` is
    what every system has."""
    if not folder.is_absolute():
        raise ValueError(f"{folder} is not absolute")
    fd = os.open(folder.anchor, _DIRECTORY)
    try:
        for part in folder.parts[1:]:
            try:
                step = os.open(part, _DIRECTORY, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise _swapped(folder, part) from None
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


def _swapped(folder: Path, part: str) -> UnsafePath:
    """The refusal of a folder one of whose components is no longer a folder."""
    return UnsafePath(f"{folder}: {part} is not a folder any more (a symlink or a file took "
                      "its place); nothing was written")


class Folder:
    """A checked folder files are made, opened, renamed and removed in without following a
    link: by its descriptor (POSIX), else by its path checked again before each call."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    def _check(self) -> None:
        """Where there is no descriptor: refuse a component that is now a link or a file."""
        if self.fd is not None:
            return
        try:
            link = os_features.links_on_the_way(self.path)
        except NotADirectoryError as exc:
            raise _swapped(self.path, Path(exc.filename).name) from None
        if link is not None:
            raise _swapped(self.path, link.name)

    def open(self, name: str, flags: int, mode: int = 0o777) -> int:
        """``name`` in this folder opened with ``flags``, never through a link."""
        self._check()
        if self.fd is not None:
            return os.open(name, flags | os_features.NOFOLLOW | os_features.CLOEXEC, mode,
                           dir_fd=self.fd)
        return os_features.open_no_link(self.path / name, flags, mode)

    def replace(self, source: str, target: str) -> None:
        """Rename ``source`` over ``target``, both in this folder."""
        self._check()
        if self.fd is not None:
            os.replace(source, target, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(self.path / source, self.path / target)

    def unlink(self, name: str) -> None:
        """Remove ``name`` from this folder."""
        self._check()
        if self.fd is not None:
            os.unlink(name, dir_fd=self.fd)
        else:
            os.unlink(self.path / name)


def checked_folder(folder: Path) -> Folder:
    """The real folder ``folder`` (from :func:`guard`) as a :class:`Folder`: opened one
    component at a time (:func:`open_folder`) where the system gives folder descriptors,
    else its components checked for links now and before each use. :class:`UnsafePath`
    or ``FileNotFoundError`` as :func:`open_folder`; close it with :func:`close_folder`."""
    if os_features.folder_descriptors():
        return Folder(folder, open_folder(folder))
    if not folder.is_absolute():
        raise ValueError(f"{folder} is not absolute")
    checked = Folder(folder, None)
    checked._check()
    return checked


def close_folder(folder: Folder) -> None:
    """Close the folder's descriptor, where it has one."""
    if folder.fd is not None:
        os.close(folder.fd)


@contextlib.contextmanager
def folder_of(target: Path) -> Iterator[Folder]:
    """:func:`checked_folder` of ``target``'s folder, closed after the block."""
    folder = checked_folder(target.parent)
    try:
        yield folder
    finally:
        close_folder(folder)


class UnreadableFile(UserError):
    """A file that is not a regular file, or larger than the bound, so it is not read."""


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is ("a FIFO", "a folder", ...)."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISLNK, "a symlink"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path`` (symlinks followed) when it is a regular file of at most
    ``limit`` bytes; else :class:`UnreadableFile` naming it. Never blocks on a FIFO, never
    reads more than ``limit`` + 1 bytes; ``OSError`` when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os_features.NONBLOCK | os_features.CLOEXEC
                 | os_features.BINARY)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{path} is {file_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise UnreadableFile(f"{path} is larger than {size_words(limit)}")
        data = _read_bounded(fd, limit)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise UnreadableFile(f"{path} is larger than {size_words(limit)}")
    return data


# ------------------------------------------------------------------ files of a workspace

#: Words in a file or folder name that keep a file from being read for a version or an agent.
SECRET_WORDS = ("secret", "credential", "password", "passwd", "private_key", "privatekey",
                "private-key", "privkey", "apikey", "api_key", "access_token", "auth_token",
                "serviceaccount", "service_account", "service-account")
#: Endings of the files keys, certificates' private halves and key stores are kept in
#: (``config/master.key``, ``server.pem``, ``terraform.tfstate``): a user keeps them in a
#: project folder, out of git, where a repository's link or module can name them.
SECRET_SUFFIXES = (".key", ".pem", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".gpg",
                   ".pgp", ".tfstate", ".tfvars", ".ovpn", ".ppk")
#: Whole names of such files (SSH keys, a cluster's client configuration, ``netrc``).
SECRET_NAMES = frozenset({"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "kubeconfig",
                          "_netrc", "netrc", "htpasswd", "shadow", "token"})
#: Why a hidden path is refused (the words an agent and the module view both say).
HIDDEN = "a hidden file or folder of the workspace (such as .env or .git)"
SECRET_LOOKING = "a file or folder whose name looks like it holds secrets"


class RefusedFile(UserError):
    """A workspace file that is not shown to a version or an agent; the message says why in
    a few words (the caller names the file)."""


def workspace_refusal(rel: PurePath) -> str | None:
    """Why the path ``rel`` (relative to a workspace root) is not read for a version or an
    agent, or None: a hidden component (``.env``, ``.git/config``) or a name that looks like
    it holds secrets (:data:`SECRET_WORDS`, :data:`SECRET_SUFFIXES`, :data:`SECRET_NAMES`:
    ``credentials.json``, ``config/master.key``, ``id_rsa``). The one rule for the path
    asked for and for the path it resolves to. Two stores of installed packages are not
    hidden: pnpm's, ``node_modules/.pnpm`` (where each ``node_modules/<name>`` links), and
    the packages of the workspace's virtual environment, ``.venv/lib/python3.X/site-packages``
    (``.venv/Lib/site-packages`` on Windows): only packages live there (a hidden or
    secret-looking name inside them still is, and the rest of ``.venv``)."""
    parts = rel.parts
    if any(part.startswith(".") and not _package_store(parts, k) for k, part in enumerate(parts)):
        return HIDDEN
    if any(_secret_looking(part.lower()) for part in rel.parts):
        return SECRET_LOOKING
    return None


def _package_store(parts: tuple[str, ...], k: int) -> bool:
    """Whether ``parts[k]`` is pnpm's store, ``.pnpm`` right inside a ``node_modules``, or
    the workspace's ``.venv`` on the way to its ``site-packages``."""
    if parts[k] == ".pnpm":
        return k > 0 and parts[k - 1] == "node_modules"
    return parts[k] == ".venv" and k == 0 and site_packages(parts[1:])


def site_packages(parts: tuple[str, ...]) -> bool:
    """Whether ``parts`` (in a virtual environment) go through its ``site-packages``:
    ``lib/python3.12/site-packages/...``, or ``Lib/site-packages/...`` as Windows lays it."""
    return (len(parts) >= 3 and parts[0] == "lib" and re.fullmatch(r"python3\.\d+", parts[1])
            is not None and parts[2] == "site-packages") or (
        len(parts) >= 2 and parts[0] == "Lib" and parts[1] == "site-packages")


def _secret_looking(name: str) -> bool:
    """Whether the (lower-case) file or folder ``name`` looks like it holds secrets: a
    secret's word in it (Firebase's ``serviceAccountKey.json`` too), a key's or a key
    store's ending, at the end or before another (``server.pem.js``), or a key file's
    whole name;
    read also as Windows opens it (:func:`windows_name`: ``id_rsa.``, ``server.key::$DATA``)."""
    return any(any(word in each for word in SECRET_WORDS) or each.endswith(SECRET_SUFFIXES)
               or any(f".{part}" in SECRET_SUFFIXES for part in each.split(".")[1:-1])
               or each in SECRET_NAMES or each.split(".", 1)[0] in SECRET_NAMES
               for each in {name, windows_name(name)})


def windows_name(name: str) -> str:
    """The file a Windows file system opens for the component ``name``: an alternate data
    stream's ``:stream`` dropped and trailing dots and spaces dropped (``server.key.`` and
    ``server.key::$DATA`` are ``server.key``). The refusals read names this way on every
    system, so a name spelled for Windows cannot slip past them; case is already folded."""
    return name.split(":", 1)[0].rstrip(" .")


def resolve_in_workspace(root: Path, path: Path) -> Path:
    """The real path of ``path`` (links followed), which must lie inside the real ``root``
    and pass :func:`workspace_refusal`; raises :class:`RefusedFile` saying why not, and
    ``FileNotFoundError`` when it does not exist. A link into ``.env`` or ``.git``, or out
    of the workspace (``/proc``, ``/dev``, a home folder), is refused where it leads."""
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise
    except (OSError, RuntimeError) as exc:  # a loop of links, a name too long
        raise RefusedFile(f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    except ValueError:  # a NUL byte: a store's key or a client's name may hold one
        raise RefusedFile("not a file name (it holds a NUL byte)") from None
    if not real.is_relative_to(root):
        raise RefusedFile("outside the workspace (a path or link that leads out of it is "
                          "not read)")
    why = workspace_refusal(PurePath(real.relative_to(root)))
    if why is not None:
        raise RefusedFile(why)
    return real


def read_workspace_file(root: Path, path: Path, limit: int) -> tuple[Path, bytes]:
    """The real path and bytes of ``path`` when it resolves (:func:`resolve_in_workspace`)
    to a regular file of at most ``limit`` bytes inside the real ``root``. The file opened
    is the one checked: its folder is opened a component at a time and the file itself
    without following a link, so a link swapped in after the check is refused, not
    followed; a FIFO or a device is never read. Raises :class:`RefusedFile` (why, in a few
    words) or ``FileNotFoundError``.

    A hard link cannot be told from the file it links (both are the same file); git does
    not carry hard links, and an archive's reach only files the archive itself holds."""
    real = resolve_in_workspace(root, path)
    try:
        with folder_of(real) as folder:
            fd = folder.open(real.name, os.O_RDONLY | os_features.NONBLOCK)
    except (UnsafePath, FileNotFoundError):
        raise RefusedFile("changed while being read (a link took a file's place)") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RefusedFile("changed while being read (a link took its place)") from None
        raise RefusedFile(f"cannot be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(f"{file_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise RefusedFile(f"{info.st_size:,} bytes, over the {limit:,} a file read here "
                              "may have")
        data = _read_bounded(fd, limit)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise RefusedFile(f"over the {limit:,} bytes a file read here may have")
    return real, data


def _read_bounded(fd: int, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of ``fd``."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
