"""The version to keep, from the editor: hover lines and the code action after a run."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from codequorum.judge.risk import LEVELS
from codequorum.lsp.markdown import md_text

from .conftest import lsp_session
from .helpers import (
    NO_AUTORUN,
    actions_at,
    apply_edits,
    command,
    hover_text,
    open_document,
    position_of,
    wait_for,
)

DOC = '''def double(x: int) -> int:
    """Twice x.

    >>> double(3)
    6
    """
    return x + 2
'''
VERSIONS = [
    "def double(x: int) -> int:\n    return x * 2\n",
    "def double(x: int) -> int:\n    return float(x * 2)\n",  # 6.0 == 6: the same value
    "def double(x: int) -> int:\n    return x << 1\n",
]


async def test_hover_and_action_keep_the_version_the_others_agree_with(workspace: Path) -> None:
    # runs only when asked: a run on arrival of the versions would make the ask "already running"
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, workspace / "double.py", DOC)
        await command(client, "codequorum.addVersions", uri, "double", VERSIONS)
        pos = position_of(DOC, "double")
        started = await command(client, "codequorum.runDynamic", uri, pos)
        assert started["started"] is True
        token = started["token"]
        await wait_for(
            lambda: any(getattr(v, "kind", "") == "end" for v in client.progress_reports[token]),
            timeout=120,
        )
        answer = await command(client, "codequorum.analyze", uri, "double")
        report = answer["report"]
        rec = report["recommended"]
        assert report["recommended_by"] == "behaviour"
        # the three stored versions agree on the example and small values; on a huge int
        # (an edge value of its type) ``float(x * 2)`` loses digits: versions 1 and 3 are kept
        assert rec in (0, 2)
        inputs = report["dynamic"]["inputs"]
        n_inputs = sum(1 for i in inputs if i["source"] not in ("tests", "humaneval"))
        # the current code (version 4) fails the docstring's example; the stored ones pass it
        assert report["recommendation"] == (
            f"keep version {rec + 1}: passes the docstring example; 2 of 4 versions agree "
            f"with it on {n_inputs} inputs"
        )
        assert report["dynamic"]["passes"][3][inputs.index(
            next(i for i in inputs if i["source"] == "doctest"))] is False
        doctest = next(i["label"] for i in inputs if i["source"] == "doctest")
        shown = "6"
        # and the stored version that parts only on the huge int is named with that input
        assert answer["evidence"] == (
            f"on {doctest} (from the docstring's example) version {rec + 1} returns {shown}; "
            "the current code returns 5; version 2 parts from it too: on "
            "double(18446744073709551617) (an edge value of its type) it returns "
            f"3.6893488147419103e+19 where version {rec + 1} returns 36893488147419103234"
        )

        text = await hover_text(client, uri, pos)
        assert text is not None
        assert (f"- keep version {rec + 1}: passes the docstring example; 2 of 4 versions "
                "agree with it") in text
        assert 0 < report["risk"] < 1 and report["risk_level"] in LEVELS
        assert report["trust"].startswith(f"{report['risk_level']}: ")
        assert f"- {md_text(report['trust'])}\n" in text
        assert f"returns {shown}; the current code returns 5" in text

        actions = await actions_at(client, uri, pos)
        assert actions is not None
        keep = actions[0]
        assert isinstance(keep, types.CodeAction)
        assert keep.title == f"Keep the recommended version (version {rec + 1})"
        assert keep.edit is not None and keep.edit.changes is not None
        [edit] = keep.edit.changes[uri]
        # the user's docstring and its example stay; the version's body comes in
        body = VERSIONS[rec].split("\n", 1)[1]
        assert apply_edits(DOC, [edit]) == DOC[: DOC.index("    return")] + body
        own = actions[1]
        assert isinstance(own, types.CodeAction) and own.edit and own.edit.changes
        assert own.title == keep.title + ", with the version's own docstring"
        assert apply_edits(DOC, list(own.edit.changes[uri])) == VERSIONS[rec]
