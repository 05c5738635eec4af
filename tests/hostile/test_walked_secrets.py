"""``check`` walks a folder the user names; a repository puts in it a link to the user's
``.env`` (``helper.py -> .env``), and its store holds versions of a function the user's own
``conf/secrets.py`` defines. A walked file is read under the workspace's one rule (the module
view's and the agents' tools'): the secret file is skipped with a note, its current code
never runs, and the other files are checked as usual."""

from __future__ import annotations

import json

from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path

from .conftest import Hostile

TOKEN = "sk-live-5e8d2b7c4a"
SECRET = f'def token(x):\n    return "{TOKEN}" + str(x)\n'
VERSIONS = ["def token(x):\n    return str(x)\n", "def token(x):\n    return repr(x)\n"]


def test_check_skips_a_walked_secret_and_runs_none_of_it(hostile: Hostile) -> None:
    hostile.write(".env", SECRET)
    hostile.write("conf/secrets.py", SECRET)
    hostile.write("app.py", "def token(x):\n    return str(x)\n")
    (hostile.repo / "helper.py").symlink_to(hostile.repo / ".env")
    with VersionStore.open(default_store_path(hostile.repo)) as store:
        for key in ("helper.py", "conf/secrets.py", "app.py"):
            store.add(key, "python", "token", [Version(code=c) for c in VERSIONS])
    result = hostile.run("check", ".", "--dynamic", "--format", "json", "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout and TOKEN not in result.stderr
    doc = json.loads(result.stdout)
    assert {f["path"] for f in doc["findings"]} <= {"app.py"}
    assert doc["summary"]["functions_checked"] == 1, doc["summary"]
    notes = " ".join(doc["notes"])
    assert "helper.py: a hidden file" in notes and "conf/secrets.py: a file or folder" in notes
    assert not hostile.marker.exists()
    named = hostile.run("check", "conf/secrets.py", "--format", "json", "--fail-on", "never")
    assert json.loads(named.stdout)["summary"]["functions_checked"] == 1  # the user's choice
