"""The session's analysis cache: one frozen key, static analyses cached, dynamic reports
merged in on read."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from codequorum.behaviour.dynamic_analysis import CandidateDynamic, RuleFigures
from codequorum.core import parsing
from codequorum.core.model import Version
from codequorum.core.report import Verdict
from codequorum.metrics.semantic import Divergence
from codequorum.pipeline import session as session_module
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from codequorum.pipeline.session import AnalysisKey, Session, SessionConfig, build_version_set

VERSIONS = [
    "def total(xs):\n    return sum(xs)\n",
    "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n",
    "def total(xs):\n    t = 0\n    i = 0\n    while i < len(xs):\n        t += xs[i]\n"
    "        i += 1\n    return t\n",
]
CURRENT = "def total(xs):\n    return sum(x for x in xs)\n"


def _rules(divergence: Divergence | None = None) -> RuleFigures:
    """What the dynamic rules read of a run: nothing that fires, unless ``divergence``."""
    return RuleFigures(divergence=divergence, input_label="f(1)", input_source="hypothesis",
                       traced=0, sctd_jsd=0.0, dctd_jsd=0.0, oer_threshold=1.0,
                       growth_outlier_delta=0.6, bef_low=0.1, bef_high=1000.0)


@dataclass
class FakeDynamic:
    """What the session and ``analyze`` read from a dynamic report."""

    summary: dict[str, float | None] = field(default_factory=lambda: {"dctd_jsd": 0.25})
    candidates: list[CandidateDynamic] = field(default_factory=list)
    rules: RuleFigures = field(default_factory=lambda: _rules())
    fastest: int | None = 1

    def to_dict(self, verdicts: Sequence[Verdict] = ()) -> dict[str, Any]:
        return {"summary": dict(self.summary), "fastest": self.fastest}


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(lambda level, message: None, SessionConfig(store=str(tmp_path / "s.sqlite3")))
    s.reconfigure(s.config, str(tmp_path))
    s.add_sync("m.py", "python", "total", [Version(code=v, origin="relayed") for v in VERSIONS])
    return s


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many static analyses the session computes."""
    counted: list[int] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        counted.append(1)
        return analyze(*args, **kwargs)

    monkeypatch.setattr(session_module, "analyze", counting)
    return counted


def _analysis(s: Session, current: str = CURRENT, full: bool = True) -> Any:
    result = s.analysed(s.function_key("m.py", "python", "total", "total", current, full))
    assert result is not None
    return result


def test_second_read_is_a_hit(session: Session, calls: list[int]) -> None:
    first = _analysis(session)
    second = _analysis(session)
    assert second is first
    assert len(calls) == 1


def test_key_is_frozen_and_equal_for_equal_inputs(session: Session) -> None:
    a = session.function_key("m.py", "python", "total", "total", CURRENT)
    b = session.function_key("m.py", "python", "total", "total", CURRENT + "\n\n")
    assert isinstance(a, AnalysisKey) and a == b and hash(a) == hash(b)
    assert session.function_key("m.py", "python", "other", "other", CURRENT) is None
    with pytest.raises(AttributeError):
        a.qualified_name = "x"  # type: ignore[misc]


def test_option_change_misses(session: Session, calls: list[int]) -> None:
    first = _analysis(session)
    session.reconfigure(SessionConfig(store=session.config.store,
                                      analysis=AnalysisConfig(max_depth=5)))
    second = _analysis(session)
    assert len(calls) == 2
    assert second.report.options["max_depth"] == 5
    assert first.report.options["max_depth"] == 30
    assert first.key != second.key


def test_current_code_change_misses(session: Session, calls: list[int]) -> None:
    _analysis(session)
    other = _analysis(session, "def total(xs):\n    return 0\n")
    assert len(calls) == 2
    assert other.current_index == 3


