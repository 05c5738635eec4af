"""A version store that comes with a repository names the files ``export`` reads the
current code from: ``.env``, a link ``helper.py -> .env``, a key file, a file outside. Each is
read under the workspace's one rule (the module view's and the agents' tools'), so its
text never reaches the export; the other functions are exported as usual."""

from __future__ import annotations

import json
import sqlite3

import pytest

from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path

from .conftest import Hostile

TOKEN = "sk-live-0c9e2f7a1d"
#: A function the secret files hold, so a read would export their text as current code.
SECRET = f'def token():\n    return "{TOKEN}"\n'
KEYS = {
    "a hidden file": ".env",
    "a link to a hidden file": "helper.py",
    "a key file": "config/master.key",
    "a secret-looking module": "conf/secrets.py",
    "a link out of the workspace": "outside.py",
}


@pytest.mark.parametrize("case", list(KEYS))
def test_export_reads_no_secret_a_stored_key_names(hostile: Hostile, case: str) -> None:
    hostile.write(".env", SECRET)
    hostile.write("config/master.key", SECRET)
    hostile.write("conf/secrets.py", SECRET)
    (hostile.home / "token.py").write_text(SECRET, encoding="utf-8")
    (hostile.repo / "helper.py").symlink_to(hostile.repo / ".env")
    (hostile.repo / "outside.py").symlink_to(hostile.home / "token.py")
    hostile.write("app.py", "def token():\n    return 1\n")
    store = default_store_path(hostile.repo)
    with VersionStore.open(store) as opened:
        for key in (KEYS[case], "app.py"):
            opened.add(key, "python", "token", [Version(code=c) for c in (
                "def token():\n    return 2\n", "def token():\n    return 3\n")])
    before = hostile.home_snapshot()
    result = hostile.run("export")
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout and TOKEN not in result.stderr
    rows = {row["file"]: row for row in map(json.loads, result.stdout.splitlines())}
    assert set(rows) == {KEYS[case], "app.py"}
    assert rows["app.py"]["prompt"] == "def token():\n    return 1\n"  # the others as usual
    assert "prompt" not in rows[KEYS[case]]
    assert f"{KEYS[case]}: " in result.stderr  # said, once, naming the key
    assert hostile.home_snapshot() == before and not hostile.marker.exists()
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 4
    db.close()
