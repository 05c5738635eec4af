"""The HTML report: structure, escaping, embedded data, comparison, and a real browser."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from codequorum.cli.main import main
from codequorum.core.errors import UserError
from codequorum.core.model import VersionSet
from codequorum.core.safe_text import safe_text
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from codequorum.render.html_report import (
    compare_runs,
    heat_cells,
    html_document,
    line_diff,
    load_compare,
    match_codes,
    most_different,
    page_data,
    render_html,
    script_json,
)

HOSTILE = "</script><script>alert(1)</script><!-- & \x1b[31m"
CODES = [
    "def f(x):\n    return x + 1\n",
    "def f(x):\n    return 1 + x\n",
    'def f(x):\n    s = "' + HOSTILE + '"\n    y = x\n    for _ in range(1):\n        y += 1\n'
    '    return y\n',
    "def f(x):\n    return x + 2\n",
]


class _Page(HTMLParser):
    """Scripts (attributes and text), meta tags and the text of the page."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self.metas: list[dict[str, str | None]] = []
        self._in: str | None = None
        self._attrs: dict[str, str | None] = {}
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._in, self._attrs, self._text = tag, dict(attrs), []
        elif tag == "meta":
            self.metas.append(dict(attrs))

    def handle_data(self, data: str) -> None:
        if self._in:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in == "script":
            self.scripts.append((self._attrs, "".join(self._text)))
        elif tag == self._in == "style":
            self.styles.append("".join(self._text))
        if tag == self._in:
            self._in = None


def _sets() -> tuple[list[VersionSet], list[Any]]:
    sets = [VersionSet.from_codes(f"T/{HOSTILE}", CODES),
            VersionSet.from_codes("T/2", CODES[:3]),
            VersionSet.from_codes("T/short", CODES[:1])]
    reports = [analyze(s, AnalysisConfig(metrics=("textual",))) for s in sets]
    return sets, reports


def _parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def test_page_structure_and_embedded_data_round_trips() -> None:
    sets, reports = _sets()
    doc = html_document(reports, total=3)
    page = render_html(doc, codes=match_codes(reports, sets))
    parsed = _parse(page)
    assert [a.get("type") for a, _ in parsed.scripts] == ["application/json", None]
    data = json.loads(parsed.scripts[0][1])
    assert data == json.loads(json.dumps(page_data(doc, codes=match_codes(reports, sets))))
    assert [r[0] for r in data["rows"]] == [
        "T/</script><script>alert(1)</script><!-- & \\x1b[31m", "T/2", "T/short"]
    assert data["rows"][2][2] == "insufficient"
    assert data["metrics"][:4] == ["jsd_struct", "jsd_value", "sce_struct", "sce_value"]
    first = data["details"][0]
    assert first["ix"] == [0, 1, 2, 3]
    assert first["hs"] is True and len(base64.b64decode(first["h"])) == 4 * 5 // 2
    assert base64.b64decode(first["h"])[0] == 100  # a version is identical to itself


def test_page_written_a_set_at_a_time_is_the_page_of_the_document() -> None:
    """write_html files each set in a temporary file and writes the page from it: the
    same bytes as the page of the whole document, errors and a comparison included."""
    import io

    from codequorum.ingest.version_files import ReadError
    from codequorum.judge.overall import OverallAccumulator
    from codequorum.render.html_report import HtmlPage, write_html

    sets, reports = _sets()
    errors = [ReadError("in.jsonl", 4, f"broken {HOSTILE}")]
    across = OverallAccumulator.of(reports).result()
    other = json.loads(json.dumps(html_document(reports[1:], overall=across),
                                  default=lambda m: m.tolist()))
    doc = html_document(reports, errors, interrupted=True, total=5, overall=across)
    out = io.StringIO()
    write_html(out, reports, errors, interrupted=True, total=5, overall=across,
               codes=[s.codes for s in sets], compare=("b.json", other))
    page = render_html(doc, codes=[s.codes for s in sets], compare=other,
                       compare_name="b.json")
    assert out.getvalue() == page
    data = _parse(page).scripts[0][1]
    assert json.loads(data)["n_errors"] == 1 and json.loads(data)["compare"]["name"] == "b.json"
    with HtmlPage() as empty:
        assert empty.count == 0