def test_full_analysis_serves_a_light_request(session: Session, calls: list[int]) -> None:
    full = _analysis(session, full=True)
    light = _analysis(session, full=False)
    assert light is full
    assert len(calls) == 1
    assert "tsed" in full.report.summary


def test_light_analysis_does_not_serve_a_full_request(session: Session, calls: list[int]) -> None:
    light = _analysis(session, full=False)
    full = _analysis(session, full=True)
    assert len(calls) == 2
    assert "tsed" not in light.report.summary and "tsed" in full.report.summary


def test_dynamic_report_is_merged_without_recomputing(session: Session, calls: list[int]) -> None:
    static = _analysis(session)
    dynamic = FakeDynamic()
    session.put_dynamic(static, dynamic)
    merged = _analysis(session)
    assert len(calls) == 1
    assert merged.dynamic is dynamic
    assert merged.fastest == 1
    assert merged.report.summary["dctd_jsd"] == 0.25
    assert merged.report.dynamic == {"summary": {"dctd_jsd": 0.25}, "fastest": 1}
    assert merged.key != static.key
    # the static analysis is untouched
    assert static.dynamic is None and "dctd_jsd" not in static.report.summary
    # read again: the merged analysis is cached too
    assert _analysis(session) is merged


def test_merged_report_equals_a_fresh_analysis_with_the_dynamic_report(session: Session) -> None:
    static = _analysis(session)
    # versions 1 and 2 part on the first input, OER 0.5: divergent outputs
    dynamic = FakeDynamic(summary={"dctd_jsd": 0.25, "oer": 0.5},
                          rules=_rules(Divergence(0, 0, 1, "1", "2", ())))
    session.put_dynamic(static, dynamic)
    merged = _analysis(session)
    stored = session.versions_sync("m.py", "total")
    version_set, current_index = build_version_set(
        stored, CURRENT, file_key="m.py", language="python", qualified_name="total", name="total"
    )
    fresh = analyze(version_set, session.options(True), dynamic=dynamic,
                    current_index=current_index)
    assert merged.report.to_dict() == fresh.to_dict()
    assert [v.code for v in merged.report.verdicts][-1] == "divergent-outputs"


def test_new_versions_miss(session: Session, calls: list[int]) -> None:
    _analysis(session)
    session.add_sync("m.py", "python", "total", [Version(code="def total(xs):\n    return 1\n")])
    again = _analysis(session)
    assert len(calls) == 2
    assert again.n_stored == 4


def test_a_newer_dynamic_report_replaces_the_merged_one(session: Session, calls: list[int]) -> None:
    static = _analysis(session)
    session.put_dynamic(static, FakeDynamic(summary={"dctd_jsd": 0.25}))
    first = _analysis(session)
    session.put_dynamic(static, FakeDynamic(summary={"dctd_jsd": 0.5}, fastest=2))
    second = _analysis(session)
    assert len(calls) == 1
    assert (first.report.summary["dctd_jsd"], second.report.summary["dctd_jsd"]) == (0.25, 0.5)
    assert second.fastest == 2
    assert len({static.key, first.key, second.key}) == 3


def test_the_module_of_a_function_is_read_from_the_sessions_workspace(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "util.py").write_text("K = 1\n")
    s = Session(lambda level, message: None)
    s.reconfigure(s.config, root=str(root))
    text = "from .util import K\n\nclass C:\n    def f(self):\n        return K\n"
    context = s.module_context(text, root / "pkg" / "app.py", "C.f", "method")
    assert (context.name, context.kind, context.owner) == ("pkg.app", "method", "C")
    assert dict(context.files) == {"pkg/app.py": text, "pkg/__init__.py": "",
                                   "pkg/util.py": "K = 1\n"}
    s.root = None  # without a workspace only the module itself is there
    alone = s.module_context(text, root / "pkg" / "app.py", "C.f", "method")
    assert [path for path, _ in alone.files] == ["app.py"]


# --------------------------------------------------------------------------- a set's module


