"""Which code actions a function gets, decided from plain indices and labels."""

from __future__ import annotations

from lsprotocol import types

from codequorum.lsp.actions import (
    COMMAND_KIND,
    MAX_VERSION_ACTIONS,
    ActionPlan,
    CommandOffer,
    VersionChoices,
    command_actions,
    docstring_choices,
    lensed_commands,
    our_diagnostics,
    planned_actions,
    planned_commands,
)
from codequorum.lsp.documents import FunctionEntry

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


def test_commands_a_lens_runs_are_left_to_it_where_lenses_show() -> None:
    lensed = frozenset({"codequorum.compare", "codequorum.regenerate"})
    assert lensed_commands("auto", True, lensed) == lensed
    assert lensed_commands("auto", False, lensed) == frozenset()
    assert lensed_commands("always", True, lensed) == frozenset()
    # with lenses, what no lens runs is still an action: Run and Clear
    offer = CommandOffer(stored=2, dynamic=True, report=True,
                         skip=frozenset({"codequorum.analyze", *lensed}))
    assert [cmd for _, cmd in planned_commands("f", offer)] == [
        "codequorum.runDynamic", "codequorum.deleteVersions"]


def test_commands_offered_for_a_function_with_versions_and_without() -> None:
    assert planned_commands("f", CommandOffer(stored=0, dynamic=True, report=True)) == [
        ("Regenerate `f`: ask for versions", "codequorum.regenerate"),
    ]
    assert planned_commands("f", CommandOffer(stored=3, dynamic=True, report=True)) == [
        ("Compare the versions of `f`", "codequorum.compare"),
        ("Show the report of `f`", "codequorum.analyze"),
        ("Run the versions of `f` in the sandbox", "codequorum.runDynamic"),
        ("Regenerate `f`: ask for more versions", "codequorum.regenerate"),
        ("Clear the 3 stored versions of `f`", "codequorum.deleteVersions"),
    ]
    # no sandboxed runs (not Python, off, untrusted) and a client that opens no documents
    assert [t for t, _ in planned_commands("f", CommandOffer(stored=1))] == [
        "Compare the versions of `f`",
        "Regenerate `f`: ask for more versions",
        "Clear the 1 stored version of `f`",
    ]


def test_a_command_action_runs_its_command_on_the_function_by_name_interactively() -> None:
    entry = FunctionEntry(
        qualified_name="Shape.area",
        name="area\u202e",
        range=types.Range(start=types.Position(line=1, character=4),
                          end=types.Position(line=2, character=20)),
        name_range=types.Range(start=types.Position(line=1, character=8),
                               end=types.Position(line=1, character=12)),
        indent="    ",
        info=None,
    )
    [action] = command_actions("file:///s.py", entry, CommandOffer(stored=0))
    assert action.kind == COMMAND_KIND == "source.codequorum"
    assert action.edit is None
    assert action.title == "Regenerate `area\\u202e`: ask for versions"  # escaped name
    assert action.command is not None
    assert action.command.command == "codequorum.regenerate"
    assert action.command.arguments == [
        {"uri": "file:///s.py", "qualifiedName": "Shape.area", "interactive": True}
    ]


MINE = 'def f(x):\n    """Add one.\n\n    >>> f(1)\n    2\n    """\n    return x + 1\n'
THEIRS = 'def f(x):\n    """Increment."""\n    y = x + 1\n    return y\n'


def test_an_edit_keeps_the_users_docstring_and_offers_the_versions_own_second() -> None:
    plan = ActionPlan("Keep the recommended version (version 2)", 1, QUICK, preferred=True)
    assert docstring_choices(plan, MINE, THEIRS, "f", python=True) == [
        (plan, 'def f(x):\n    """Add one.\n\n    >>> f(1)\n    2\n    """\n'
               "    y = x + 1\n    return y\n"),
        (ActionPlan("Keep the recommended version (version 2), with the version's own "
                    "docstring", 1, QUICK, preferred=False, own_docstring=True), THEIRS),
    ]


def test_one_edit_where_the_docstrings_agree_or_nothing_can_be_split() -> None:
    plan = ActionPlan("Replace `f` with version 1", 0)
    same = 'def f(x):\n    """Add one.\n\n    >>> f(1)\n    2\n    """\n    return 1 + x\n'
    assert docstring_choices(plan, MINE, same, "f", python=True) == [(plan, same)]
    assert docstring_choices(plan, MINE, THEIRS, "f", python=False) == [(plan, THEIRS)]
    broken = "def f(x) return x\n"
    assert docstring_choices(plan, MINE, broken, "f", python=True) == [(plan, broken)]
