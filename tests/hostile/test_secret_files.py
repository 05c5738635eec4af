"""Files a user keeps in a project folder, out of git, that hold keys: ``config/master.key``,
``server.pem``, ``terraform.tfstate``, an SSH key. A repository's module names them as its
package data (or links to them), and a version reads them in the sandbox: ``check --dynamic``
and the agents' tool never show the key, and the run goes on."""

from __future__ import annotations

import json

import pytest

from ..agents.conftest import call, mcp_session, text_of
from .conftest import Hostile

KEY = "sk-live-4b1d6e0a9c"
#: The module names its "package data": the user's key files beside it.
APP = '''import os

HERE = os.path.dirname(__file__)


def load(name):
    return open(os.path.join(HERE, name)).read()


KEYS = [load(n) for n in ("master.key", "server.pem", "terraform.tfstate", "id_rsa")]


def read(x: int) -> str:
    """The text of x.

    >>> read(1)
    '1'
    """
    return str(x)
'''
FILES = ["master.key", "server.pem", "terraform.tfstate", "id_rsa", "linked.txt"]


def _repository(hostile: Hostile) -> None:
    for name in FILES[:-1]:
        hostile.write(f"config/{name}", f"{KEY}\n")
    hostile.write("config/__init__.py", "")
    hostile.write("config/app.py", APP)
    (hostile.repo / "config" / "linked.txt").symlink_to(hostile.repo / "config" / "master.key")
    reads = [f"def read(x: int) -> str:\n    try:\n        return open('/workspace/config/"
             f"{name}').read() + str(x)\n    except OSError:\n        return str(x)\n"
             for name in FILES]
    source = hostile.home.parent / "versions.json"
    source.write_text(json.dumps([*reads, "def read(x: int) -> str:\n    return str(x)\n"]),
                      encoding="utf-8")
    result = hostile.run("sample", "config/app.py", "-f", "read", "--from", str(source))
    assert result.returncode == 0, result.stderr


def test_check_dynamic_never_shows_a_key_file_of_the_project(hostile: Hostile) -> None:
    _repository(hostile)
    result = hostile.run("check", "config/app.py", "--dynamic", "--format", "json",
                         "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    assert KEY not in result.stdout and KEY not in result.stderr
    assert json.loads(result.stdout)["summary"]["functions_checked"] == 1
    assert not hostile.marker.exists()


@pytest.mark.parametrize("dynamic", [False, True])
async def test_the_agents_tool_never_shows_a_key_file_of_the_project(hostile: Hostile,
                                                                     dynamic: bool) -> None:
    _repository(hostile)
    async with mcp_session(hostile.repo) as session:
        for name in FILES:
            refused = await call(session, "check_function",
                                 {"path": f"config/{name}", "function": "read"})
            assert refused.is_error and KEY not in text_of(refused)
        result = await call(session, "check_function",
                            {"path": "config/app.py", "function": "read", "dynamic": dynamic})
        assert not result.is_error, text_of(result)
        assert KEY not in text_of(result) and KEY not in json.dumps(result.structured_content)
