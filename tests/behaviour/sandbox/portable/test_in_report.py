"""The portable level seen through the dynamic analysis: a module the guest cannot load,
an example needing what the guest does not give."""

from __future__ import annotations

from pathlib import Path

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.sandbox.isolation import PORTABLE_NOTE
from codequorum.behaviour.sandbox.portable.unsupported import NOT_SUPPORTED
from codequorum.core.model import VersionSet
from codequorum.judge.dynamic_rules import dynamic_verdicts
from tests.behaviour.test_dynamic_analysis import DURATIONS, in_module
from tests.support.duration_module import standalone


def test_versions_that_need_a_module_the_guest_cannot_load_get_no_verdict(
        tmp_path: Path) -> None:
    source = standalone().replace("import re\n", "import re\nimport numpy\n")
    report = run_dynamic(in_module(tmp_path, source, DURATIONS, "parse_duration"),
                         DynamicOptions(jobs=2, sandbox="portable", use_hypothesis=False,
                                        scaling=False))
    assert report.notes[0] == PORTABLE_NOTE
    assert [v.code for v in dynamic_verdicts(report)] == ["not-run-in-module", "not-run"]
    assert dynamic_verdicts(report)[0].message.startswith(
        "not run: the module `app` did not load in the sandbox: its top level raised "
        "ModuleNotFoundError: No module named 'numpy'")


ASYNC_PROMPT = ('import asyncio\n\n\nasync def double(x):\n    """Twice x.\n\n'
                '    >>> asyncio.run(double(4))\n    8\n    """\n')


def test_an_event_loop_example_is_not_run_in_the_portable_sandbox_with_its_reason() -> None:
    """WASI has no sockets, so ``asyncio.run`` cannot start there: the example is not run
    (no version fails it), and the report says why."""
    bodies = ["    await asyncio.sleep(0)\n    return 2 * x\n", "    return x + x\n",
              "    return x * 3\n"]
    ss = VersionSet.from_codes("t", [ASYNC_PROMPT + b for b in bodies], entry_point="double",
                               prompt=ASYNC_PROMPT)
    report = run_dynamic(ss, DynamicOptions(jobs=2, sandbox="portable", use_hypothesis=False,
                                            scaling=False))
    assert NOT_SUPPORTED in report.notes
    assert report.rules.not_run == f"no version ran ({NOT_SUPPORTED})"
    assert [v.code for v in dynamic_verdicts(report)] == ["not-run"]


def test_a_run_where_nothing_ran_names_the_level_without_saying_versions_ran() -> None:
    """No input: nothing ran. The report names the portable level (never a silent
    downgrade) in words that do not claim a run."""
    ss = VersionSet.from_codes("t", ["def f(xs):\n    return xs.total()\n",
                                     "def f(xs):\n    return xs.sum()\n"], entry_point="f")
    report = run_dynamic(ss, DynamicOptions(jobs=2, sandbox="portable", use_hypothesis=False,
                                            scaling=False))
    assert report.rules.not_run == "no inputs"
    assert report.notes[0] == PORTABLE_NOTE
    assert PORTABLE_NOTE.startswith("portable sandbox: versions run in CPython 3.11")
    assert not any("ran" in note.split() for note in report.notes)


def test_a_module_importing_what_only_the_guest_lacks_is_not_run_there_and_says_so(
        tmp_path: Path) -> None:
    """``bz2`` is standard library: the strict sandbox loads the module, the portable one
    cannot (no ``_bz2`` in CPython for WASI) and says that it is the sandbox's lack."""
    source = standalone().replace("import re\n", "import re\nimport bz2\n")
    (tmp_path / "s").mkdir()
    (tmp_path / "p").mkdir()
    strict = run_dynamic(in_module(tmp_path / "s", source, DURATIONS, "parse_duration"),
                         DynamicOptions(jobs=2, sandbox="strict", use_hypothesis=False,
                                        scaling=False))
    assert [v.code for v in dynamic_verdicts(strict)] == []
    portable = run_dynamic(in_module(tmp_path / "p", source, DURATIONS, "parse_duration"),
                           DynamicOptions(jobs=2, sandbox="portable", use_hypothesis=False,
                                          scaling=False))
    [verdict, _] = dynamic_verdicts(portable)
    assert verdict.code == "not-run-in-module"
    assert verdict.message.startswith(
        "not run: the module `app` did not load in the sandbox: its top level raised "
        "ModuleNotFoundError: No module named '_bz2' (`_bz2` is in the standard library, but "
        "not in this sandbox's interpreter")


def test_a_real_module_that_asks_the_host_name_at_import_runs_its_functions(
        tmp_path: Path) -> None:
    """boltons' ``iterutils`` calls ``socket.gethostname()`` at its top level (a GUID
    generator's seed): the portable guest answers as the strict sandbox does, so its
    functions run in it there too."""
    import shutil

    from codequorum.core import model
    from codequorum.core.parsing import function_by_name
    from codequorum.ingest.module_view import module_context
    from codequorum.pipeline.session import current_code
    from tests.behaviour.test_real_inputs import REPOS

    root = tmp_path / "boltons"
    shutil.copytree(REPOS / "boltons", root)
    path = root / "boltons" / "iterutils.py"
    source = path.read_text(encoding="utf-8")
    info = function_by_name(source, "python", "one")
    assert info is not None
    wrong = "def one(src, default=None, key=None):\n    return next(iter(src), default)\n"
    versions = [model.Version(code=wrong),
                model.Version(code=current_code(source, info), origin="current")]
    ss = VersionSet(task_id="iterutils.py::one", versions=versions, entry_point="one",
                    module=module_context(source, path, root, "one", "function"))
    report = run_dynamic(ss, DynamicOptions(jobs=2, sandbox="portable", use_hypothesis=False,
                                            scaling=False))
    assert report.rules.module_problem is None
    assert [v.code for v in dynamic_verdicts(report)] == ["divergent-outputs"]
