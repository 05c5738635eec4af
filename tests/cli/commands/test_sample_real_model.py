"""`codequorum sample` at its defaults against a real local model (llama-cpp-python's server
with SmolLM2-135M-Instruct, which answers one request at a time)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from codequorum.cli.main import main
from codequorum.core.parsing import function_by_name
from codequorum.generate.endpoint import ERROR_WORDS, REJECTION_WORDS, answer_budget
from codequorum.ingest.store import VersionStore
from tests.support.real_model import MODEL, RecordingProxy

pytestmark = pytest.mark.real_model

SOURCE = '''"""Small numeric helpers."""

import math


def add(a: int, b: int) -> int:
    """Return the sum of a and b.

    >>> add(2, 3)
    5
    """
    return a + b


def circle_area(radius: float) -> float:
    """Area of a circle with the given radius."""
    return math.pi * radius ** 2
'''

SUMMARY = re.compile(r"^(\d+) of 5 versions accepted(?:; (.*))?; (?:`add` now has|nothing stored)",
                     re.MULTILINE)


def counted(failures: str | None) -> int:
    """The failures a summary counts, every part of it a known kind."""
    total = 0
    words = [*ERROR_WORDS.values(), *(w for pair in REJECTION_WORDS.values() for w in pair)]
    for part in (failures or "").split(", ") if failures else []:
        number, _, what = part.partition(" ")
        assert what in words or what.startswith("refused: HTTP "), part
        total += int(number)
    return total


def test_sample_at_the_defaults_asks_one_at_a_time_with_a_token_bound(
    real_model_proxy: RecordingProxy, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    source = ws / "numbers.py"
    source.write_text(SOURCE)
    code = main(["sample", str(source), "-f", "add", "--base-url", real_model_proxy.base_url,
                 "--model", MODEL, "--api-key-env", "", "--seed", "1"])
    out = capsys.readouterr().out

    # Five requests, one after the other, each with the token bound of `add`'s size.
    requests = real_model_proxy.chat_requests
    assert len(requests) == 5, out
    info = function_by_name(SOURCE, "python", "add")
    assert info is not None
    budget = answer_budget(info.text)
    assert {r.body["max_tokens"] for r in requests} == {budget}
    assert f"at most {budget:,} tokens each" in out
    assert [r.body["seed"] for r in requests] == [1, 2, 3, 4, 5]
    # Each request goes out when the one before it was answered (or timed out after the
    # default 60 s; the server is then still busy with it, so only then are two in flight).
    assert all(b.started >= min(a.ended, a.started + 60) - 0.1
               for a, b in itertools.pairwise(requests))
    if "timed out" not in out:
        assert real_model_proxy.max_in_flight == 1

    # Every answer came back and is counted: accepted, or a failure of a known kind.
    match = SUMMARY.search(out)
    assert match is not None, out
    accepted, failures = int(match.group(1)), match.group(2)
    assert accepted + counted(failures) == 5
    assert "could not connect" not in out and "refused" not in out

    # The accepted versions are stored with where they came from.
    assert code == 0 and accepted >= 1, out
    with VersionStore.open(ws / ".codequorum" / "samples.sqlite3") as store:
        rows = store.versions_for("numbers.py", "add")
    assert len(rows) == accepted
    assert {(r.origin, r.provider, r.model) for r in rows} == {
        ("regenerated", real_model_proxy.base_url, MODEL)}
    assert all(r.code.startswith("def add(") for r in rows)
