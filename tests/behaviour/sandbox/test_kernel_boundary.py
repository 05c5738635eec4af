"""The hostile corpus against the strict sandbox: the boundary is the kernel.

Each hostile version runs beside well-behaved ones, as an attacker would write it: it
switches the audit hook's tables off, lies about paths, signals and renices other
processes, loads native code, reads secrets, forges frames on the message pipe, tries to
learn the expected value or fake a pass. Every case asserts what it could not do, and
the run as a whole asserts that the well-behaved versions keep correct results and that
nothing outside the sandbox changed: files in HOME and the working directory, a process
of the user's, the terminal.

Native-code cases run twice where it matters: with the audit hook (reaching native code
through ``_imp.create_dynamic``, which raises no event) and without it
(``audit_hook=False``), so the kernel layers are shown to hold on their own.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import CandidateResult, run_candidate, run_candidates
from codequorum.core.model import ModuleContext
from codequorum.core.model import TestCase as Case
from tests.behaviour.sandbox.conftest import snapshot

TESTS = [
    Case("call", args=(3,), expected=9, has_expected=True, name="three"),
    Case("call", args=(4,), expected=16, has_expected=True, name="four"),
]
GOOD = {
    "good_square": "def f(n):\n    return n * n\n",
    "good_loop": "def f(n):\n    t = 0\n    for _ in range(n):\n        t += n\n    return t\n",
}
LIMITS = Limits(wall_seconds=8.0, cpu_seconds=3.0, memory_mb=512)

# ctypes without the hook seeing an import: the extension module loaded by hand, the
# package executed from its source. Used where a case needs native code *with* the hook.
NATIVE = (
    "import _imp, importlib.machinery, importlib.util, os, sys\n"
    "def _ctypes():\n"
    "    d = [p for p in sys.path if p.endswith('lib-dynload')][0]\n"
    "    so = [n for n in os.listdir(d) if n.startswith('_ctypes.')][0]\n"
    "    spec = importlib.machinery.ModuleSpec('_ctypes', None, origin=os.path.join(d, so))\n"
    "    sys.modules['_ctypes'] = _imp.create_dynamic(spec)\n"
    "    pkg = os.path.join(os.path.dirname(os.__file__), 'ctypes', '__init__.py')\n"
    "    loader = importlib.machinery.SourceFileLoader('ctypes', pkg)\n"
    "    spec = importlib.util.spec_from_file_location('ctypes', pkg, loader=loader,\n"
    "        submodule_search_locations=[os.path.dirname(pkg)])\n"
    "    mod = importlib.util.module_from_spec(spec)\n"
    "    sys.modules['ctypes'] = mod\n"
    "    loader.exec_module(mod)\n"
    "    return mod\n"
)


def _syscall_case(number: int, *args: int) -> str:
    """A version that makes a raw system call through ctypes and returns errno."""
    call_args = ", ".join(str(a) for a in args)
    return (
        "import ctypes, os\n"
        "def f(n):\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        f"    r = libc.syscall({number}{', ' if args else ''}{call_args})\n"
        "    return (r, ctypes.get_errno())\n"
    )


@pytest.fixture
def canary() -> Iterator[subprocess.Popen[bytes]]:
    """A process of the user's that hostile versions try to kill or renice."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc
    proc.kill()
    proc.wait()


