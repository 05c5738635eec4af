"""The audit hook (the layer that explains; tested alone, in the weak sandbox): each escape
route ends as the right ``forbidden: <what>``."""

from __future__ import annotations

from pathlib import Path

import pytest

from codequorum.behaviour.sandbox.supervisor import run_candidate
from codequorum.core.model import TestCase as Case

REFUSED = {
    "import_posixsubprocess": ("def f():\n    import _posixsubprocess\n", "subprocess"),
    "multiprocessing": (
        "import multiprocessing\ndef f():\n    multiprocessing.Process(target=print).start()\n",
        "subprocess",
    ),
    "pty_fork": ("import pty\ndef f():\n    pty.fork()\n", "subprocess"),
    "posix_spawn": (
        "import os\ndef f():\n    os.posix_spawn('/bin/true', ['true'], {{}})\n",
        "subprocess",
    ),
    "execv": ("import os\ndef f():\n    os.execv('/bin/true', ['true'])\n", "subprocess"),
    "gc_objects": ("import gc\ndef f():\n    return len(gc.get_objects())\n", "gc introspection"),
    "raise_rlimit": (
        "import resource\ndef f():\n    resource.setrlimit(resource.RLIMIT_CPU, (99, 99))\n",
        "rlimit",
    ),
    "symlink": ("import os\ndef f():\n    os.symlink('/etc/passwd', 'x')\n", "link"),
    "rename_out": (
        "import os\ndef f():\n    open('a', 'w').close()\n    os.rename('a', {out!r})\n",
        "write outside sandbox",
    ),
    "dir_fd_outside": (
        "import os\ndef f():\n    os.open({dir!r}, os.O_RDONLY)\n",
        "directory handle outside sandbox",
    ),
    "chdir_then_write": (
        "import os\ndef f():\n    os.chdir({dir!r})\n    open('relative.txt', 'w')\n",
        "write outside sandbox",
    ),
    "proc_self_mem": ("def f():\n    open('/proc/self/mem', 'wb')\n", "write outside sandbox"),
    "str_subclass": (
        "class S(str):\n    def startswith(self, *a):\n        return True\n"
        "def f():\n    open(S({out!r}), 'w')\n",
        "write outside sandbox",
    ),
    "os_open_flags": (
        "import os\ndef f():\n    os.open({out!r}, os.O_WRONLY | os.O_CREAT)\n",
        "write outside sandbox",
    ),
    "mkdir_outside": ("import os\ndef f():\n    os.mkdir({out!r})\n", "write outside sandbox"),
    "chmod_outside": (
        "import os\ndef f():\n    os.chmod({dir!r}, 0o777)\n",
        "write outside sandbox",
    ),
    "fchmod_outside": (
        "import os\ndef f():\n    fd = os.open({out_file!r}, os.O_RDONLY)\n"
        "    os.fchmod(fd, 0o777)\n",
        "write outside sandbox",
    ),
    "rmtree_outside": (
        "import shutil\ndef f():\n    shutil.rmtree({dir!r})\n",
        "write outside sandbox",
    ),
    "urllib": (
        "import urllib.request\ndef f():\n    urllib.request.urlopen('http://127.0.0.1:9')\n",
        "network",
    ),
    # an event loop's socket pair is allowed; nothing made from it reaches anything else
    "socketpair_connect": (
        "import socket\ndef f():\n    a, b = socket.socketpair()\n    a.connect({out!r})\n",
        "network",
    ),
    "socketpair_sendto": (
        "import socket\ndef f():\n"
        "    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
        "    a.sendto(b'x', {out!r})\n",
        "network",
    ),
    "unix_socket_bind": (
        "import socket\ndef f():\n    socket.socket(socket.AF_UNIX).bind({out!r})\n",
        "network",
    ),
    "unix_socket_connect": (
        "import socket\ndef f():\n    socket.socket(socket.AF_UNIX).connect('/run/x.sock')\n",
        "network",
    ),
    "inet_after_event_loop": (
        "import asyncio, socket\nasync def g():\n    return 1\n"
        "def f():\n    asyncio.run(g())\n    socket.socket(socket.AF_INET)\n",
        "network",
    ),
    "event_loop_connection": (
        "import asyncio\nasync def g():\n    await asyncio.open_connection('127.0.0.1', 9)\n"
        "def f():\n    asyncio.run(g())\n",
        "network",
    ),
    "udp_socket": (
        "import socket\ndef f():\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n",
        "network",
    ),
    "ctypes_late_import": ("def f():\n    import ctypes\n", "ctypes"),
    "parent_environ": (
        "import os\ndef f():\n    return open(f'/proc/{{os.getppid()}}/environ').read()\n",
        "other processes",
    ),
    "parent_home_ssh": (
        "def f():\n    return open({ssh!r}).read()\n",
        "read secrets",
    ),
    "list_parent_home_config": (
        "import os\ndef f():\n    return os.listdir({config!r})\n",
        "read secrets",
    ),
    "replace_code": (
        "def g():\n    return 1\ndef f():\n    g.__code__ = (lambda: 2).__code__\n",
        "code replacement",
    ),
    "replace_code_and_flags": (
        "def g():\n    return 1\ndef f():\n"
        "    g.__code__ = (lambda: 2).__code__.replace(co_flags=g.__code__.co_flags)\n",
        "code replacement",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(name: str, tmp_path: Path) -> None:
    template, what = REFUSED[name]
    out = tmp_path / "out"
    home = Path.home()
    (tmp_path / "existing.txt").write_text("x")
    (tmp_path / "existing.txt").chmod(0o600)
    code = template.format(
        out_file=str(tmp_path / "existing.txt"),
        out=str(out),
        dir=str(tmp_path),
        ssh=str(home / ".ssh" / "id_ed25519"),
        config=str(home / ".config"),
    )
    before = sorted(p.name for p in tmp_path.iterdir())
    assert "existing.txt" in before
    result = run_candidate(code, [Case("call")], "f", sandbox="weak")
    assert result.status == f"forbidden: {what}", result.detail
    assert result.tests[0].exc_type in ("PermissionError", "URLError")
    assert result.tests[0].output is None
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert oct(tmp_path.stat().st_mode & 0o777) != "0o777"
    assert oct((tmp_path / "existing.txt").stat().st_mode & 0o777) == "0o600"


ALLOWED = {
    "import_subprocess": (
        "import subprocess\ndef f():\n    return getattr(subprocess, '_fork_exec', None)\n",
        "None",
    ),
    "read_outside": ("def f():\n    return len(open('/etc/hostname').read()) > 0\n", "True"),
    "threads": (
        "import threading\ndef f():\n    out = []\n"
        "    t = threading.Thread(target=lambda: out.append(1))\n"
        "    t.start()\n    t.join()\n    return out\n",
        "[1]",
    ),
    "files_inside": (
        "import os, pathlib\ndef f():\n    p = pathlib.Path('a/b')\n    p.mkdir(parents=True)\n"
        "    (p / 'c.txt').write_text('hi')\n    os.rename('a/b/c.txt', 'd.txt')\n"
        "    return open('d.txt').read()\n",
        "'hi'",
    ),
    "fchmod_inside": (
        "import os\ndef f():\n    fd = os.open('x', os.O_CREAT | os.O_WRONLY)\n"
        "    os.fchmod(fd, 0o600)\n    return oct(os.stat('x').st_mode & 0o777)\n",
        "'0o600'",
    ),
    "dev_null": ("def f():\n    open('/dev/null', 'w').write('x')\n    return 1\n", "1"),
    "tempfile_in_sandbox": (
        "import os, tempfile\ndef f():\n    with tempfile.NamedTemporaryFile('w') as fh:\n"
        "        fh.write('x')\n"
        "        return os.path.dirname(fh.name) == os.getcwd()\n",
        "True",
    ),
    "dev_stdout": (
        "def f():\n    with open('/dev/stdout', 'w') as fh:\n"
        "        fh.write('hi')\n    return 1\n",
        "1",
    ),
    "own_proc_entries": (
        "def f():\n    return open('/proc/self/status').read().startswith('Name:')\n",
        "True",
    ),
    "argv_hides_the_pipe": ("import sys\ndef f():\n    return sys.argv\n", "['<candidate>']"),
    # asyncio's import marks a generator a coroutine (types.coroutine: the same code, other
    # flags); a module that imports it loads
    "import_asyncio": (
        "import asyncio\nasync def g(x):\n    await asyncio.sleep(0)\n    return 2 * x\n"
        "def f():\n    c = g(3)\n    while True:\n        try:\n            c.send(None)\n"
        "        except StopIteration as end:\n            return end.value\n",
        "6",
    ),
    # an event loop makes a socket pair for its self-pipe (socket.__new__, AF_UNIX)
    "asyncio_run": (
        "import asyncio\nasync def g(x):\n    await asyncio.sleep(0)\n    return 2 * x\n"
        "def f():\n    return asyncio.run(g(3))\n",
        "6",
    ),
    "socketpair_round_trip": (
        "import socket\ndef f():\n    a, b = socket.socketpair()\n    a.sendall(b'hi')\n"
        "    return b.recv(2)\n",
        "b'hi'",
    ),
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_allowed(name: str) -> None:
    code, output = ALLOWED[name]
    result = run_candidate(code, [Case("call")], "f", sandbox="weak")
    assert result.status == "ok", result.detail
    assert result.tests[0].output == output