def test_a_set_s_module_is_rebuilt_from_where_export_says_it_lives(tmp_path: Path) -> None:
    from codequorum.core.model import FunctionLocation
    from codequorum.pipeline.session import located_module

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "units.py").write_text("U = 2\n")
    (tmp_path / "pkg" / "app.py").write_text(
        "from .units import U\n\n\nclass C:\n    def f(self, x):\n        return U * x\n")
    context, doc = located_module(tmp_path, FunctionLocation("pkg/app.py", "C.f"), "python")
    assert (context.name, context.path, context.kind) == ("pkg.app", "pkg/app.py", "method")
    assert dict(context.files)["pkg/units.py"] == "U = 2\n"
    assert doc is None  # a Python function's examples are in its own docstring


def test_a_javascript_set_s_module_and_the_examples_above_it_come_back_from_export(
        tmp_path: Path) -> None:
    """``score`` on ``export``'s output gets what ``check`` reads: the module and the JSDoc
    comment above the function (its examples graded), date-fns' shape."""
    from codequorum.core.model import FunctionLocation, VersionSet
    from codequorum.pipeline.score import in_module

    (tmp_path / "constants.mjs").write_text("export const minutesInHour = 60;\n")
    (tmp_path / "hoursToMinutes.mjs").write_text(
        'import { minutesInHour } from "./constants.mjs";\n\n/**\n * @example\n'
        ' * const result = hoursToMinutes(2)\n * //=> 120\n */\n'
        "export function hoursToMinutes(hours) {\n  return Math.trunc(hours * minutesInHour);\n}\n")
    vs = VersionSet.from_codes("h", ["function hoursToMinutes(h) { return h * 60; }"],
                               language="javascript", entry_point="hoursToMinutes")
    vs.location = FunctionLocation("hoursToMinutes.mjs", "hoursToMinutes")
    placed, why = in_module(vs, tmp_path)
    assert why is None and placed.module is not None
    assert "constants.mjs" in dict(placed.module.files)
    assert placed.prompt is not None and "//=> 120" in placed.prompt


@pytest.mark.parametrize(("file", "why"), [
    ("../outside.py", "outside the workspace"),
    ("/etc/passwd", "not a file of the workspace"),
    ("file:///etc/passwd", "not a file of the workspace"),
    ("gone.py", "no such file"),
    ("pkg/app.py", "no function"),
])
def test_a_location_that_names_no_module_of_the_workspace_says_why(
        tmp_path: Path, file: str, why: str) -> None:
    from codequorum.core.errors import UserError
    from codequorum.core.model import FunctionLocation
    from codequorum.pipeline.session import located_module

    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "app.py").write_text("def g():\n    return 1\n")
    (tmp_path / "outside.py").write_text("def f():\n    return 1\n")
    with pytest.raises(UserError, match=why):
        located_module(ws, FunctionLocation(file, "f"), "python")


# --------------------------------------------------------------------------- remembered runs


def _remembered_report(versions: int) -> Any:
    from codequorum.behaviour.dynamic_analysis import DynamicReport

    return DynamicReport(
        task_id="m.py::total", summary={"oer": 0.0, "inputs": 1.0},
        candidates=[CandidateDynamic(i, "ok", "", None, 0, 0, "returned", None, [], None,
                                     5.0, 9) for i in range(versions)],
        rules=_rules(), fastest=None, layers=[], inputs_source=["doctest"],
        inputs=[{"source": "doctest", "label": "total([1])", "graded": False,
                 "checked": False, "size": None}],
        outcomes=[[("1", None, None)] for _ in range(versions)],
        passes=[[None] for _ in range(versions)], output_clusters=[list(range(versions))])


