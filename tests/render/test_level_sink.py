"""The sinks of a run that sets its risk level: spooled and replayed, or a streamed file
written as sets come and then written again from its own lines; the same bytes either
way, and a line rewritten is the line the moved report would have given."""

from __future__ import annotations

import copy
import io
import json
import os
from pathlib import Path

import jsonschema
import pytest

from codequorum.core.report import StabilityReport
from codequorum.judge.base_rate import BaseRate
from codequorum.pipeline.risk_level import RunLevel
from codequorum.render import csv_out, jsonl_out
from codequorum.render.level_sink import open_sink, relevel_file, rewritable
from codequorum.render.sinks import RunEnd, SinkRequest, output_format
from tests.pipeline.test_risk_level import report

RULE = BaseRate(prior=0.5, pseudo_count=1.0, min_sets=2)


def population() -> list[StabilityReport]:
    """Two models, a set without a model, a set without a risk, text that needs quoting."""
    return [report("a, \"quoted\"", "weak", 0.7), report("b", "weak", 0.9, "outputs"),
            report("c", "strong", 0.1), report("d", "strong", 0.3, "examples_failed"),
            report("e", None, 0.5), report("f", "weak", None)]


def moved(reports: list[StabilityReport]) -> list[StabilityReport]:
    level = RunLevel(RULE)
    out = copy.deepcopy(reports)
    for r in out:
        level.add_report(r)
    for r in out:
        level.apply(r)
    return out


@pytest.mark.parametrize("module", [jsonl_out, csv_out])
def test_a_line_rewritten_is_the_line_of_the_moved_report(module: object) -> None:
    reports = population()
    level = RunLevel(RULE)
    for r in reports:
        level.add_report(r)

    def line(r: StabilityReport) -> str:
        if module is jsonl_out:
            return jsonl_out.report_line(r)
        out = io.StringIO()
        csv_out.write_csv([r], out, header=False)
        return out.getvalue()

    read_back = output_format("jsonl" if module is jsonl_out else "csv").read_back
    assert read_back is not None
    for before, after in zip(reports, moved(reports), strict=True):
        found = read_back.risk_of(line(before).removesuffix("\n"))
        if before.risk_alone is None:
            assert found is None
            continue
        assert found == (before.model, before.risk_alone, before.risk_evidence)
        rewritten = read_back.with_risk(line(before).removesuffix("\n"),
                                        level.moved(*found))
        assert rewritten == line(after)
    assert sum(a.risk != b.risk for a, b in zip(reports, moved(reports), strict=True)) == 4


