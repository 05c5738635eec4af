"""A sample-set file from a repository names where its function lives (``file`` and
``qualified_name``, as ``export`` writes them), and ``score --dynamic`` rebuilds that module
in the workspace it runs in, so the versions run in it and may return what it holds. The
file named must follow the workspace's one rule: a hidden file, one named like a secret, or
a link to either is never read, and the set runs without its module, saying why."""

from __future__ import annotations

from pathlib import Path

import pytest

from codequorum.core.model import FunctionLocation, VersionSet
from codequorum.pipeline.score import in_module

KEY = "sk-live-7f3e9a"
#: A module the user keeps out of git, with a function a repository can guess.
SECRET_MODULE = f'API_KEY = "{KEY}"\n\n\ndef get():\n    return API_KEY\n'


def _set(file: str) -> VersionSet:
    version_set = VersionSet.from_codes("t/0", ["def get():\n    return API_KEY\n"] * 2,
                                        language="python", entry_point="get")
    version_set.location = FunctionLocation(file, "get")
    return version_set


@pytest.mark.parametrize(("file", "why"), [
    ("conf/secrets.py", "looks like it holds secrets"),
    (".private/keys.py", "hidden"),
    ("app.py", "hidden"),                     # app.py -> .private/keys.py
    ("linked/keys.py", "hidden"),             # linked -> .private
    ("settings.py", "looks like it holds secrets"),  # settings.py -> conf/secrets.py
])
def test_score_never_builds_a_module_from_a_hidden_or_secret_file(
        tmp_path: Path, file: str, why: str) -> None:
    ws = tmp_path / "ws"
    for place in ("conf/secrets.py", ".private/keys.py"):
        (ws / place).parent.mkdir(parents=True, exist_ok=True)
        (ws / place).write_text(SECRET_MODULE, encoding="utf-8")
    (ws / "app.py").symlink_to(ws / ".private" / "keys.py")
    (ws / "linked").symlink_to(ws / ".private")
    (ws / "settings.py").symlink_to(ws / "conf" / "secrets.py")
    placed, without = in_module(_set(file), ws)
    assert placed.module is None
    assert without is not None and why in without, without
    assert KEY not in without


def test_score_still_builds_the_module_of_an_ordinary_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "conf.py").write_text(SECRET_MODULE.replace(KEY, "not-a-key"), encoding="utf-8")
    (ws / "alias.py").symlink_to(ws / "conf.py")
    for file in ("conf.py", "alias.py"):
        placed, without = in_module(_set(file), ws)
        assert without is None and placed.module is not None
        assert any("not-a-key" in text for _name, text in placed.module.files)