def test_candidate_text_cannot_leave_the_data_block() -> None:
    sets, reports = _sets()
    page = render_html(html_document(reports), codes=match_codes(reports, sets))
    assert page.count("</script") == 2  # the two tags' own ends
    assert "<script>alert" not in page and "<!--" not in page
    raw = page.split('id="cq-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in raw and ">" not in raw and "&" not in raw
    assert "\x1b" not in page
    assert raw.count("\\\\x1b[31m") >= 2  # the task id and the most different versions
    assert "\\u003c/script\\u003e" in raw


def test_csp_allows_exactly_the_inline_style_and_script() -> None:
    _, reports = _sets()
    parsed = _parse(render_html(html_document(reports)))
    csp = next(m["content"] for m in parsed.metas
               if m.get("http-equiv") == "Content-Security-Policy")
    assert csp is not None and csp.startswith("default-src 'none';")

    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert f"style-src 'sha256-{digest(parsed.styles[0])}'" in csp
    assert f"script-src 'sha256-{digest(parsed.scripts[1][1])}'" in csp
    assert "http" not in re.sub(r"http-equiv|xmlns|http://www\.w3\.org/2000/svg", "",
                                render_html(html_document(reports)))


def test_script_json_escapes_markup_characters() -> None:
    text = script_json({"a": "</script>&<!--\u2028"})
    assert text == '{"a":"\\u003c/script\\u003e\\u0026\\u003c!--\\u2028"}'
    assert json.loads(text) == {"a": "</script>&<!--\u2028"}


def test_heat_cells_are_bytes_of_two_digits() -> None:
    sym, is_sym = heat_cells([[1.0, 0.504], [0.5, None]])
    assert is_sym and sym is not None and list(base64.b64decode(sym)) == [100, 50, 255]
    full, is_sym = heat_cells([[1.0, 0.2], [0.9, 1.0]])
    assert not is_sym and full is not None and list(base64.b64decode(full)) == [100, 20, 90, 100]
    assert heat_cells(None) == (None, False)


def test_line_diff_has_full_context() -> None:
    assert line_diff("a\nb\nc", "a\nx\nc\nd") == " a\n-b\n+x\n c\n+d"
    assert line_diff("same", "same") == " same"


def test_most_different_is_least_like_the_recommended_version() -> None:
    s = {"indices": [0, 2, 5], "recommended": 2, "typicality": [0.9, 0.8, 0.1]}
    matrix = [[1.0, 0.9, 0.4], [0.8, 1.0, 0.3], [0.5, 0.2, 1.0]]
    assert most_different(s, matrix) == (5, 0.25)
    assert most_different(s, None) == (5, None)  # by typicality
    assert most_different({**s, "recommended": None}, matrix) == (None, None)


def test_diff_embeds_the_recommended_and_the_most_different_version() -> None:
    sets, reports = _sets()
    data = page_data(html_document(reports), codes=match_codes(reports, sets))
    detail = data["details"][0]
    rec, far = reports[0].recommended, detail["far"]
    assert far is not None and rec is not None and far != rec
    lines = detail["diff"].split("\n")
    assert "\n".join(x[1:] for x in lines if not x.startswith("+")) == safe_text(
        CODES[rec], None, keep_newlines=True)
    assert "\n".join(x[1:] for x in lines if not x.startswith("-")) == safe_text(
        CODES[far], None, keep_newlines=True)
    assert "code" not in detail and "diff" not in data["details"][2]


def test_compare_sorts_by_largest_change_and_lists_sets_of_one_run() -> None:
    def doc(values: dict[str, float]) -> dict[str, Any]:
        return {"sets": [{"task_id": t, "risk": None, "verdicts": [],
                          "summary": {"jsd_struct": {"ordered": v}, "oer": 1 - 2 * v}}
                         for t, v in values.items()]}

    result = compare_runs(doc({"a": 0.5, "b": 0.9, "c": 0.7}),
                          doc({"a": 0.45, "b": 0.6, "d": 0.1}), ["jsd_struct", "oer"])
    assert [r[:7] for r in result["rows"]] == [["b", 0.9, 0.6, 0.3, -0.8, -0.2, -0.6],
                                               ["a", 0.5, 0.45, 0.05, 0.0, 0.1, -0.1]]
    assert result["metrics"] == ["jsd_struct", "oer", "risk"]
    assert result["only_a"] == ["c"] and result["only_b"] == ["d"]
    assert compare_runs(doc({"a": 0.5}), doc({"a": 0.4}), [])["rows"] == [["a", None, None,
                                                                           None, "", ""]]


def test_load_compare_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UserError, match=r"^--compare .*bad.json: not a JSON file") as err:
        load_compare(str(bad))
    assert "\n" not in str(err.value)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"sets": [{"task_id": 1}]}))
    with pytest.raises(UserError, match="not a codequorum report"):
        load_compare(str(other))
    with pytest.raises(UserError, match=r"missing\.json"):
        load_compare(str(tmp_path / "missing.json"))