def write(fmt: str, request: SinkRequest, reports: list[StabilityReport],
          level: RunLevel | None) -> None:
    with open_sink(output_format(fmt), request, level) as sink:
        for r in reports:
            sink.add(copy.deepcopy(r), None)
        sink.finish(RunEnd(total=len(reports)))


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_streamed_file_spooled_and_stdout_give_the_same_bytes(
        fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reports = population()
    spooled, streamed = tmp_path / "spooled", tmp_path / "streamed"
    write(fmt, SinkRequest(path=str(spooled)), reports, RunLevel(RULE))
    write(fmt, SinkRequest(path=str(streamed), incremental=True), reports, RunLevel(RULE))
    assert streamed.read_bytes() == spooled.read_bytes()
    capsys.readouterr()
    write(fmt, SinkRequest(path=None, incremental=True), reports, RunLevel(RULE))
    assert capsys.readouterr().out.encode() == spooled.read_bytes()
    # what each set alone says is what the file holds without a level
    alone = tmp_path / "alone"
    write(fmt, SinkRequest(path=str(alone)), reports, None)
    assert alone.read_bytes() != spooled.read_bytes()
    expected = tmp_path / "expected"
    write(fmt, SinkRequest(path=str(expected)), moved(reports), None)
    assert spooled.read_bytes() == expected.read_bytes()


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_resumed_file_is_moved_with_the_lines_it_already_held(fmt: str,
                                                               tmp_path: Path) -> None:
    reports = population()
    whole = tmp_path / "whole"
    write(fmt, SinkRequest(path=str(whole)), reports, RunLevel(RULE))
    # a run killed after three sets left their own risks; the resumed run appends the rest
    out = tmp_path / "out"
    write(fmt, SinkRequest(path=str(out), incremental=True), reports[:3], None)
    request = SinkRequest(path=str(out), incremental=True, append=True)
    level = RunLevel(RULE)
    write(fmt, request, reports[3:], level)
    assert out.read_bytes() == whole.read_bytes()
    assert level.rates()["weak"].sets == 2  # counted from the file, not from this run alone
    # taken up again with nothing left to do, it stays the same
    write(fmt, request, [], RunLevel(RULE))
    assert out.read_bytes() == whole.read_bytes()
    relevel_file(str(out), output_format(fmt).read_back, RunLevel(RULE))  # type: ignore[arg-type]
    assert out.read_bytes() == whole.read_bytes()


def test_only_a_regular_file_is_written_again(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert rewritable(str(tmp_path / "new")) and not rewritable(str(fifo))
    assert not rewritable(None) and not rewritable("-")
    (tmp_path / "file").write_text("x")
    assert rewritable(str(tmp_path / "file"))


def test_documents_carry_each_models_rate(tmp_path: Path) -> None:
    out = tmp_path / "doc.json"
    write("json", SinkRequest(path=str(out)), population(), RunLevel(RULE))
    document = json.loads(out.read_text())
    schema = Path(__file__).resolve().parents[2] / "shared" / "report.schema.json"
    # the summary of synthetic sets is empty; the overall part is what is checked here
    jsonschema.validate(document["overall"],
                        json.loads(schema.read_text())["properties"]["overall"])
    levels = document["overall"]["risk_levels"]
    assert list(levels) == ["weak", "strong", "(no model named)"]
    assert levels["weak"]["adapted"] and levels["weak"]["sets"] == 2
    assert not levels["(no model named)"]["adapted"]
    assert [s["risk"] for s in document["sets"]] == [r.risk for r in moved(population())]


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_file_taken_up_at_each_sets_level_holds_each_sets_own_risk(
        fmt: str, tmp_path: Path) -> None:
    reports = population()
    own = tmp_path / "own"
    write(fmt, SinkRequest(path=str(own)), reports, RunLevel.each_set())
    plain = tmp_path / "plain"
    write(fmt, SinkRequest(path=str(plain)), reports, None)
    assert own.read_bytes() == plain.read_bytes()  # nothing moved, nothing held back
    # an earlier run at the run's level, taken up with --risk-level set
    out = tmp_path / "out"
    write(fmt, SinkRequest(path=str(out), incremental=True), reports[:4], RunLevel(RULE))
    assert out.read_bytes() != b"".join(plain.read_bytes().splitlines(keepends=True)[
        :4 + (fmt == "csv")])
    write(fmt, SinkRequest(path=str(out), incremental=True, append=True), reports[4:],
          RunLevel.each_set())
    assert out.read_bytes() == own.read_bytes()
    assert RunLevel.each_set().summary() == {}


def test_the_table_and_the_page_say_each_models_rate(tmp_path: Path) -> None:
    table, page = tmp_path / "table.txt", tmp_path / "page.html"
    write("table", SinkRequest(path=str(table)), population(), RunLevel(RULE))
    write("html", SinkRequest(path=str(page)), population(), RunLevel(RULE))
    note = ("risk level set from this run's 2 sets of strong: about 7 % of kept versions "
            "wrong (each set alone: 20 %; the fit assumed 50 %)")
    assert note in " ".join(table.read_text().split())
    data = json.loads(page.read_text().split('id="cq-data">', 1)[1].split("</script>")[0])
    assert data["risk_levels"][1] == note
    assert data["risk_levels"][2].startswith("risk per set for (no model named): 1 set")
