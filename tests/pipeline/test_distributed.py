"""``score --scheduler`` on a real dask.distributed cluster: two worker processes (not
threads), output compared byte for byte with the local run, ``--resume``, and a worker
killed mid-run losing no set."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import Client

from codequorum.cli.main import main
from codequorum.core.errors import UserError
from codequorum.core.model import VersionSet
from codequorum.core.report import StabilityReport
from codequorum.ingest.version_files import ReadOptions, read_version_sets
from codequorum.pipeline.config import AnalysisConfig


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """A LocalCluster of two worker processes, one thread each (``--scheduler local:2``)."""
    from codequorum.pipeline.distributed import connect

    with connect("local:2") as c:
        c.wait_for_workers(2)
        pids = set(c.run(os.getpid).values())
        assert len(pids) == 2 and os.getpid() not in pids  # processes, not threads
        assert set(c.nthreads().values()) == {1}  # type: ignore[no-untyped-call]
        yield c


@pytest.fixture(scope="module")
def address(client: Client) -> str:
    """The scheduler's address, as ``--scheduler`` takes it."""
    return str(client.scheduler_info()["address"])


@pytest.fixture(scope="module")
def data(shared_dir: Path) -> Path:
    """Real CodeGen-16B samples of HumanEval."""
    return shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"


def _score(tmp_path: Path, name: str, *argv: str) -> tuple[int, bytes]:
    """Run ``codequorum score ... -o tmp/name`` in this process; status and output."""
    out = tmp_path / name
    code = main(["score", *argv, "-o", str(out), "-q"])
    return code, out.read_bytes() if out.exists() else b""


def test_static_json_matches_local_run_byte_for_byte(
        address: str, data: Path, tmp_path: Path) -> None:
    argv = (str(data), "--limit", "8", "--samples", "6", "--format", "json", "--tsed-08")
    local_code, local = _score(tmp_path, "local.json", *argv)
    code, remote = _score(tmp_path, "cluster.json", *argv, "--scheduler", address)
    assert (local_code, code) == (0, 0)
    assert remote == local
    document = json.loads(remote)
    assert list(document) == ["codequorum", "schema_version", "sets", "errors", "interrupted",
                              "total", "overall"]
    assert [s["task_id"] for s in document["sets"]] == [f"HumanEval/{k}" for k in range(8)]
    assert document["total"] == 8 and document["overall"]["scored"] == 8


def _with_a_broken_line(data: Path, tmp_path: Path, sets: int) -> Path:
    """The first ``sets`` sets of ``data`` with a broken line after the fourth."""
    with data.open(encoding="utf-8") as source:
        lines = [next(source) for _ in range(sets)]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(lines[:4]) + "{broken\n" + "".join(lines[4:]), encoding="utf-8")
    return path


def _page_data(page: bytes) -> dict[str, Any]:
    """The data the page embeds."""
    text = page.decode("utf-8").split('id="cq-data">', 1)[1].split("</script>", 1)[0]
    data: dict[str, Any] = json.loads(text)
    return data


@pytest.mark.parametrize("fmt", ["json", "table", "html"])
def test_documents_match_local_run_byte_for_byte(
        address: str, data: Path, tmp_path: Path, fmt: str) -> None:
    """json, table and html, with an input error and (html) another run compared."""
    source = _with_a_broken_line(data, tmp_path, 9)
    extra: tuple[str, ...] = {"table": ("--reasons",), "json": ("--matrices",)}.get(fmt, ())
    if fmt == "html":
        _score(tmp_path, "other.json", str(data), "--limit", "6", "--samples", "4",
               "--no-tsed", "--format", "json")
        extra = ("--compare", str(tmp_path / "other.json"))
    argv = (str(source), "--samples", "5", "--no-tsed", "--format", fmt, *extra)
    local_code, local = _score(tmp_path, f"local.{fmt}", *argv)
    code, remote = _score(tmp_path, f"cluster.{fmt}", *argv, "--scheduler", address)
    assert (local_code, code) == (1, 1)  # the broken line
    assert remote == local
    if fmt == "json":
        document = json.loads(remote)
        assert len(document["sets"]) == 9 and len(document["errors"]) == 1
        assert document["errors"][0]["line"] == 5
        assert len(document["sets"][0]["matrices"]["jsd_struct"]) == 5
    elif fmt == "table":
        assert b"HumanEval/8" in remote and b"mean of 9" in remote
    else:
        page = _page_data(remote)
        assert [r[0] for r in page["rows"]] == [f"HumanEval/{k}" for k in range(9)]
        assert page["n_errors"] == 1 and page["compare"]["name"] == "other.json"
        assert len(page["compare"]["rows"]) == 6 and all(d.get("h") for d in page["details"])


