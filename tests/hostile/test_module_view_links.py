"""A repository's links into its secrets, reached through a function's module: ``helper.py ->
.env``, ``conf/__init__.py -> .git/config``, a folder linked to ``.git``. A version that reads
the file from the sandbox's view of the workspace, run by ``check --dynamic`` or by the
agents' tools, never sees the secret: the token is in no output, and the run goes on."""

from __future__ import annotations

import json

import pytest

from codequorum.core import run_seal

from ..agents.conftest import call, mcp_session, one_line_error, server_env, text_of
from .conftest import Hostile

TOKEN = "sk-live-7f3a9c1e5b"
#: The module: its imports (inside a function, so the module itself loads) name the links.
APP = '''def load():
    import helper
    import conf
    from lib import settings
    return helper, conf, settings


def read(x: int) -> str:
    """The text of x.

    >>> read(1)
    '1'
    """
    return str(x)
'''
#: (the link, where it leads, the file a version opens in the view)
LINKS = {
    "a module linked to .env": ("helper.py", ".env", "helper.py"),
    "a package linked to .git/config": ("conf/__init__.py", ".git/config", "conf/__init__.py"),
    "a folder linked to .git": ("lib", ".git", "lib/settings.py"),
}


def _repository(hostile: Hostile, link: str, target: str) -> None:
    """The repository: its secrets, the link, ``app.py`` and a version per file read."""
    hostile.write(".env", f"API_TOKEN={TOKEN}\n")
    hostile.write(".git/config", f"[remote \"origin\"]\n\turl = https://x:{TOKEN}@example\n")
    hostile.write(".git/settings.py", f"TOKEN = '{TOKEN}'\n")
    hostile.write("app.py", APP)
    path = hostile.repo / link
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(hostile.repo / target, target_is_directory=(link == "lib"))


def _versions(opened: str) -> list[str]:
    reads = f"def read(x: int) -> str:\n    return open('/workspace/{opened}').read() + str(x)\n"
    return [reads, "def read(x: int) -> str:\n    return str(x)\n",
            "def read(x: int) -> str:\n    return '%d' % x\n"]


def _store(hostile: Hostile, codes: list[str]) -> None:
    source = hostile.home.parent / "versions.json"
    source.write_text(json.dumps(codes), encoding="utf-8")
    result = hostile.run("sample", "app.py", "-f", "read", "--from", str(source))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("case", list(LINKS))
def test_check_dynamic_never_shows_a_secret_a_link_in_the_module_view_leads_to(
        hostile: Hostile, case: str) -> None:
    link, target, opened = LINKS[case]
    _repository(hostile, link, target)
    _store(hostile, _versions(opened))
    before = hostile.home_snapshot()
    result = hostile.run("check", "app.py", "--dynamic", "--no-tsed", "--timeout", "5",
                         "--format", "json", "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout + result.stderr
    doc = json.loads(result.stdout)
    assert [f["function"] for f in doc["functions"]] == ["read"]  # the run went on
    after = hostile.home_snapshot()  # the key that seals the runs remembered is the user's
    assert after.pop(f".config/codequorum/{run_seal.KEY_NAME}", None) is not None
    assert after == before
    assert not hostile.marker.exists()


async def test_the_agents_tools_refuse_the_links_and_never_show_the_secret(
        hostile: Hostile) -> None:
    for link, target, _opened in LINKS.values():
        _repository(hostile, link, target)
    (hostile.repo / "main.py").symlink_to(hostile.repo / ".env")
    _store(hostile, _versions("helper.py"))
    env = server_env(HOME=str(hostile.home), XDG_CONFIG_HOME=str(hostile.home / ".config"))
    async with mcp_session(hostile.repo, env=env) as session:
        for path in ("helper.py", "conf/__init__.py", "lib/settings.py", "main.py", ".env"):
            refused = one_line_error(await call(session, "check_function",
                                                {"path": path, "function": "read"}))
            assert "hidden file or folder" in refused and TOKEN not in refused, refused
        ran = await call(session, "check_function", {"path": "app.py", "function": "read",
                                                     "dynamic": True})
        shown = text_of(ran) + json.dumps(ran.structured_content)
        assert not ran.is_error, shown
        assert TOKEN not in shown
        assert ran.structured_content is not None
        assert ran.structured_content["versions"] == 3  # the server still answers
