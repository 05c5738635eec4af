"""A hostile repository in ``tmp_path``, beside a fake home folder.

The repository carries what an attacker controls: files, configuration, stores, symlinks,
programs. The home folder holds what must survive: a shell profile, a credential file, an
SSH key. Every test decides from the outside: the real command runs as a subprocess (or the
real server over stdio) with ``HOME`` pointing at the fake home, and afterwards no program of
the repository has run (it would write :attr:`Hostile.marker`), nothing under the home
folder changed (:meth:`Hostile.home_snapshot` before and after), and what went wrong is one
line naming the file and the key or path.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
#: One sample set of three versions, enough for every command that scores.
SAMPLES = (
    '{"task_id": "t/0", "language": "python", "samples": ['
    '"def f(x):\\n    return x + 1\\n", "def f(x):\\n    return 1 + x\\n", '
    '"def f(x):\\n    y = x\\n    return y + 1\\n"]}\n'
)
SOURCE = "def f(x):\n    return x + 1\n"
#: Seconds any refusal may take (a hang on a FIFO or /dev/zero would take forever).
QUICK = 20.0


@dataclass
class Hostile:
    """A repository (with ``.git``) and a home folder beside it."""

    home: Path
    repo: Path

    @property
    def marker(self) -> Path:
        """Written by any program of the repository that runs."""
        return self.home.parent / "MARKER-a-repository-program-ran"

    def write(self, relative: str, text: str) -> Path:
        """A file of the repository."""
        path = self.repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def program(self, relative: str) -> Path:
        """An executable of the repository that leaves the marker, then behaves as Python
        (so a command that runs it would go on as if nothing happened)."""
        path = self.write(relative, f'#!/bin/sh\necho ran >> "{self.marker}"\n'
                                    f'exec "{sys.executable}" "$@"\n')
        path.chmod(0o755)
        return path

    def home_snapshot(self) -> dict[str, str]:
        """Every entry under the home folder: a hash of each file, the target of each
        symlink, and each folder (what a write, a rename or a new file would change)."""
        found: dict[str, str] = {}
        for folder, dirs, files in os.walk(self.home):
            for name in dirs + files:
                path = Path(folder) / name
                key = str(path.relative_to(self.home))
                if path.is_symlink():
                    found[key] = "-> " + os.readlink(path)
                elif path.is_dir():
                    found[key] = "dir"
                else:
                    found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
        return found

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a command run by the user in the repository."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("CODEQUORUM_") and k != "XDG_CONFIG_HOME"}
        env.update(HOME=str(self.home), PYTHONPATH=str(REPO_ROOT / "server"),
                   CQ_TEST_KEY="sk-test", NO_COLOR="1", **extra)
        return env

    def run(self, *args: str, cwd: Path | None = None, timeout: float = 120.0,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """``codequorum ARGS`` in the repository, as the user (``env``: more variables)."""
        return subprocess.run([sys.executable, "-m", "codequorum", *args],
                              cwd=cwd or self.repo, env=self.env(**(env or {})),
                              capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    """A fresh hostile repository and the home folder it must not touch."""
    home = tmp_path / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".ssh").mkdir()
    (home / ".bashrc").write_text("export PATH=$HOME/bin:$PATH\n", encoding="utf-8")
    (home / ".config" / "gh" / "hosts.yml").write_text(
        "github.com:\n    oauth_token: gho_0123456789abcdef\n", encoding="utf-8")
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n",
                                               encoding="utf-8")
    (home / "empty.db").write_bytes(b"")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    found = Hostile(home=home, repo=repo)
    found.write("samples.jsonl", SAMPLES)
    found.write("src/mod.py", SOURCE)
    return found


def one_line_error(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The one error line of a refused command, holding every needle."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("codequorum: error: ")]
    assert len(errors) == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]


def one_warning(result: subprocess.CompletedProcess[str], *needles: str) -> list[str]:
    """The warning lines of a command (no error line, no traceback), one of them holding
    every needle."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    warnings = [line for line in lines if line.startswith("codequorum: warning: ")]
    assert "Traceback" not in result.stderr, result.stderr
    assert not [line for line in lines if line.startswith("codequorum: error: ")], result.stderr
    assert any(all(n in line for n in needles) for line in warnings), (needles, result.stderr)
    return warnings


@pytest.fixture
def safe_log() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger writing through codequorum's :class:`SafeFormatter` into a string (as the
    command line's log writes), and that string."""
    from codequorum.core.safe_text import SafeFormatter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(SafeFormatter("%(levelname)s %(message)s"))
    log = logging.getLogger("codequorum.test.safe_log")
    log.addHandler(handler)
    log.propagate = False
    try:
        yield log, stream
    finally:
        log.removeHandler(handler)
