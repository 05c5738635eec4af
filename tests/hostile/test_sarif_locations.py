"""A file name a repository chooses, written where SARIF wants a URI: a relative reference,
never a scheme (``javascript:``), a host (``//server/share``), a query or a fragment that a
code-scanning viewer would follow."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from codequorum.core.model import Version
from codequorum.core.safe_text import uri_reference
from codequorum.ingest.store import VersionStore, default_store_path

from ._pathological import run_cli
from .test_inert_names import VERSIONS

NAMES = ["javascript:alert(1).js", "data:text,x#y?.js", "lib\x1b]0;pwned\x07 %2e%2e.js",
         "c\u202egnp.js"]
SOURCE = "function f(items) {\n  return items.length;\n}\n"


def test_sarif_locations_of_hostile_file_names_are_relative_references(
        tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    with VersionStore.open(default_store_path(root)) as store:
        for name in NAMES:
            (root / name).write_text(SOURCE, encoding="utf-8")
            store.add(name, "javascript", "f", [Version(code=c) for c in VERSIONS])
    run = run_cli(["check", str(root), "--format", "sarif", "--fail-on", "never"])
    assert run.status == 0, run.err
    results = json.loads(run.out)["runs"][0]["results"]
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in results for loc in r["locations"]]
    assert len({unquote(u).rsplit("/", 1)[-1] for u in uris}) == len(NAMES), uris
    for uri in uris:
        parts = urlsplit(uri)
        assert (parts.scheme, parts.netloc, parts.query, parts.fragment) == ("", "", "", ""), uri
        assert uri.isascii() and uri.isprintable(), uri
        assert unquote(uri).rsplit("/", 1)[-1] in NAMES  # the name itself, readable


@pytest.mark.parametrize(("path", "expected"), [
    ("javascript:alert(1).py", "javascript%3Aalert%281%29.py"),
    ("//server/share/x.py", "/server/share/x.py"),
    ("src/a b#c?.py", "src/a%20b%23c%3F.py"),
    ("src/mod.py", "src/mod.py"),
    ("\\\\?\\C:\\x.py", "%5C%5C%3F%5CC%3A%5Cx.py"),
])
def test_uri_reference_encodes_what_a_viewer_would_follow(path: str, expected: str) -> None:
    assert uri_reference(path) == expected
