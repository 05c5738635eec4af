"""The seal on a remembered run: an HMAC-SHA256 under a key only this user holds.

A version store can come with a repository, and a repository can write any run it likes
into it ("every version agrees, the one to keep is likely right"). A run this user's
codequorum made is sealed when it is remembered; a record without a valid seal is never
read back, whoever approved the store, and however it got there (a later pull replacing an
approved store included). The key is 32 random bytes in the user's folder
(:func:`~codequorum.core.user_dirs.config_dir`, ``run-seal.key``, readable by the user
alone), made the first time it is needed.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
from pathlib import Path

from codequorum.core import os_features
from codequorum.core.user_dirs import config_dir

log = logging.getLogger(__name__)

KEY_NAME = "run-seal.key"
KEY_BYTES = 32
#: A sealed record: the seal's hex digits, this separator, then the record.
SEPARATOR = ":"
_DIGITS = 64


def seal_key(folder: Path | None = None, *, create: bool = True) -> bytes | None:
    """The user's sealing key, made on first use when ``create`` (a run being remembered;
    reading one back needs no key where none was ever made); None where the folder cannot
    hold one (then runs are neither remembered nor read back)."""
    path = (folder or config_dir()) / KEY_NAME
    try:
        return _read_key(path)
    except FileNotFoundError:
        if not create:
            return None
    except OSError as exc:
        log.info("runs are not remembered: the key %s cannot be read: %s", path, exc)
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os_features.BINARY, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(KEY_BYTES))
    except FileExistsError:
        pass  # made by another process meanwhile: read it
    except OSError as exc:
        log.info("runs are not remembered: the key %s cannot be made: %s", path, exc)
        return None
    try:
        return _read_key(path)
    except OSError as exc:
        log.info("runs are not remembered: the key %s cannot be read: %s", path, exc)
        return None


def _read_key(path: Path) -> bytes | None:
    data = path.read_bytes()
    if len(data) != KEY_BYTES:
        log.info("runs are not remembered: the key %s is not %d bytes", path, KEY_BYTES)
        return None
    return data


def seal(key: bytes, record: str) -> str:
    """``record`` sealed under ``key``."""
    return f"{_digest(key, record)}{SEPARATOR}{record}"


def unseal(key: bytes, sealed: object) -> str | None:
    """The record inside ``sealed`` when its seal is valid under ``key``; else None."""
    if not isinstance(sealed, str) or sealed[_DIGITS:_DIGITS + 1] != SEPARATOR:
        return None
    record = sealed[_DIGITS + 1:]
    return record if hmac.compare_digest(sealed[:_DIGITS], _digest(key, record)) else None


def _digest(key: bytes, record: str) -> str:
    return hmac.new(key, record.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