#: What a report takes from the CPU time its versions' calls took: it depends on how busy
#: the machine was, so runs are compared without it (docs/metrics.md: growth).
_NOT_JUDGED = "growth not judged for version"


def _without_timings(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` (a set's JSON) without the figures measured in CPU time: each version's
    CPU-time growth, the notes that it was not judged and the complexity verdicts."""
    dynamic = report["dynamic"]
    for candidate in dynamic["candidates"]:
        if candidate["growth_measure"] == "cpu-time":
            candidate["growth"] = None
    dynamic["notes"] = [n for n in dynamic["notes"] if not n.startswith(_NOT_JUDGED)]
    for holder in (report, dynamic):
        holder["verdicts"] = [v for v in holder["verdicts"]
                              if v["code"] != "complexity-outlier"]
    return report


def _untimed(output: bytes, fmt: str) -> bytes:
    """A json or jsonl output with :func:`_without_timings` applied to each set (a csv
    output has no column taken from CPU time while a set's outputs diverge, as in the sets
    compared here)."""
    if fmt == "json":
        document = json.loads(output)
        document["sets"] = [_without_timings(s) for s in document["sets"]]
        return json.dumps(document).encode()
    if fmt != "jsonl":
        return output
    return b"".join(json.dumps(_without_timings(json.loads(line))).encode() + b"\n"
                    for line in output.splitlines())


def test_dynamic_json_matches_local_run_byte_for_byte(
        address: str, data: Path, tmp_path: Path) -> None:
    argv = (str(data), "--limit", "2", "--samples", "3", "--format", "json", "--dynamic",
            "--no-tsed")
    local_code, local = _score(tmp_path, "local.json", *argv)
    code, remote = _score(tmp_path, "cluster.json", *argv, "--scheduler", address)
    assert (local_code, code) == (0, 0)
    assert _untimed(remote, "json") == _untimed(local, "json")
    sets = json.loads(remote)["sets"]
    assert all(s["summary"]["pass_rate_mean"] is not None for s in sets)


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_resume_appends_the_missing_sets(
        address: str, data: Path, tmp_path: Path, fmt: str) -> None:
    argv = (str(data), "--samples", "4", "--no-tsed", "--format", fmt)
    _, local = _score(tmp_path, "local", *argv, "--limit", "7")
    code, first = _score(tmp_path, "out", *argv, "--limit", "3", "--scheduler", address)
    assert code == 0 and first == b"".join(local.splitlines(keepends=True)[:3 + (fmt == "csv")])
    with (tmp_path / "out").open("ab") as stream:  # a run killed while writing a line
        stream.write(local.splitlines(keepends=True)[-1][:40])
    code, resumed = _score(tmp_path, "out", *argv, "--limit", "7", "--scheduler", address,
                           "--resume")
    assert code == 0
    assert resumed == local


def test_resume_refuses_a_single_document(data: Path, tmp_path: Path) -> None:
    code, _ = _score(tmp_path, "out.json", str(data), "--format", "json", "--resume",
                     "--scheduler", "local:1")
    assert code == 1


def test_scheduler_spec_is_checked() -> None:
    from codequorum.pipeline.distributed import parse_scheduler

    assert parse_scheduler("local:3") == ("local", 3)
    assert parse_scheduler("tcp://10.0.0.5:8786") == ("address", "tcp://10.0.0.5:8786")
    for bad in ("local:0", "local:x", "nowhere"):
        with pytest.raises(UserError):
            parse_scheduler(bad)


def test_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.delitem(sys.modules, "codequorum.pipeline.distributed", raising=False)
    with pytest.raises(UserError, match=r"pip install 'codequorum\[distributed\]'"):
        import codequorum.pipeline.distributed  # noqa: F401


def _local_reports(sets: list[VersionSet], options: AnalysisConfig) -> list[str]:
    from codequorum.pipeline.score import score_one

    out = []
    for s in sets:
        report = score_one(s, options)
        assert isinstance(report, StabilityReport)
        out.append(json.dumps(report.to_dict()))
    return out


def test_a_worker_killed_mid_run_loses_no_set(client: Client, data: Path) -> None:
    from codequorum.pipeline.distributed import score_distributed

    sets = [s for s in read_version_sets(data, ReadOptions(limit=16, max_versions=12))
            if isinstance(s, VersionSet)]
    options = AnalysisConfig()
    pids: dict[str, int] = client.run(os.getpid)
    killed: list[int] = []

    def kill_one(done: int, _workers: int) -> None:
        if done == 2 and not killed:  # both workers hold queued and running sets now
            processing: dict[str, list[str]] = client.processing()  # type: ignore[no-untyped-call]
            busy = [w for w, tasks in processing.items() if tasks]
            assert busy, "no worker was running a set"
            victim = pids[busy[0]]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    results = list(score_distributed(sets, options, client, window=8, on_progress=kill_one))
    assert killed
    assert [k for k, _ in results] == list(range(len(sets)))
    got = []
    for _, r in results:
        assert isinstance(r, StabilityReport)
        got.append(json.dumps(r.to_dict()))
    assert got == _local_reports(sets, options)
    client.wait_for_workers(2, timeout=30)  # the nanny started a new worker
    assert killed[0] not in client.run(os.getpid).values()


def test_jsonl_input_is_read_as_it_is_consumed(data: Path, tmp_path: Path) -> None:
    """The first set comes out while the rest of the input has not been written yet."""
    fifo = tmp_path / "sets.jsonl"
    os.mkfifo(fifo)
    with data.open(encoding="utf-8") as source:
        lines = [next(source) for _ in range(60)]
    held = threading.Event()
    writer_done = threading.Event()

    def write() -> None:
        with fifo.open("w", encoding="utf-8") as out:
            out.writelines(lines[:55])
            out.flush()
            held.wait(timeout=30)
            out.writelines(lines[55:])
        writer_done.set()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        sets = read_version_sets(fifo, ReadOptions(max_versions=2))
        first = next(sets)
        assert isinstance(first, VersionSet) and first.task_id == "HumanEval/0"
        assert not writer_done.is_set()
    finally:
        held.set()
    rest = list(sets)
    thread.join(timeout=30)
    assert [s.task_id for s in rest if isinstance(s, VersionSet)] == [
        f"HumanEval/{k}" for k in range(1, 60)]


def test_quiet_run_on_a_local_cluster_prints_nothing_on_stderr(data: Path,
                                                               tmp_path: Path) -> None:
    """dask's own INFO records (its loggers have a level of their own) do not pass -q."""
    script = Path(sys.executable).parent / "codequorum"
    proc = subprocess.run([str(script), "score", str(data), "--limit", "2", "--samples", "3",
                           "--no-tsed", "--scheduler", "local:1", "-q", "--format", "jsonl",
                           "-o", str(tmp_path / "out.jsonl")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 2


@pytest.mark.parametrize("fmt", ["json", "html"])
def test_ctrl_c_finishes_the_document_with_the_sets_written(
        address: str, data: Path, tmp_path: Path, fmt: str,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C after two sets: the document is whole, says so, and holds those two."""
    import codequorum.pipeline.distributed as engine

    real = engine.score_distributed

    def two_then_ctrl_c(*args: Any, **kwargs: Any) -> Iterator[tuple[int, Any]]:
        results = real(*args, **kwargs)
        try:
            yield next(results)
            yield next(results)
            raise KeyboardInterrupt
        finally:
            results.close()

    monkeypatch.setattr(engine, "score_distributed", two_then_ctrl_c)
    code, out = _score(tmp_path, f"cut.{fmt}", str(data), "--limit", "6", "--samples", "3",
                       "--no-tsed", "--format", fmt, "--scheduler", address)
    assert code == 130
    if fmt == "json":
        document = json.loads(out)
        assert document["interrupted"] is True and document["overall"]["sets"] == 2
        assert [s["task_id"] for s in document["sets"]] == ["HumanEval/0", "HumanEval/1"]
    else:
        page = _page_data(out)
        assert page["interrupted"] is True and len(page["rows"]) == 2
    assert "interrupted: 2 of" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_runs_risk_level_is_the_same_however_the_run_went(
        address: str, data: Path, tmp_path: Path, fmt: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Local, --jobs, a cluster run cut short and resumed: the same bytes but for what CPU
    time measured (a busy machine can leave a growth not judged), every set's risk moved
    from the run's four sets (a rule that moves a group of two)."""
    from codequorum.judge.base_rate import BaseRate
    from codequorum.pipeline.risk_level import RunLevel

    monkeypatch.setattr(RunLevel, "shipped",
                        classmethod(lambda cls: cls(BaseRate(0.5, 1.0, 2))))
    argv = (str(data), "--samples", "3", "--no-tsed", "--format", fmt, "--dynamic")
    _, local = _score(tmp_path, "local", *argv, "--limit", "4")
    _, jobs = _score(tmp_path, "jobs", *argv, "--limit", "4", "--jobs", "2")
    code, _ = _score(tmp_path, "out", *argv, "--limit", "2", "--scheduler", address)
    assert code == 0
    code, resumed = _score(tmp_path, "out", *argv, "--limit", "4", "--scheduler", address,
                           "--resume")
    assert code == 0
    assert _untimed(resumed, fmt) == _untimed(local, fmt)
    assert _untimed(jobs, fmt) == _untimed(local, fmt)
    _, alone = _score(tmp_path, "alone", *argv, "--limit", "4", "--risk-level", "set")
    if fmt == "jsonl":
        moved = [json.loads(line) for line in local.splitlines()]
        own = [json.loads(line) for line in alone.splitlines()]
        assert [s["risk_alone"] for s in moved] == [s["risk"] for s in own]
        assert all(s["risk_alone"] == s["risk"] for s in own)
        assert sum(s["risk"] != s["risk_alone"] for s in moved) == len(
            [s for s in moved if s["risk"] is not None]) > 0


SCALED = '''"""Sizes."""

UNIT = 1024


def scaled(n):
    """>>> scaled(2048)
    2
    """
    return n // UNIT
'''


def test_exported_sets_run_in_their_module_on_the_cluster(
        address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``export``'s sets name their module; the client rebuilds it from the workspace it
    runs in and sends it with the set, so the workers need not see the workspace: the
    versions use the module's ``UNIT`` and the report is the local run's, byte for byte but
    for what CPU time measured."""
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / "sizes.py").write_text(SCALED)
    versions = tmp_path / "versions.json"
    versions.write_text(json.dumps(["def scaled(n):\n    return n // UNIT\n",
                                    "def scaled(n):\n    return int(n / UNIT)\n",
                                    "def scaled(n):\n    return n >> 10\n"]))
    assert main(["sample", str(ws / "sizes.py"), "-f", "scaled", "--from", str(versions),
                 "-q"]) == 0
    exported = tmp_path / "exported.jsonl"
    assert main(["export", str(ws), "-o", str(exported), "-q"]) == 0
    monkeypatch.chdir(ws)
    argv = (str(exported), "--format", "json", "--dynamic", "--no-tsed")
    local_code, local = _score(tmp_path, "local.json", *argv)
    code, remote = _score(tmp_path, "cluster.json", *argv, "--scheduler", address)
    assert (local_code, code) == (0, 0)
    assert _untimed(remote, "json") == _untimed(local, "json")  # but for what CPU time measured
    [report] = json.loads(remote)["sets"]
    assert not [n for n in report["notes"] if "without its module" in n]
    assert report["summary"]["pass_rate_mean"] == 1.0