def _corpus(work: Path, marker: Path, canary: int, port: int) -> dict[str, str]:
    """Name -> hostile version (each targets the host paths and pids given)."""
    home = Path.home()
    return {
        # --- the audit hook's state -------------------------------------------------
        "hook_tables_cleared": (
            "import __main__, os\n"
            "def f(n):\n"
            "    for name in dir(__main__):\n"
            "        if name.isupper() and name.startswith('_'):\n"
            "            setattr(__main__, name, ())\n"
            f"    os.system('touch {marker}')\n"
        ),
        "hook_module_globals": (
            "import sys, os\n"
            "def f(n):\n"
            "    for m in list(sys.modules.values()):\n"
            "        d = getattr(m, '__dict__', {})\n"
            "        for k in [k for k in d if k.startswith('_SUBPROCESS')]:\n"
            "            d[k] = ()\n"
            f"    os.system('touch {marker}')\n"
        ),
        # --- paths that lie ---------------------------------------------------------
        "bytes_subclass_path": (
            "class P(bytes):\n"
            "    def __bytes__(self):\n"
            f"        return {str(marker).encode()!r}\n"
            "def f(n):\n"
            f"    open(P({str(work / 'ok.txt').encode()!r}), 'wb').write(b'x')\n"
        ),
        "fspath_switch": (
            "class P:\n"
            "    calls = 0\n"
            "    def __fspath__(self):\n"
            "        P.calls += 1\n"
            f"        return 'inside.txt' if P.calls == 1 else {str(marker)!r}\n"
            "def f(n):\n"
            "    open(P(), 'w').write('x')\n"
        ),
        # --- other processes ----------------------------------------------------------
        "kill_user_process": (
            f"import os, signal\ndef f(n):\n    os.kill({canary}, signal.SIGKILL)\n"
        ),
        "pidfd_kill": (
            "import os, signal\n"
            "def f(n):\n"
            f"    fd = os.pidfd_open({canary})\n"
            "    signal.pidfd_send_signal(fd, signal.SIGKILL)\n"
        ),
        "renice_other": (
            f"import os\ndef f(n):\n    os.setpriority(os.PRIO_PROCESS, {canary}, 19)\n"
        ),
        "affinity_other": (
            f"import os\ndef f(n):\n    os.sched_setaffinity({canary}, {{0}})\n"
        ),
        "sched_fifo": (
            "import os\n"
            "def f(n):\n"
            "    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))\n"
        ),
        "list_processes": (
            "import os\ndef f(n):\n    return sorted(os.listdir('/proc'))\n"
        ),
        # --- secrets ------------------------------------------------------------------
        "read_dotenv": f"def f(n):\n    return open({str(work / '.env')!r}).read()\n",
        "read_home": f"import os\ndef f(n):\n    return os.listdir({str(home)!r})\n",
        "parent_environ": (
            "import os\ndef f(n):\n    return open(f'/proc/{os.getppid()}/environ').read()\n"
        ),
        "proc_cwds": (
            "import os\n"
            "def f(n):\n"
            "    out = []\n"
            "    for p in os.listdir('/proc'):\n"
            "        if p.isdigit():\n"
            "            try:\n"
            "                out.append(os.readlink(f'/proc/{p}/cwd'))\n"
            "            except OSError:\n"
            "                pass\n"
            "    return out\n"
        ),
        # --- native code ---------------------------------------------------------------
        "native_system": NATIVE + (
            "def f(n):\n"
            f"    return _ctypes().CDLL(None).system(b'touch {marker}')\n"
        ),
        "memfd_extension": (
            "import os\n"
            "def f(n):\n"
            "    fd = os.memfd_create('x')\n"
            "    return fd\n"
        ),
        "so_in_tmpfs": NATIVE + (
            "import shutil\n"
            "def f(n):\n"
            "    d = [p for p in sys.path if p.endswith('lib-dynload')][0]\n"
            "    so = [x for x in os.listdir(d) if x.startswith('_bisect.')][0]\n"
            "    shutil.copy(os.path.join(d, so), 'evil.so')\n"
            "    spec = importlib.machinery.ModuleSpec('_bisect', None,\n"
            "                                          origin=os.path.abspath('evil.so'))\n"
            "    return repr(_imp.create_dynamic(spec))\n"
        ),
        # --- the message pipe ----------------------------------------------------------
        "forged_frame_types": (
            "import os, json, struct\n"
            "def f(n):\n"
            "    body = json.dumps({'v': 1, 'type': 'test', 'index': 'zero',\n"
            "                       'outcome': {'passed': 'yes', 'opcodes': [1]}}).encode()\n"
            "    os.write(3, struct.pack('>I', len(body)) + body)\n"
            "    return n * n\n"
        ),
        "forged_deep_json": (
            "import os, struct\n"
            "def f(n):\n"
            "    body = b'[' * 200000 + b']' * 200000\n"
            "    os.write(3, struct.pack('>I', len(body)) + body)\n"
            "    return n * n\n"
        ),
        "forged_pass": (
            "import os, json, struct\n"
            "def f(n):\n"
            "    for i in range(2):\n"
            "        out = {'name': 't', 'passed': True, 'output': '9', 'exc_type': None,\n"
            "               'exc_message': None, 'opcodes': None, 'opcode_total': 0,\n"
            "               'seconds': 0.0, 'value': 'nope'}\n"
            "        body = json.dumps({'v': 1, 'type': 'test', 'index': i,\n"
            "                           'outcome': out}).encode()\n"
            "        os.write(3, struct.pack('>I', len(body)) + body)\n"
            "    return None\n"
        ),
        # --- grading ---------------------------------------------------------------------
        "always_equal": (
            "class Yes:\n"
            "    def __eq__(self, other):\n"
            "        return True\n"
            "    __hash__ = object.__hash__\n"
            "def f(n):\n"
            "    return Yes()\n"
        ),
        "int_subclass_equal": (
            "class I(int):\n"
            "    def __eq__(self, other):\n"
            "        return True\n"
            "    __hash__ = int.__hash__\n"
            "def f(n):\n"
            "    return I(0)\n"
        ),
        "read_expected": (
            "import sys, gc\n"
            "def f(n):\n"
            "    frame = sys._getframe(1)\n"
            "    while frame is not None:\n"
            "        for k, v in frame.f_locals.items():\n"
            "            if 'expect' in k:\n"
            "                return v\n"
            "        frame = frame.f_back\n"
            "    return None\n"
        ),
        "replace_builtins": (
            "import builtins\n"
            "builtins.compile = lambda *a, **k: None\n"
            "builtins.isinstance = lambda *a: True\n"
            "def f(n):\n"
            "    return 0\n"
        ),
        # --- statuses ---------------------------------------------------------------------
        "repr_raises_baseexception": (
            "class Bad:\n"
            "    def __repr__(self):\n"
            "        raise KeyboardInterrupt('no repr')\n"
            "def f(n):\n"
            "    return Bad() if n == 3 else n * n\n"
        ),
        "terminal_escapes": (
            "import sys, os\n"
            "def f(n):\n"
            "    os.write(1, b'\\x1b]0;pwned\\x07\\x1b[2J')\n"
            "    os.write(2, b'\\x1b[31mred')\n"
            "    raise ValueError('\\x1b]0;pwned\\x07')\n"
        ),
        "network": (
            "import socket\n"
            "def f(n):\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'x')\n"
        ),
        "write_marker": f"def f(n):\n    open({str(marker)!r}, 'w').write('x')\n",
    }


