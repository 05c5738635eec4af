"""Which code actions a function gets, decided from plain indices and labels."""

from __future__ import annotations

from lsprotocol import types

from codequorum.lsp.actions import (
    MAX_VERSION_ACTIONS,
    ActionPlan,
    VersionChoices,
    our_diagnostics,
    planned_actions,
)

QUICK = types.CodeActionKind.QuickFix
REWRITE = types.CodeActionKind.RefactorRewrite


def test_recommended_then_consensus_then_fastest_then_each_other_version() -> None:
    choices = VersionChoices(
        n_stored=3, current=3, keep=1, consensus=(0, "v1"), fastest=(2, "v3")
    )
    assert planned_actions("f", choices, fixes=True) == [
        ActionPlan("Keep the recommended version (version 2)", 1, QUICK, preferred=True),
        ActionPlan("Replace `f` with the consensus version (v1)", 0, QUICK),
        ActionPlan("Replace `f` with the fastest version (v3)", 2),
        ActionPlan("Replace `f` with version 1", 0),
        ActionPlan("Replace `f` with version 2", 1),
        ActionPlan("Replace `f` with version 3", 2),
    ]


def test_without_diagnostics_nothing_is_a_quick_fix_or_preferred() -> None:
    choices = VersionChoices(n_stored=1, current=None, consensus=(0, "v1"))
    assert planned_actions("f", choices, fixes=False)[0] == ActionPlan(
        "Replace `f` with the consensus version (v1)", 0, REWRITE, preferred=False
    )


def test_the_consensus_is_preferred_when_nothing_is_recommended() -> None:
    choices = VersionChoices(n_stored=2, current=2, consensus=(1, "v2"))
    [first, *_] = planned_actions("f", choices, fixes=True)
    assert first == ActionPlan("Replace `f` with the consensus version (v2)", 1, QUICK, True)


def test_no_action_puts_the_current_code_or_the_recommended_version_twice() -> None:
    choices = VersionChoices(n_stored=3, current=0, keep=1, consensus=(1, "v2"), fastest=(0, "v1"))
    titles = [plan.title for plan in planned_actions("f", choices, fixes=False)]
    assert titles == [
        "Keep the recommended version (version 2)",
        "Replace `f` with version 2",
        "Replace `f` with version 3",
    ]
    alone = VersionChoices(n_stored=2, current=0, consensus=(0, "current"))
    assert [p.index for p in planned_actions("f", alone, fixes=True)] == [1]


def test_at_most_so_many_version_actions() -> None:
    plans = planned_actions("f", VersionChoices(n_stored=MAX_VERSION_ACTIONS + 5), fixes=False)
    assert len(plans) == MAX_VERSION_ACTIONS
    assert plans[-1].title == f"Replace `f` with version {MAX_VERSION_ACTIONS}"


def _diagnostic(source: str, data: object) -> types.Diagnostic:
    zero = types.Position(line=0, character=0)
    return types.Diagnostic(
        range=types.Range(start=zero, end=zero), message="m", source=source, data=data
    )


def test_only_our_diagnostics_about_this_function_are_fixed() -> None:
    ours = _diagnostic("codequorum", {"qualifiedName": "Shape.area"})
    others = [
        _diagnostic("codequorum", {"qualifiedName": "Shape.volume"}),
        _diagnostic("pyright", {"qualifiedName": "Shape.area"}),
        _diagnostic("codequorum", None),
    ]
    assert our_diagnostics("Shape.area", [*others, ours]) == [ours]
    assert our_diagnostics("Shape.area", others) == []
