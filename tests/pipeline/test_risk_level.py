"""A run's risk level: sets grouped by model, each group's rate, each set's risk moved
with its step, range and words; sets without a risk left alone; and a strong model's run
through the installed command line, its versions run in the sandbox."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from codequorum.core.report import StabilityReport
from codequorum.judge.base_rate import BaseRate, shift
from codequorum.judge.calibration import UNNAMED, kept_fails
from codequorum.judge.risk import at, load_model, trust_words
from codequorum.pipeline.risk_level import RunLevel, fields, group_of, notes
from codequorum.pipeline.score import dynamic_available

SCRIPT = Path(sys.executable).parent / "codequorum"


def report(task: str, model: str | None, risk: float | None,
           evidence: str = "examples") -> StabilityReport:
    r = StabilityReport(task, "python", "ok", 5, 5, [0, 1, 2, 3, 4], model=model)
    if risk is not None:
        est = at(risk, evidence)  # type: ignore[arg-type]
        r.risk = r.risk_alone = risk
        r.risk_evidence = evidence
        r.risk_level = est.level
        r.risk_range = None if est.low is None or est.high is None else [est.low, est.high]
        r.trust = trust_words(est)
    return r


RULE = BaseRate(prior=0.5, pseudo_count=2.0, min_sets=3)
#: The mean risk of the strong model's 24 sets under the shipped model: most of its
#: functions give no docstring example, and sets without one were wrong far more often
#: on the model families the risk was fitted on (MBPP's prose specifications among them)
#: than this toy's are, so the risk is well above its 2 wrong of 24.
ALONE_MEAN = 0.45040830539577154


def test_each_model_is_moved_to_its_own_rate() -> None:
    level = RunLevel(RULE)
    weak = [0.6, 0.7, 0.8, 0.9]
    strong = [0.05, 0.1, 0.2]
    reports = ([report(f"w{k}", "weak", p) for k, p in enumerate(weak)]
               + [report(f"s{k}", "strong", p) for k, p in enumerate(strong)]
               + [report("u0", None, 0.3), report("none", "weak", None)])
    for r in reports:
        level.add_report(r)
    rates = level.rates()
    assert list(rates) == ["weak", "strong", UNNAMED]
    # alone, all above (below) the prior say 1 (0); with two sets at the prior, the mode
    assert rates["weak"].sets == 4 and rates["weak"].estimated == 1.0
    assert rates["weak"].used == pytest.approx(0.7697174141249569, abs=1e-12)
    assert rates["strong"].estimated == 0.0
    assert rates["strong"].used == pytest.approx(0.22248223589356436, abs=1e-12)
    assert not rates[UNNAMED].adapted and rates[UNNAMED].sets == 1
    for r in reports:
        level.apply(r)
    assert [r.risk for r in reports[:4]] == pytest.approx(
        shift(np.array(weak), 0.5, rates["weak"].used).tolist(), abs=1e-15)
    assert [r.risk for r in reports[4:7]] == pytest.approx(
        shift(np.array(strong), 0.5, rates["strong"].used).tolist(), abs=1e-15)
    used = rates["weak"].used
    assert reports[0].risk == pytest.approx(0.6 * used / (0.6 * used + 0.4 * (1 - used)))
    assert np.mean([r.risk for r in reports[:4]]) == pytest.approx(0.9045761211874354)
    # the own risk stays, the step, range and words follow the moved risk
    assert [r.risk_alone for r in reports[:4]] == weak
    moved = at(reports[5].risk or 0.0, "examples")
    assert reports[5].risk_level == moved.level
    assert reports[5].trust == trust_words(moved)
    assert reports[5].risk_range == [moved.low, moved.high]
    # too small a group, and a set without a risk, are left as they were
    assert reports[7].risk == 0.3 and reports[8].risk is None and reports[8].trust is None
    summary = level.summary()
    assert summary["strong"] == {
        "sets": 3, "fit_rate": 0.5, "estimated_rate": 0.0,
        "rate": pytest.approx(0.22248223589356436), "adapted": True,
        "mean_risk_alone": pytest.approx(0.35 / 3), "mean_risk": pytest.approx(0.0374703932),
        "note": "risk level set from this run's 3 sets of strong: about 4 % of kept "
                "versions wrong (each set alone: 12 %; the fit assumed 50 %)"}
    assert notes(summary)[2] == (f"risk per set for {UNNAMED}: 1 set with a risk, fewer "
                                 "than the 3 it takes to tell the model's own rate")


def test_the_order_of_the_sets_does_not_change_a_bit() -> None:
    risks = np.random.default_rng(7).uniform(0.01, 0.99, 60).tolist()
    forward, backward = RunLevel(RULE), RunLevel(RULE)
    for p in risks:
        forward.add("m", p)
    for p in reversed(risks):
        backward.add("m", p)
    assert forward.rates() == backward.rates()
    assert [forward.moved("m", p, "outputs") for p in risks] == [
        backward.moved("m", p, "outputs") for p in risks]


def test_a_group_is_named_as_every_output_writes_its_model() -> None:
    assert group_of(None) == group_of("") == UNNAMED
    assert group_of("gpt\x1b[31m") == "gpt\\x1b[31m"
    assert group_of(group_of("gpt\x1b[31m")) == group_of("gpt\x1b[31m")


def test_fields_of_a_risk_are_those_of_the_model_that_gave_it() -> None:
    f = fields(0.97, "examples_failed")
    est = at(0.97, "examples_failed")
    assert (f.risk, f.level, f.trust) == (0.97, est.level, trust_words(est))
    assert f.range == [est.low, est.high]
    with pytest.raises(ValueError, match="unknown kind of evidence"):
        fields(0.5, "shape")


def population(path: Path) -> Path:
    """24 sets of one model, a strong one: every kept version right but two. Each
    multiplies by its own k; most agree and are right (six with a docstring example), six
    split two ways, four of them kept right and two kept wrong. Hidden tests grade them."""
    rows = []
    for k in range(2, 26):
        example = f"\n\n    >>> scale(2)\n    {2 * k}\n    " if k % 4 == 1 else ""
        head = f'def scale(x: int) -> int:\n    """Return x times {k}.{example}"""\n'
        right = [f"return x * {k}", f"return {k} * x", f"y = x * {k}\n    return y",
                 f"return sum([x] * {k})"]
        split_right = [f"return x * {k}", f"return {k} * x", f"return x + {k}",
                       f"return x * {k} - 1"]
        split_wrong = [f"return x * {k} + 1", f"return {k} * x + 1", f"return x * {k}",
                       f"return x - {k}"]
        bodies = (split_wrong if k in (6, 18) else split_right if k in (2, 10, 14, 22)
                  else right)
        rows.append({"task_id": f"scale/{k}", "entry_point": "scale", "model": "toy-coder",
                     "prompt": head, "samples": [f"{head}    {b}\n" for b in bodies],
                     "tests": [{"args": [3], "expected": 3 * k},
                               {"args": [-2], "expected": -2 * k}]})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def score(*argv: str) -> bytes:
    """``codequorum score`` as installed, in its own process, the versions in the sandbox."""
    done = subprocess.run([str(SCRIPT), "score", *argv, "--dynamic", "--no-tsed", "-q"],
                          capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def test_a_strong_models_run_moves_to_its_own_rate_as_the_shipped_rule_says(
        tmp_path: Path) -> None:
    if not dynamic_available():
        pytest.skip("dynamic analysis is not installed")
    data = population(tmp_path / "strong.jsonl")
    document = json.loads(score(str(data), "--format", "json"))
    schema = Path(__file__).resolve().parents[2] / "shared" / "report.schema.json"
    jsonschema.validate(document, json.loads(schema.read_text()))
    sets = document["sets"]
    wrong = [kept_fails(s) for s in sets]
    alone = np.array([s["risk_alone"] for s in sets])
    moved = np.array([s["risk"] for s in sets])
    # two kept versions of 24 fail the hidden tests
    assert wrong.count(True) == 2 and wrong.count(False) == 22
    # pinned to the model refitted on four model families (bench/fit_risk_families.py)
    assert float(alone.mean()) == pytest.approx(ALONE_MEAN, abs=1e-9)
    # the shipped rule (bench/bench_run_rate.py) moves a run of 10 sets or more, with a
    # pseudo-count of 400 sets at the fit's prior: 24 sets move it a little way
    rule = BaseRate.from_model(load_model())
    assert (rule.pseudo_count, rule.min_sets) == (400.0, 10)
    entry = document["overall"]["risk_levels"]["toy-coder"]
    assert entry["sets"] == 24 and entry["adapted"]
    assert entry["fit_rate"] == rule.prior
    # the run's risks, below the fit's prior on average, imply a lower rate: each risk is
    # moved down to it, in the same order
    assert entry["estimated_rate"] < entry["rate"] < rule.prior
    assert moved.tolist() == shift(alone, rule.prior, entry["rate"]).tolist()
    assert (moved < alone).all()
    assert np.argsort(moved, kind="stable").tolist() == np.argsort(alone, kind="stable").tolist()
    assert entry["mean_risk"] == pytest.approx(float(moved.mean()), abs=1e-12)
    assert entry["note"].startswith("risk level set from this run's 24 sets of toy-coder: "
                                    f"about {round(100 * float(moved.mean()))} % of kept "
                                    "versions wrong (each set alone: 45 %; the fit assumed "
                                    "49 %)")
    # each set's own, asked for, is what risk_alone kept
    own = [json.loads(line) for line in score(str(data), "--format", "jsonl",
                                              "--risk-level", "set").splitlines()]
    assert [s["risk"] for s in own] == alone.tolist()
    assert "risk_levels" not in json.dumps(own)