#: The module the corpus runs in the second time: a function's module, a helper beside it
#: in the workspace view (read-only; nothing else of the workspace is there).
MODULE = ModuleContext(
    "app", "app.py", "f", "function",
    (("app.py", "from helper import K\n\ndef f(n):\n    return n * n * K\n"),
     ("helper.py", "K = 1\n")), ("",))
#: What a version in a module tries on the view (run only there).
VIEW_CASES = {
    "write_view": "def f(n):\n    open(__file__, 'a').write('x')\n",
    "list_view": "import os\ndef f(n):\n    return sorted(os.listdir(os.path.dirname(__file__)))\n",
    "chmod_view": "import os\ndef f(n):\n    os.chmod(__file__, 0o666)\n",
}


@pytest.mark.parametrize("module", [None, MODULE], ids=["alone", "in-module"])
def test_hostile_corpus_strict(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    canary: subprocess.Popen[bytes],
    listener: socket.socket,
    capfd: pytest.CaptureFixture[str],
    module: ModuleContext | None,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text("API_KEY=sk-secret\n")
    (work / "keep.txt").write_text("precious\n")
    monkeypatch.chdir(work)
    marker = tmp_path / "owned"
    home = Path.home()
    home_before = sorted(p.name for p in home.iterdir())
    work_before = snapshot(work)
    nice_before = os.getpriority(os.PRIO_PROCESS, canary.pid)
    affinity_before = os.sched_getaffinity(canary.pid)

    corpus = {**_corpus(work, marker, canary.pid, listener.getsockname()[1]), **GOOD}
    if module is not None:
        corpus.update(VIEW_CASES)
    assert len(corpus) - len(GOOD) >= 25
    names = list(corpus)
    results = run_candidates([corpus[n] for n in names], TESTS, "f", LIMITS, jobs=2,
                             module=module)
    by = dict(zip(names, results, strict=True))
    status = {n: r.status for n, r in by.items()}

    def outputs(name: str) -> list[str | None]:
        return [t.output for t in by[name].tests]

    def passed(name: str) -> list[bool | None]:
        return [t.passed for t in by[name].tests]

    # Well-behaved versions beside the hostile ones keep correct results.
    for name in GOOD:
        assert status[name] == "ok", by[name].detail
        assert passed(name) == [True, True]
        assert outputs(name) == ["9", "16"]
    # Every hostile version ended with a status; none passed a test it should not.
    for name in corpus:
        if name not in GOOD and name != "repr_raises_baseexception":
            assert status[name], name
            assert True not in passed(name), (name, by[name].tests)

    # The audit hook's tables are closure constants: rebinding globals changes nothing.
    assert status["hook_tables_cleared"] == "forbidden: subprocess"
    assert status["hook_module_globals"] == "forbidden: subprocess"
    # Paths that lie reach nothing outside.
    assert by["bytes_subclass_path"].tests[0].exc_type in (
        None, "PermissionError", "FileNotFoundError"
    )
    # open() converts the path once; the write lands in the version's own tmpfs
    assert by["fspath_switch"].tests[0].exc_type is None
    # Other processes are out of sight.
    assert status["kill_user_process"] == "forbidden: signal"
    assert status["pidfd_kill"] in ("forbidden: signal", "forbidden: system call")
    assert by["renice_other"].tests[0].exc_type in ("PermissionError", "ProcessLookupError")
    assert by["affinity_other"].tests[0].exc_type in ("PermissionError", "ProcessLookupError")
    assert status["sched_fifo"] == "forbidden: system call"
    assert by["list_processes"].tests[0].output == "[]"
    # Secrets are not there to read.
    assert by["read_dotenv"].tests[0].exc_type == "FileNotFoundError"
    # HOME shows at most the directories leading to the interpreter (a pyenv under it)
    home_view = by["read_home"].tests[0]
    interpreter_path = Path(os.path.realpath(sys.executable)).parts
    assert home_view.exc_type in ("FileNotFoundError", "PermissionError") or all(
        name in interpreter_path for name in eval(home_view.output or "[]")
    )
    assert by["parent_environ"].tests[0].exc_type in ("FileNotFoundError", "PermissionError")
    assert by["proc_cwds"].tests[0].output == "[]"
    # Native code runs, but the kernel holds: no exec, no anonymous executable files,
    # nothing executable on the writable tmpfs.
    assert status["native_system"] in ("forbidden: ctypes", "forbidden: system call")
    assert by["memfd_extension"].tests[0].exc_type == "PermissionError"
    assert by["so_in_tmpfs"].tests[0].exc_type == "ImportError"
    assert "failed to map segment" in (by["so_in_tmpfs"].tests[0].exc_message or "")
    # Forged or malformed frames: that version is a protocol violation, the rest scored.
    assert status["forged_frame_types"] == "protocol-violation"
    assert status["forged_deep_json"] == "protocol-violation"
    # A forged outcome passes nothing: the real one follows it, and a second outcome for a
    # test is a forgery (the parent grades from the value anyway, the child cannot).
    assert status["forged_pass"] == "protocol-violation"
    assert not any(passed("forged_pass"))
    # Grading happens here: objects that claim equality do not pass.
    assert passed("always_equal") == [False, False]
    assert passed("int_subclass_equal") == [False, False]
    assert passed("read_expected") == [False, False]
    assert not {"9", "16"} & set(outputs("read_expected"))  # the harness never had them
    # breaking its own harness only ends its own run
    assert True not in passed("replace_builtins")
    # A BaseException from __repr__ loses no test.
    assert [t.exc_type is None for t in by["repr_raises_baseexception"].tests] == [True, True]
    assert passed("repr_raises_baseexception") == [False, True]
    # Escape sequences stay data.
    assert by["terminal_escapes"].tests[0].exc_message == "\x1b]0;pwned\x07"
    assert status["network"] == "forbidden: network"
    assert status["write_marker"] in ("forbidden: write outside sandbox", "ok")
    assert by["write_marker"].tests[0].exc_type in ("PermissionError", "FileNotFoundError")
    if module is not None:  # the workspace view: what the module imports, read-only
        assert all(r.module is not None and r.module.loaded for r in results
                   if r.status != "protocol-violation")  # a violation's messages are void
        assert all("ro-view" in r.layers for r in results if r.layers != ["deadline"])
        assert status["write_view"] == "forbidden: write outside sandbox"
        assert status["chmod_view"] == "forbidden: write outside sandbox"
        assert outputs("list_view") == ["['app.py', 'helper.py']"] * 2

    # Nothing outside changed.
    assert not marker.exists()
    assert sorted(p.name for p in home.iterdir()) == home_before
    assert snapshot(work) == work_before
    assert canary.poll() is None
    assert os.getpriority(os.PRIO_PROCESS, canary.pid) == nice_before
    assert os.sched_getaffinity(canary.pid) == affinity_before
    with pytest.raises(TimeoutError):
        listener.accept()
    terminal = capfd.readouterr()
    assert "\x1b" not in terminal.out and "\x1b" not in terminal.err


def _native(case: str) -> CandidateResult:
    return run_candidate(case, TESTS[:1], "f", LIMITS, audit_hook=False)


KILLED_CALLS = {
    "ptrace_attach_parent": (101, (16, 1)),  # PTRACE_ATTACH to pid 1 of its namespace
    "mount_tmpfs": (165, (0, 0, 0, 0, 0)),
    "unshare_user": (272, (0x10000000,)),
    "setns": (308, (0, 0)),
    "bpf": (321, (0, 0, 0)),
    "perf_event_open": (298, (0, 0, -1, -1, 0)),
    "keyctl": (250, (0,)),
    "process_vm_readv": (310, (1, 0, 0, 0, 0, 0)),
    "pidfd_open_parent": (434, (1, 0)),
    "raw_fork": (57, ()),
    "execve_shell": (59, (0, 0, 0)),
    "userfaultfd": (323, (0,)),
    "io_uring_setup": (425, (1, 0)),
}
REFUSED_CALLS = {
    "setpriority_other": (141, (0, 12345, 19)),
    "sched_setaffinity_other": (203, (12345, 8, 0)),
    "prlimit_other": (302, (12345, 9, 0, 0)),
    "memfd_create": (319, (0, 0)),
}


def test_native_system_calls_are_refused_by_the_kernel(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    canary: subprocess.Popen[bytes],
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Without the audit hook, raw system calls through ctypes end the version (or fail
    with EPERM), in one run beside well-behaved versions, and nothing outside changes."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "keep.txt").write_text("precious\n")
    monkeypatch.chdir(work)
    home = Path.home()
    home_before = sorted(p.name for p in home.iterdir())
    work_before = snapshot(work)
    calls = {**KILLED_CALLS, **REFUSED_CALLS}
    corpus = {name: _syscall_case(n, *args) for name, (n, args) in calls.items()} | GOOD
    names = list(corpus)
    results = run_candidates([corpus[n] for n in names], TESTS[:1], "f", LIMITS, jobs=2,
                             audit_hook=False)
    by = dict(zip(names, results, strict=True))
    for name in KILLED_CALLS:
        assert by[name].status == "forbidden: system call", (name, by[name].detail)
        assert "audit-hook" not in by[name].layers and "seccomp" in by[name].layers
    for name in REFUSED_CALLS:
        assert by[name].status == "ok", (name, by[name].detail)
        assert by[name].tests[0].output == "(-1, 1)"  # EPERM
    for name in GOOD:
        assert by[name].status == "ok" and [t.passed for t in by[name].tests] == [True]
    assert sorted(p.name for p in home.iterdir()) == home_before
    assert snapshot(work) == work_before
    assert canary.poll() is None
    terminal = capfd.readouterr()
    assert "\x1b" not in terminal.out and "\x1b" not in terminal.err


def test_native_kill_reaches_nothing_outside(canary: subprocess.Popen[bytes]) -> None:
    """``kill(2)`` through libc: the user's process is not in the version's namespace."""
    code = (
        "import ctypes\n"
        "def f(n):\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        f"    return (libc.kill({canary.pid}, 9), ctypes.get_errno(), libc.kill(-1, 9))\n"
    )
    result = _native(code)
    assert canary.poll() is None
    assert result.status == "ok"
    out = result.tests[0].output or ""
    assert out.startswith("(-1, 3,")  # ESRCH: no such process in its namespace
    assert os.getpgid(os.getpid()) and signal.SIGKILL  # the test process is alive


def test_threads_are_allowed_processes_are_not() -> None:
    code = (
        "import threading\n"
        "def f(n):\n"
        "    out = []\n"
        "    t = threading.Thread(target=lambda: out.append(n * n))\n"
        "    t.start()\n"
        "    t.join()\n"
        "    return out[0]\n"
    )
    result = run_candidate(code, TESTS, "f", LIMITS)
    assert result.status == "ok"
    assert [t.passed for t in result.tests] == [True, True]


def test_check_harness_sees_plain_copies_of_results() -> None:
    """In a check harness, a result that claims equality with anything equals nothing."""
    harness = "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(3) == 9\n"
    fake = (
        "class Yes:\n    def __eq__(self, other):\n        return True\n"
        "    __hash__ = object.__hash__\n"
        "def f(n):\n    return Yes()\n"
    )
    honest = "def f(n):\n    return n * n\n"
    results = run_candidates([fake, honest], [Case("check", source=harness)], "f", LIMITS)
    assert [r.tests[0].passed for r in results] == [False, True]
    assert results[0].tests[0].exc_type == "AssertionError"


def test_siblings_cannot_see_or_signal_each_other() -> None:
    """Two versions at once: one works slowly and leaves a file, the other (native code,
    no audit hook) signals every process it can and looks for the file; the first is
    untouched."""
    import threading

    slow = (
        "import time\n"
        "def f(n):\n"
        "    open('/tmp/sibling-was-here', 'w').write('x')\n"
        "    time.sleep(1.0)\n"
        "    return n * n\n"
    )
    hostile = (
        "import ctypes, os, time\n"
        "def f(n):\n"
        "    time.sleep(0.3)\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    me = os.getpid()\n"
        "    killed = [pid for pid in range(1, 400) if pid != me and libc.kill(pid, 9) == 0]\n"
        "    libc.kill(-1, 9)\n"
        "    return (killed, os.listdir('/tmp'), os.path.exists('/tmp/sibling-was-here'))\n"
    )
    results: dict[str, CandidateResult] = {}

    def run(name: str, code: str, hook: bool) -> None:
        results[name] = run_candidate(code, TESTS[:1], "f", LIMITS, audit_hook=hook)

    threads = [
        threading.Thread(target=run, args=("slow", slow, True)),
        threading.Thread(target=run, args=("hostile", hostile, False)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["slow"].status == "ok"
    assert [t.passed for t in results["slow"].tests] == [True]
    assert results["hostile"].status == "ok", results["hostile"].detail
    # the only other process it can see is its own namespace's init, which ignores it
    assert results["hostile"].tests[0].output == "([1], [], False)"


def test_a_version_cannot_read_the_check_harness() -> None:
    """The harness and its expected values live in the grader's process: a version that
    searches every object and frame of its own process finds nothing to return."""
    harness = "SECRET = 987654321\ndef check(candidate):\n    assert candidate(1) == SECRET\n"
    snoop = (
        "import gc, sys\n"
        "def f(n):\n"
        "    for obj in gc.get_objects():\n"
        "        if isinstance(obj, dict) and 'SECRET' in obj:\n"
        "            return obj['SECRET']\n"
        "        if isinstance(obj, str) and 'SECRET' in obj and 'def f' not in obj:\n"
        "            return obj\n"
        "    frame = sys._getframe()\n"
        "    while frame is not None:\n"
        "        if 'SECRET' in frame.f_globals:\n"
        "            return frame.f_globals['SECRET']\n"
        "        frame = frame.f_back\n"
        "    return -1\n"
    )
    honest = "def f(n):\n    return 987654321\n"
    snooped = run_candidate(snoop, [Case("check", source=harness)], "f", LIMITS,
                            audit_hook=False)
    assert snooped.status == "ok", snooped.detail
    assert snooped.tests[0].passed is False
    assert snooped.tests[0].exc_type == "AssertionError"
    fair = run_candidate(honest, [Case("check", source=harness)], "f", LIMITS)
    assert fair.tests[0].passed is True


def test_a_check_harness_sees_the_versions_exception_as_raised() -> None:
    """An exception in the version reaches the harness with its type and message, so a
    check that expects it passes and an outcome names it as before."""
    harness = (
        "def check(candidate):\n"
        "    try:\n"
        "        candidate(0)\n"
        "    except ZeroDivisionError:\n"
        "        pass\n"
        "    else:\n"
        "        raise AssertionError('no error')\n"
        "    candidate(-1)\n"
    )
    code = "def f(n):\n    if n < 0:\n        raise KeyError('negative')\n    return 1 / n\n"
    result = run_candidate(code, [Case("check", source=harness)], "f", LIMITS)
    outcome = result.tests[0]
    assert (outcome.passed, outcome.exc_type, outcome.exc_message) == (
        False, "KeyError", "'negative'"
    )