def _jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "sets.jsonl"
    rows = [{"task_id": "A", "samples": CODES}, {"task_id": "B", "samples": CODES[:3]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_score_writes_html_and_compares_with_a_json_report(tmp_path: Path) -> None:
    sets = _jsonl(tmp_path)
    assert main(["score", str(sets), "--no-tsed", "-q", "--format", "json",
                 "-o", str(tmp_path / "r.json")]) == 0
    out = tmp_path / "r.html"
    assert main(["score", str(sets), "--no-tsed", "-q", "--format", "html", "-o", str(out),
                 "--compare", str(tmp_path / "r.json")]) == 0
    data = json.loads(_parse(out.read_text()).scripts[0][1])
    assert [r[0] for r in data["rows"]] == ["A", "B"]
    assert data["details"][0]["h"] and "diff" in data["details"][0]
    assert data["compare"]["name"] == "r.json"
    assert [r[3] for r in data["compare"]["rows"]] == [0.0, 0.0]  # same run: no change


def test_compare_reads_a_report_of_schema_1(tmp_path: Path) -> None:
    """A report written before the versions were called versions (no ``schema_version``,
    a verdict's ``samples``, the options' ``max_samples``) still compares."""
    sets = _jsonl(tmp_path)
    assert main(["score", str(sets), "--no-tsed", "-q", "--format", "json",
                 "-o", str(tmp_path / "r.json")]) == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc.pop("schema_version") == 2
    for s in doc["sets"]:
        s["options"]["max_samples"] = s["options"].pop("max_versions")
        for v in s["verdicts"]:
            v["samples"] = v.pop("versions")
    (tmp_path / "old.json").write_text(json.dumps(doc))
    out = tmp_path / "r.html"
    assert main(["score", str(sets), "--no-tsed", "-q", "--format", "html", "-o", str(out),
                 "--compare", str(tmp_path / "old.json")]) == 0
    data = json.loads(_parse(out.read_text()).scripts[0][1])
    assert [r[3] for r in data["compare"]["rows"]] == [0.0, 0.0]


def test_compare_needs_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(_jsonl(tmp_path)), "-q", "--format", "json",
                 "--compare", "x.json"]) == 1
    assert "--compare works with --format html" in capsys.readouterr().err


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install "
                    "chromium) to run the page in a real browser")
def test_headless_chromium_builds_the_table_and_detail(tmp_path: Path) -> None:
    sets, reports = _sets()
    page = tmp_path / "report.html"
    page.write_text(render_html(html_document(reports), codes=match_codes(reports, sets)))
    assert CHROMIUM is not None
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", f"{page.as_uri()}#set=0"],
        capture_output=True, text=True, timeout=120, check=True).stdout
    assert 'data-ready="1"' in dom
    body = dom.split('<table id="sets">', 1)[1].split("</table>", 1)[0]
    assert body.count("<tr") == 1 + 3  # header and one row per set, built by the script
    assert "T/2" in body and "T/&lt;/script&gt;&lt;script&gt;alert(1)" in body
    assert "<script>alert" not in dom
    detail = dom.split('id="detail"', 1)[1]
    assert "Similarity heatmap" in detail and "<rect" in detail and 'class="add"' in detail


