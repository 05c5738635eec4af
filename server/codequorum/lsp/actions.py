"""Code actions: keep the recommended version, or replace a function with the consensus,
the fastest, or version k; and, for editors without code lenses, the commands.

Each edit is a WorkspaceEdit of exactly the function's range; the editor applies it only
when the user picks it. An edit keeps the user's docstring and the comments above the body
and takes the version's signature and statements (:mod:`codequorum.lsp.docstrings`);
where the version's own docstring differs, a second action right after puts the version
in as it is. A command action (kind :data:`COMMAND_KIND`) runs one command on
the function with ``interactive`` set, so the server shows what comes of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol import types

from codequorum.core.safe_text import safe_text, title_text
from codequorum.lsp import contract as c
from codequorum.lsp.diagnostics import SOURCE
from codequorum.lsp.docstrings import with_current_head
from codequorum.lsp.documents import FunctionEntry, Snapshot, reindent
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.render.findings import consensus, recommended_version

#: At most this many "Replace with version k" actions per function.
MAX_VERSION_ACTIONS = 20
#: The kind of the actions that run a command: a source action, not an edit (clients that
#: ask only for quick fixes or refactorings get none).
COMMAND_KIND = f"{types.CodeActionKind.Source.value}.codequorum"
#: What the second action of a version whose docstring differs from the user's adds.
OWN_DOCSTRING = ", with the version's own docstring"


def replacement_edit(snapshot: Snapshot, entry: FunctionEntry, code: str) -> types.WorkspaceEdit:
    """The edit that puts ``code`` in place of ``entry``, indented like it."""
    return types.WorkspaceEdit(
        changes={
            snapshot.uri: [types.TextEdit(range=entry.range, new_text=reindent(code, entry.indent))]
        }
    )


@dataclass(frozen=True)
class VersionChoices:
    """What one function's actions choose from: how many versions are stored, the current
    code's index, the recommended version, and the consensus and fastest versions with
    their labels (``(index, label)``)."""

    n_stored: int
    current: int | None = None
    keep: int | None = None
    consensus: tuple[int, str] | None = None
    fastest: tuple[int, str] | None = None


@dataclass(frozen=True)
class ActionPlan:
    """One action to offer: its title, the version it puts in place, its kind, whether
    the editor should prefer it, and whether the version comes with its own docstring
    (else with the user's)."""

    title: str
    index: int
    kind: types.CodeActionKind = types.CodeActionKind.RefactorRewrite
    preferred: bool = False
    own_docstring: bool = False


def our_diagnostics(
    qualified_name: str, diagnostics: Sequence[types.Diagnostic]
) -> list[types.Diagnostic]:
    """The diagnostics of the request that codequorum gave about this function: the
    actions that fix them say so."""
    return [
        d
        for d in diagnostics
        if d.source == SOURCE
        and isinstance(d.data, dict)
        and d.data.get("qualifiedName") == qualified_name
    ]


def _named_plans(name: str, choices: VersionChoices, fixes: bool) -> list[ActionPlan]:
    """Keep the recommended version, then the consensus (unless it is the current code or
    the recommended one), then the fastest (unless it is the current code). With
    diagnostics to fix, the first two are quick fixes and the first of them preferred."""
    kind = types.CodeActionKind.QuickFix if fixes else types.CodeActionKind.RefactorRewrite
    keep = choices.keep
    plans: list[ActionPlan] = []
    if keep is not None:
        title = f"Keep the recommended version (version {keep + 1})"
        plans.append(ActionPlan(title, keep, kind, preferred=fixes))
    if choices.consensus is not None:
        agreed, label = choices.consensus
        if agreed != choices.current and agreed != keep:
            title = f"Replace `{name}` with the consensus version ({label})"
            plans.append(ActionPlan(title, agreed, kind, preferred=fixes and keep is None))
    if choices.fastest is not None:
        fastest, label = choices.fastest
        if fastest != choices.current:
            title = f"Replace `{name}` with the fastest version ({label})"
            plans.append(ActionPlan(title, fastest))
    return plans


def planned_actions(name: str, choices: VersionChoices, fixes: bool) -> list[ActionPlan]:
    """Every action offered for a function, in order: the named versions (see
    :func:`_named_plans`), then version k for each of the first :data:`MAX_VERSION_ACTIONS`
    versions that is not the current code. ``name`` is the function's name as shown."""
    versions = [
        ActionPlan(f"Replace `{name}` with version {k + 1}", k)
        for k in range(min(choices.n_stored, MAX_VERSION_ACTIONS))
        if k != choices.current
    ]
    return [*_named_plans(name, choices, fixes), *versions]


def version_choices(analysis: FunctionAnalysis) -> VersionChoices:
    """The choices of :func:`planned_actions` read from an analysis (a consensus is a
    version that others share their shape with: one alone is no fix)."""
    agreed = consensus(analysis)
    fastest = analysis.fastest
    return VersionChoices(
        n_stored=analysis.n_stored,
        current=analysis.current_index,
        keep=recommended_version(analysis),
        consensus=None if agreed is None else (agreed, analysis.label(agreed)),
        fastest=None if fastest is None else (fastest, analysis.label(fastest)),
    )


def users_head(current: str, version: str, name: str, python: bool) -> str:
    """The version with the user's docstring and leading comments (``current``'s): what
    replacing a function with a version puts in place, here and in the editors' own
    commands (``showVersion``'s ``replacement``). Outside Python, or where either text
    cannot be split, the version as it is."""
    kept = with_current_head(current, version, name) if python else None
    return version if kept is None else kept


def docstring_choices(plan: ActionPlan, current: str, version: str, name: str,
                      python: bool) -> list[tuple[ActionPlan, str]]:
    """What one plan puts in place: the version with the user's docstring and leading
    comments (:func:`users_head`), then, where that is not the version as it is, the
    version with its own (a second plan, never preferred)."""
    kept = users_head(current, version, name, python)
    if kept.strip() == version.strip():
        return [(plan, version)]
    own = dataclasses.replace(plan, title=plan.title + OWN_DOCSTRING, preferred=False,
                              own_docstring=True)
    return [(plan, kept), (own, version)]


def _code_action(
    snapshot: Snapshot,
    entry: FunctionEntry,
    plan: ActionPlan,
    code: str,
    fixes: Sequence[types.Diagnostic],
) -> types.CodeAction:
    """The code action of one plan: an edit of exactly the function's range (its title
    drawn inert: it quotes the function's name)."""
    return types.CodeAction(
        title=title_text(plan.title),
        kind=plan.kind,
        edit=replacement_edit(snapshot, entry, code),
        diagnostics=list(fixes) or None,
        is_preferred=plan.preferred or None,
        data={"qualifiedName": entry.qualified_name, "version": plan.index,
              "docstring": "version" if plan.own_docstring else "current"},
    )


def function_actions(
    snapshot: Snapshot,
    entry: FunctionEntry,
    analysis: FunctionAnalysis,
    context_diagnostics: Sequence[types.Diagnostic] = (),
) -> list[types.CodeAction]:
    """The actions offered for one function."""
    ours = our_diagnostics(entry.qualified_name, context_diagnostics)
    name = safe_text(entry.name, 100)
    plans = planned_actions(name, version_choices(analysis), fixes=bool(ours))
    current, python = entry.dedented(), snapshot.language == "python"
    return [
        _code_action(snapshot, entry, chosen, code, ours)
        for plan in plans
        for chosen, code in docstring_choices(plan, current, analysis.code(plan.index),
                                              entry.name, python)
    ]


def lensed_commands(mode: str, client_shows_lenses: bool, lensed: frozenset[str]) -> frozenset[str]:
    """The commands a function's actions leave out, of those its lenses run (``lensed``):
    with ``codeAction.commands`` = ``auto`` in a client that draws lenses, the lenses are
    the way in to those; otherwise (``always``, or a client without lenses) none."""
    return lensed if mode == "auto" and client_shows_lenses else frozenset()


@dataclass(frozen=True)
class CommandOffer:
    """Which commands a function's actions run: it has ``stored`` versions; ``dynamic``:
    they can run (Python, dynamic analysis on, a trusted workspace); ``report``: the client
    opens documents (Show Report needs it; the hover says the rest); ``skip``: commands
    left to the function's code lenses."""

    stored: int
    dynamic: bool = False
    report: bool = False
    skip: frozenset[str] = frozenset()


def planned_commands(name: str, offer: CommandOffer) -> list[tuple[str, str]]:
    """(title, command) of each command action, in order: with versions Compare, Show
    Report, Run, Regenerate, and Clear last; without, Regenerate only; the commands in
    ``offer.skip`` left out. ``name`` is the function's name as shown."""
    if not offer.stored:
        plans = [(f"Regenerate `{name}`: ask for versions", c.RegenerateArgs.COMMAND)]
    else:
        plans = [(f"Compare the versions of `{name}`", c.CompareArgs.COMMAND)]
        if offer.report:
            plans.append((f"Show the report of `{name}`", c.AnalyzeArgs.COMMAND))
        if offer.dynamic:
            plans.append((f"Run the versions of `{name}` in the sandbox",
                          c.RunDynamicArgs.COMMAND))
        plans.append((f"Regenerate `{name}`: ask for more versions", c.RegenerateArgs.COMMAND))
        count = f"{offer.stored} stored version{'s' if offer.stored != 1 else ''}"
        plans.append((f"Clear the {count} of `{name}`", c.DeleteVersionsArgs.COMMAND))
    return [(title, command) for title, command in plans if command not in offer.skip]


def command_actions(uri: str, entry: FunctionEntry, offer: CommandOffer) -> list[types.CodeAction]:
    """The command actions of one function: each runs its command on the function, by
    name, with ``interactive`` set (titles drawn inert: they quote the function's name)."""
    arg = {"uri": uri, "qualifiedName": entry.qualified_name, "interactive": True}
    titled = [(title_text(title), command)
              for title, command in planned_commands(safe_text(entry.name, 100), offer)]
    return [
        types.CodeAction(
            title=title,
            kind=COMMAND_KIND,
            command=types.Command(title=title, command=command, arguments=[arg]),
        )
        for title, command in titled
    ]
