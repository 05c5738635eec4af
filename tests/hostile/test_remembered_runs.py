"""A store that came with a repository may hold runs nobody here made: rows of its ``runs``
table, keyed as codequorum keys a run of the same versions in the same module, saying what
the repository likes (every version agrees, the one to keep is likely right). A remembered
run is shown only when it bears the seal of the user's own key (``core/run_seal.py``):
``check``, the agents' tools and the editor ignore any other, in a store the user approved
too (a later pull may replace an approved store), and still show the user's own runs."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from codequorum.behaviour import run_record
from codequorum.behaviour.dynamic_analysis import CandidateDynamic, DynamicReport, RuleFigures
from codequorum.core import parsing, run_seal
from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore
from codequorum.options.approvals import APPROVALS_NAME, Approvals
from codequorum.pipeline.session import Session, SessionConfig

from ..agents.conftest import call, mcp_session
from .conftest import Hostile

SOURCE = "def total(xs):\n    return sum(x for x in xs)\n"
VERSIONS = ["def total(xs):\n    return sum(xs)\n",
            "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n",
            "def total(xs):\n    return -1\n"]


def _forged(count: int) -> DynamicReport:
    """A run in which every version returned the same on every input."""
    rules = RuleFigures(divergence=None, input_label="total([1])", input_source="doctest",
                        traced=0, sctd_jsd=0.0, dctd_jsd=0.0, oer_threshold=1.0,
                        growth_outlier_delta=0.6, bef_low=0.1, bef_high=1000.0)
    return DynamicReport(
        task_id="m.py::total", summary={"oer": 0.0, "inputs": 1.0},
        candidates=[CandidateDynamic(i, "ok", "", None, 0, 0, "returned", None, [], None,
                                     5.0, 9) for i in range(count)],
        rules=rules, fastest=None, layers=[], inputs_source=["doctest"],
        inputs=[{"source": "doctest", "label": "total([1])", "graded": False,
                 "checked": False, "size": None}],
        outcomes=[[("1", None, None)] for _ in range(count)],
        passes=[[None] for _ in range(count)], output_clusters=[list(range(count))])


def _repository(hostile: Hostile, seal_key: bytes) -> Path:
    """The repository's module, its store of versions and a run of them that every version
    agrees on, sealed with ``seal_key``."""
    hostile.write("m.py", SOURCE)
    store_path = hostile.repo / ".codequorum" / "samples.sqlite3"
    session = Session(lambda _level, _message: None, SessionConfig(store=str(store_path)))
    session.reconfigure(session.config, str(hostile.repo))
    session.add_sync("m.py", "python", "total", [Version(code=v) for v in VERSIONS])
    info = parsing.function_by_name(SOURCE, "python", "total")
    prepared = session.prepare(SOURCE, hostile.repo / "m.py", "python", info)
    assert prepared is not None
    codes = prepared.analysis.version_set.codes
    module = session.module_context(SOURCE, hostile.repo / "m.py", "total")
    key = run_record.run_key(codes, module, session.run_options(False))
    store = session.store()
    assert store is not None
    store.put_run("m.py", "total", key,
                  run_record.encode(_forged(len(codes)), key, seal_key) or "",
                  run_record.versions_key(codes))
    session.close()
    return store_path


def _checked(hostile: Hostile) -> dict[str, object]:
    result = hostile.run("check", "m.py", "--format", "json", "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    (function,) = json.loads(result.stdout)["functions"]
    assert isinstance(function, dict)
    return function


def _approve(store_path: Path, config: Path) -> None:
    with VersionStore.open(store_path, roots=[store_path.parent.parent]) as store:
        store_id = store.store_id
    Approvals(config / APPROVALS_NAME).approve_store(store_path.resolve(), store_id)


def test_check_shows_no_run_a_repositorys_store_claims(hostile: Hostile) -> None:
    config = hostile.home / ".config" / "codequorum"
    store_path = _repository(hostile, secrets.token_bytes(32))  # not the user's key
    assert _checked(hostile)["risk"] is None
    _approve(store_path, config)  # approved, or replaced by a pull after it was
    assert _checked(hostile)["risk"] is None
    assert not (config / run_seal.KEY_NAME).exists()  # reading made no key


def test_check_shows_the_users_own_remembered_run(hostile: Hostile) -> None:
    key = run_seal.seal_key(hostile.home / ".config" / "codequorum")
    assert key is not None
    _repository(hostile, key)
    assert _checked(hostile)["risk"] is not None  # sealed by the user: its run counts


async def test_the_agents_tool_shows_no_run_a_repositorys_store_claims(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    config = hostile.home / ".config" / "codequorum"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config.parent))
    risks = []
    for key in (secrets.token_bytes(32), run_seal.seal_key()):
        assert key is not None
        store_path = _repository(hostile, key)
        _approve(store_path, config)
        async with mcp_session(hostile.repo) as session:
            result = await call(session, "check_function", {"path": "m.py",
                                                            "function": "total"})
        assert not result.is_error and result.structured_content is not None
        risks.append((result.structured_content.get("recommendation") or {}).get("risk"))
        store_path.unlink()
    assert risks[0] is None and risks[1] is not None, risks  # the user's own run counts