_CLICKS = """
(function () {
  var ths = document.querySelectorAll("#sets th"), out = [];
  function col(k) {
    return Array.prototype.map.call(document.querySelectorAll("#sets tbody tr"),
      function (tr) { return tr.children[k].textContent; }).join("|");
  }
  ths[0].click(); out.push(col(0));
  ths[0].click(); out.push(col(0));
  var f = document.getElementById("filter"); f.value = "insufficient";
  f.dispatchEvent(new Event("input")); out.push(col(0));
  document.querySelector("#sets tbody tr").click();
  out.push(document.querySelector("#detail h2").textContent);
  document.body.setAttribute("data-test", out.join(" ;; "));
})();
"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install "
                    "chromium) to run the page in a real browser")
def test_headless_chromium_sorts_filters_and_opens_a_set(tmp_path: Path) -> None:
    _, reports = _sets()
    page = render_html(html_document(reports))
    script = page.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256((script + _CLICKS).encode()).digest()).decode()
    page = re.sub(r"script-src '[^']+'", f"script-src 'sha256-{digest}'", page)
    page = page.replace(script + "</script>", script + _CLICKS + "</script>")
    path = tmp_path / "report.html"
    path.write_text(page)
    assert CHROMIUM is not None
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", path.as_uri()],
        capture_output=True, text=True, timeout=120, check=True).stdout
    found = re.search(r'data-test="([^"]*)"', dom)
    assert found is not None
    hostile = "T/&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!-- &amp; \\x1b[31m"
    assert found.group(1).split(" ;; ") == [
        f"{hostile}|T/2|T/short", f"T/short|T/2|{hostile}", "T/short", "T/short"]


def _graded(model: str, risk: float, passed: bool, task: str) -> Any:
    report = analyze(VersionSet.from_codes(task, CODES[:2]), AnalysisConfig(metrics=("textual",)))
    report.model, report.risk, report.recommended = model, risk, 0
    report.trust = f"likely right: about 1 in {round(1 / risk)} that it is wrong"
    report.dynamic = {"candidates": [{"index": 0, "pass_rate": 1.0 if passed else 0.5,
                                      "pass_basis": "graded tests"}]}
    return report


def _two_models() -> list[Any]:
    return [_graded("m-7b", 0.1, True, "A/1"), _graded("m-7b", 0.8, False, "A/2"),
            _graded("other", 0.3, True, "A/3"), _graded("other", 0.6, True, "A/4")]


def test_page_carries_the_calibration_of_each_model() -> None:
    from codequorum.judge.overall import overall

    reports = _two_models()
    data = page_data(html_document(reports, overall=overall(reports)))
    assert [m[:6] for m in data["calibration"]] == [
        ["m-7b", 2, 0.5, 0.45, 1.0, 0.15], ["other", 2, 0.0, 0.45, None, 0.45]]
    assert data["calibration"][0][6] == [[0.1, 0.0, 1], [0.8, 1.0, 1]]
    assert data["details"][0]["tr"] == "likely right: about 1 in 10 that it is wrong"
    one = [r for r in reports if r.model == "m-7b"]
    assert "calibration" not in page_data(html_document(one, overall=overall(one)))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install "
                    "chromium) to run the page in a real browser")
def test_headless_chromium_plots_the_calibration_per_model(tmp_path: Path) -> None:
    from codequorum.judge.overall import overall

    reports = _two_models()
    page = tmp_path / "report.html"
    page.write_text(render_html(html_document(reports, overall=overall(reports))))
    assert CHROMIUM is not None
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", f"{page.as_uri()}#set=0"],
        capture_output=True, text=True, timeout=120, check=True).stdout
    assert 'data-ready="1"' in dom
    card = dom.split("Risk against kept versions wrong, per model", 1)[1].split(
        'class="card"', 1)[0]
    assert card.count("<polyline") == 2
    assert "m-7b: 2 sets, wrong 0.50, mean risk 0.45, AUROC 1.00, ECE 0.15" in card
    assert "other: 2 sets, wrong 0.00, mean risk 0.45, AUROC –, ECE 0.45" in card
    detail = dom.split('id="detail"', 1)[1]
    assert "likely right: about 1 in 10 that it is wrong" in detail
