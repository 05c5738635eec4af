"""A run ``codequorum check --dynamic`` made shows in the editor from its first hover: no
answer of the server calls the function "not run yet" while that run is remembered."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from codequorum.lsp.hover import COMPUTING
from codequorum.lsp.lenses import COMPUTING_TITLE

from .conftest import config_home, lsp_session
from .helpers import NO_AUTORUN, code_lenses, hover_once, open_document, position_of

SCRIPT = Path(sys.executable).parent / "codequorum"

CLAMP = '''def clamp(x):
    """x, between 0 and 10.

    >>> clamp(12)
    10
    >>> clamp(-3)
    0
    """
    return max(0, min(x, 10))
'''

#: The module: clamp after many helpers, so reading its module view takes a while.
MODULE = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(400)) + CLAMP

VERSIONS = ["def clamp(x):\n    return max(0, min(x, 10))\n",
            "def clamp(x):\n    return 0 if x < 0 else 10 if x > 10 else x\n",
            "def clamp(x):\n    return min(x, 10)\n"]


def _check_dynamic(root: Path) -> None:
    """Store the versions and run them with ``check --dynamic`` as the editor's user."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(config_home(root))}
    (root / "v.json").write_text(json.dumps(VERSIONS))
    for argv in (["sample", "mod.py", "-f", "clamp", "--from", "v.json", "-q"],
                 ["check", "mod.py", "--dynamic", "--no-tsed", "--fail-on", "never", "-q"]):
        subprocess.run([str(SCRIPT), *argv], cwd=root, env=env, check=True, timeout=300,
                       capture_output=True)


async def test_the_first_hover_and_lens_show_the_remembered_run(workspace: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / "mod.py").write_text(MODULE)
    _check_dynamic(workspace)
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, workspace / "mod.py", MODULE)
        pos = position_of(MODULE, "def clamp(", 4)
        answers: list[str] = []
        for _ in range(400):  # every answer until the analysis is done
            text = await hover_once(client, uri, pos) or ""
            answers.append(text)
            if COMPUTING not in text:
                break
            await asyncio.sleep(0.01)
        assert all("not run yet" not in text for text in answers), answers[-1]
        assert "divergent-outputs" in answers[-1] and "on clamp(-3)" in answers[-1]
        lenses = await code_lenses(client, uri)
        titles = [lens.command.title for lens in lenses if lens.command]
        assert COMPUTING_TITLE not in titles
        assert not any("not run yet" in title for title in titles), titles