def test_a_remembered_run_is_taken_only_when_it_matches_its_key(tmp_path: Path) -> None:
    """A store may come with a repository: a record that claims more versions than are
    stored, sits under another module's key or bears no seal of this user's is ignored; the
    one that matches is taken (the analysis reads it as a run of these versions)."""
    from codequorum.behaviour import run_record
    from codequorum.core import run_seal
    from codequorum.pipeline.session import Document

    text = "import math\n\n\n" + CURRENT
    (tmp_path / "m.py").write_text(text)
    info = parsing.function_by_name(text, "python", "total")

    def fresh() -> Session:
        s = Session(lambda level, message: None,
                    SessionConfig(store=str(tmp_path / "s.sqlite3")))
        s.reconfigure(s.config, str(tmp_path))
        return s

    seal = run_seal.seal_key()  # the user's (each test has a folder of its own)
    assert seal is not None
    first = fresh()
    first.add_sync("m.py", "python", "total", [Version(code=v, origin="relayed") for v in VERSIONS])
    prepared = first.prepare(text, tmp_path / "m.py", "python", info)
    assert prepared is not None and prepared.analysis.dynamic is None
    codes = prepared.analysis.version_set.codes
    module = first.module_context(text, tmp_path / "m.py", "total")
    key = run_record.run_key(codes, module, first.run_options(False))
    store = first.store()
    assert store is not None
    versions = run_record.versions_key(codes)
    other = run_record.run_key(codes, None, first.run_options(False))
    store.put_run("m.py", "total", other, run_record.encode(_remembered_report(len(codes)),
                                                            other, seal) or "", versions)
    store.put_run("m.py", "total", key, run_record.encode(_remembered_report(len(codes) + 1),
                                                          key, seal) or "", versions)
    first.close()
    again = fresh().prepare(text, tmp_path / "m.py", "python", info)
    assert again is not None and again.analysis.dynamic is None  # nothing matched

    second = fresh()
    store = second.store()
    assert store is not None
    stranger = run_record.encode(_remembered_report(len(codes)), key, bytes(32))
    store.put_run("m.py", "total", key, stranger or "", versions)
    unsealed = second.prepare(text, tmp_path / "m.py", "python", info)
    assert unsealed is not None and unsealed.analysis.dynamic is None  # not the user's seal
    second.close()
    second = fresh()
    store = second.store()
    assert store is not None
    store.put_run("m.py", "total", key, run_record.encode(_remembered_report(len(codes)),
                                                          key, seal) or "", versions)
    found = second.prepare(text, tmp_path / "m.py", "python", info)
    assert found is not None and found.analysis.dynamic is not None
    assert found.analysis.report.summary["oer"] == 0.0
    # the module changed: its remembered run does not count
    changed = text.replace("import math", "import math\nX = 1")
    gone = fresh().prepare(changed, tmp_path / "m.py", "python",
                           parsing.function_by_name(changed, "python", "total"))
    assert gone is not None and gone.analysis.dynamic is None
    assert Document(text, None).kind == "function"


def test_a_closed_store_gives_no_remembered_run_and_no_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A server shutting down closes its store while an analysis may still ask for a
    remembered run: none, and nothing logged as lost."""
    text = "import math\n\n\n" + CURRENT
    (tmp_path / "m.py").write_text(text)
    info = parsing.function_by_name(text, "python", "total")
    session = Session(lambda level, message: None,
                      SessionConfig(store=str(tmp_path / "s.sqlite3")))
    session.reconfigure(session.config, str(tmp_path))
    session.add_sync("m.py", "python", "total",
                     [Version(code=v, origin="relayed") for v in VERSIONS])
    from codequorum.core import run_seal
    from codequorum.pipeline.session import Document

    assert run_seal.seal_key() is not None
    prepared = session.prepare(text, tmp_path / "m.py", "python", info)
    assert prepared is not None
    store = session.store()
    assert store is not None
    store.close()
    with caplog.at_level(logging.WARNING, logger="codequorum"):
        taken = session.recall_run(prepared.analysis, Document(text, tmp_path / "m.py"))
    assert taken is False
    assert not [r for r in caplog.records if "remembered run" in r.getMessage()]
