"""The eglot recipe of docs/editors.md, run in a real batch Emacs against the real server.

The recipe is copied from the documentation as it stands into an init file; ``emacs --batch``
(with Debian's ``elpa-eglot``, activated as a user's Emacs activates it, and no markdown-mode,
so eglot asks for plain-text hovers) opens a Python file whose function has versions in a
store that came with the project, and ``emacs_driver.el`` records what eglot shows: the
diagnostic, the hover, the code actions. It then picks Compare and Run from eglot's code
action menu, answers the server's question with a bare RET (the lines of standard input are
what a batch Emacs reads in the minibuffer), and shuts the server down.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path
from tests.lsp.helpers import humaneval_task
from tests.support.processes import exit_words

from .recipes import CURRENT_BODY, doc_block

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
EMACS = shutil.which("emacs")
TIMEOUT_S = 60
NAME = "has_close_elements"

pytestmark = pytest.mark.skipif(
    EMACS is None,
    reason="emacs is not installed (scripts/test.sh installs emacs-nox and elpa-eglot with "
    "apt-get as root)",
)

def emacs_env(home: Path) -> dict[str, str]:
    """A private home, configuration and cache, the venv's scripts first on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMACS", "XDG_"))}
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = str(REPO / "server")
    return env


def eglot_available(env: dict[str, str]) -> str | None:
    """None when the batch Emacs can load eglot; else why not."""
    assert EMACS is not None
    probe = subprocess.run(
        [EMACS, "--batch", "-q", "--eval",
         "(progn (require 'package) (package-initialize) (require 'eglot))"],
        env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        check=False,
    )
    return None if probe.returncode == 0 else f"eglot cannot be loaded: {probe.stderr[-300:]}"


def project(tmp_path: Path, shared_dir: Path) -> tuple[Path, Path, str]:
    """A git project with a Python file and a store that came with it (not made by the
    server, so running its versions is asked about); (root, file, text)."""
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    text = task["prompt"] + CURRENT_BODY
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    module = root / "pkg" / "close.py"
    module.write_text(text, encoding="utf-8")
    versions = [Version(code=task["prompt"] + s, origin="relayed") for s in task["samples"][:5]]
    with VersionStore.open(default_store_path(root)) as store:
        store.add("pkg/close.py", "python", NAME, versions)
    return root, module, text


def run_emacs(tmp_path: Path, shared_dir: Path) -> tuple[dict[str, Any], Path, str]:
    home = tmp_path / "home"
    env = emacs_env(home)
    missing = eglot_available(env)
    if missing is not None:
        pytest.skip(missing)
    root, module, text = project(tmp_path, shared_dir)
    init = tmp_path / "init.el"
    # a user's Emacs activates installed packages before init.el; a batch one is told to
    init.write_text("(require 'package)\n(package-initialize)\n"
                    + doc_block("### eglot (Emacs 28 with eglot 1.9, and later)", "elisp"))
    name_line = text[: text.index(f"def {NAME}")].count("\n")
    io_in, io_out = tmp_path / "in.json", tmp_path / "out.json"
    io_in.write_text(json.dumps({
        "file": str(module), "hover_line": name_line, "hover_character": len("def ") + 3,
        "timeout_s": 40,
    }))
    env["CQ_EMACS_INPUT"], env["CQ_EMACS_OUTPUT"] = str(io_in), str(io_out)
    # what the user types in the minibuffer: two code actions by title, then RET
    typed = (f"Compare the versions of `{NAME}`\n"
             f"Run the versions of `{NAME}` in the sandbox\n"
             "\n")
    assert EMACS is not None
    proc = subprocess.run(
        [EMACS, "--batch", "-q", "-l", str(init), "-l", str(HERE / "emacs_driver.el")],
        cwd=tmp_path, env=env, input=typed, capture_output=True, text=True,
        timeout=TIMEOUT_S + 30, check=False,
    )
    assert io_out.is_file(), (f"emacs wrote nothing ({exit_words(proc.returncode)}): "
                              f"{proc.stderr[-3000:]}")
    out = json.loads(io_out.read_text())
    assert "error" not in out, f"{out}\n{proc.stderr[-3000:]}"
    return out, root, text


def test_eglot_recipe_end_to_end(tmp_path: Path, shared_dir: Path) -> None:
    out, root, text = run_emacs(tmp_path, shared_dir)
    assert out["steps"] == ["connected", "diagnostics", "hover", "actions", "compare",
                            "question", "shutdown"]
    assert out["major_mode"] == "python-mode"
    assert Path(out["root"]) == root  # the git project, not the file's folder
    assert out["hover_formats"] == ["plaintext"]  # no markdown-mode here

    # the diagnostic on the function's name, as Flymake shows it
    [diag] = out["diagnostics"]
    name_line = text[: text.index(f"def {NAME}")].count("\n")
    assert (diag["line"], diag["column"], diag["end_column"]) == (
        name_line, len("def "), len("def ") + len(NAME))
    assert diag["type"] == "eglot-warning"
    assert diag["text"].startswith("codequorum [outlier-current]: The current code is far from")

    # the hover in plain text, read as eglot shows it: no markup characters
    hover = out["hover"]
    assert hover["kind"] == "plaintext"
    shown = hover["shown"]
    assert shown.startswith(f"codequorum · {NAME} · 5 versions + your code · ")
    for markup in ("**", "`", "```"):
        assert markup not in shown, shown
    assert re.search(r"^⚠️ outlier-current — ", shown, re.M), shown
    assert re.search(r"^Most different: v[1-5]\n    --- current\n    \+\+\+ v[1-5]$", shown, re.M)

    # the edits, then every command as an action of its own
    actions = out["actions"]
    edits = [a for a in actions if a["edit"]]
    assert edits[0]["title"] == "Keep the recommended version (version 5)"
    assert edits[0]["preferred"] is True  # eglot's default pick
    commands = [(a["title"], a["command"], a["kind"]) for a in actions if not a["edit"]]
    assert commands == [
        (f"Compare the versions of `{NAME}`", "codequorum.compare", "source.codequorum"),
        (f"Run the versions of `{NAME}` in the sandbox", "codequorum.runDynamic",
         "source.codequorum"),
        (f"Regenerate `{NAME}`: ask for more versions", "codequorum.regenerate",
         "source.codequorum"),
        (f"Clear the 5 stored versions of `{NAME}`", "codequorum.deleteVersions",
         "source.codequorum"),
    ]
    uri = (root / "pkg" / "close.py").as_uri()
    for action in actions:
        if not action["edit"]:
            assert action["arguments"] == [{"uri": uri, "qualifiedName": NAME,
                                            "interactive": True}]

    # Compare: eglot 1.9 opens no documents, so the comparison is a message
    kind, compared = out["compared"]
    assert kind == 3  # info
    assert re.search(r"^Most different: v[1-5] against current\n    --- current$", compared,
                     re.M), compared

    # Run: the store came with the project, so the server asks; RET takes the safe answer
    [question] = out["questions"]
    assert "was not made by codequorum on this machine" in question["message"]
    assert question["actions"] == ["Not now", "Run in the sandbox"]
    assert question["answer"] == "Not now"
    kind, refused = out["refused"]
    assert kind == 2 and "were not run" in refused  # a warning
    assert not (root / ".codequorum" / "approvals.json").exists()
    assert not any("dynamic analysis of" in m for _, m in out["messages"])

    # a clean end: shutdown answered, the process exited 0 by itself, nothing on stderr
    assert out["shutdown"] == "answered"
    assert out["exit_status"] == 0
    assert "Traceback" not in out["stderr"] and "Error" not in out["stderr"], out["stderr"]
