"""The user's own codequorum folder: where no workspace writes (configuration, approvals,
the key that seals remembered runs)."""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/codequorum``, else ``~/.config/codequorum`` (a relative
    ``XDG_CONFIG_HOME`` is ignored, as the XDG rules say)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "codequorum"
