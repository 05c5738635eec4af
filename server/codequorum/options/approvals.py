"""What the user agreed to, kept where no workspace can write: stores whose versions may
run, and endpoints that may receive an API key.

A cloned repository can carry a version store (``.codequorum/samples.sqlite3``) and settings
(``.vscode/settings.json``, a project-local editor configuration). The language server
cannot tell which settings the user chose, so it trusts none of them for two things:

- running a store's versions in the sandbox: only for a store the server made itself, or
  one the user approved (per store path and store identity);
- sending the key named by ``provider.apiKeyEnv``: only to the default endpoint with the
  default variable, or to an (endpoint, variable) pair the user approved.

The same file keeps the user's answer "always" or "never" to the watch's offer, per
workspace folder (:meth:`Approvals.watch_choice`).

Approvals are asked with ``window/showMessageRequest`` (every LSP client can answer it)
and kept in ``$XDG_CONFIG_HOME/codequorum/approvals.json`` (``~/.config/codequorum`` by
default): a file of the user's, never of the workspace. The file can also be edited by hand.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from codequorum.core.user_dirs import config_dir
from codequorum.generate.endpoint import DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL

log = logging.getLogger(__name__)

APPROVALS_NAME = "approvals.json"
FORMAT_VERSION = 1


def endpoint_identity(base_url: str) -> str:
    """``base_url`` as approvals name it: scheme, host, port and path, without user,
    password, query or trailing slash; scheme and host in lower case."""
    try:
        url = urlsplit(base_url.strip())
        port = f":{url.port}" if url.port is not None else ""
        host = (url.hostname or "").lower()
        host = f"[{host}]" if ":" in host else host
        return f"{url.scheme.lower()}://{host}{port}{url.path.rstrip('/')}"
    except ValueError:
        return base_url.strip().split("?", 1)[0].split("@")[-1].rstrip("/")


def is_default_endpoint(base_url: str, key_env: str) -> bool:
    """True for the default endpoint with the default key variable (no question asked)."""
    return key_env == DEFAULT_API_KEY_ENV and endpoint_identity(base_url) == endpoint_identity(
        DEFAULT_BASE_URL
    )


@dataclass
class Approvals:
    """The approvals file: read at every question (it may be edited), written atomically."""

    path: Path

    _lock = threading.Lock()

    @classmethod
    def default(cls) -> Approvals:
        """The user's approvals file."""
        return cls(config_dir() / APPROVALS_NAME)

    def _read(self, repair: bool = False) -> dict[str, Any]:
        """The file's content ({} when missing or unreadable). With ``repair``, a file that
        is not a JSON object is moved aside (``approvals.json.invalid-<time>``) first, so
        writing never drops what a person wrote there."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("cannot read %s: %s", self.path, exc)
            data = None
        if isinstance(data, dict):
            return data
        if repair and self.path.exists():
            aside = self.path.with_name(f"{self.path.name}.invalid-{int(time.time())}")
            os.replace(self.path, aside)
            log.warning("%s is not an approvals file; it was moved to %s", self.path, aside.name)
        return {}

    def _entries(self, kind: str) -> list[dict[str, Any]]:
        items = self._read().get(kind)
        return [e for e in items if isinstance(e, dict)] if isinstance(items, list) else []

    def _add(self, kind: str, entry: dict[str, str], key: str | None = None) -> None:
        """Keep ``entry`` under ``kind`` (once; with ``key``, in place of any entry with the
        same value of ``key``)."""
        with self._lock:
            data = self._read(repair=True)
            items = [e for e in self._entries(kind)
                     if e != entry and (key is None or e.get(key) != entry[key])] + [entry]
            data = {**data, "version": FORMAT_VERSION, kind: items}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".approvals-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(data, fh, indent=2)
                    fh.write("\n")
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise

    # ------------------------------------------------------------------ stores

    def store_approved(self, store_path: Path, store_id: str) -> bool:
        """True when the user approved running the versions of this store."""
        if not store_id:
            return False
        entry = {"path": str(store_path.resolve()), "id": store_id}
        return entry in self._entries("stores")

    def approve_store(self, store_path: Path, store_id: str) -> None:
        """Remember that this store's versions may run."""
        if store_id:
            self._add("stores", {"path": str(store_path.resolve()), "id": store_id})

    # ------------------------------------------------------------------ endpoints

    def endpoint_approved(self, base_url: str, key_env: str) -> bool:
        """True when the key in ``key_env`` may go to ``base_url``."""
        entry = {"endpoint": endpoint_identity(base_url), "apiKeyEnv": key_env}
        return entry in self._entries("endpoints")

    def approve_endpoint(self, base_url: str, key_env: str) -> None:
        """Remember that the key in ``key_env`` may go to ``base_url``."""
        self._add("endpoints", {"endpoint": endpoint_identity(base_url), "apiKeyEnv": key_env})

    # ------------------------------------------------------------------ the watch

    def watch_choice(self, workspace: str) -> str | None:
        """``auto`` or ``off`` when the user answered the watch's offer in the workspace
        folder ``workspace`` with "always" or "never"; None when they did not."""
        for entry in self._entries("watch"):
            if entry.get("workspace") == workspace and entry.get("choice") in ("auto", "off"):
                return str(entry["choice"])
        return None

    def remember_watch(self, workspace: str, choice: str) -> None:
        """Keep the answer ``auto`` ("always") or ``off`` ("never") for ``workspace``."""
        self._add("watch", {"workspace": workspace, "choice": choice}, key="workspace")
